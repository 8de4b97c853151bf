#include "authz/aggregation.hpp"

#include <algorithm>

#include "authz/covers.hpp"
#include "authz/policy_json.hpp"

namespace kube::authz {

namespace json = util::json;

namespace {

std::string_view labelOf(const json::Value* labels, std::string_view key, bool* found) {
    const json::Value* v = labels && labels->IsObject() ? json::member(*labels, key) : nullptr;
    *found = v != nullptr && v->IsString();
    return *found ? json::view(*v) : std::string_view();
}

bool expressionMatches(const json::Value& expr, const json::Value* labels) {
    std::string_view key = json::stringMember(expr, "key");
    std::string_view op = json::stringMember(expr, "operator");
    bool found = false;
    std::string_view value = labelOf(labels, key, &found);
    bool inValues = false;
    if (const json::Value* values = json::member(expr, "values"); values && values->IsArray()) {
        for (const json::Value& v : values->GetArray()) {
            inValues = inValues || (v.IsString() && json::view(v) == value);
        }
    }
    if (op == "In") {
        return found && inValues;
    }
    if (op == "NotIn") {
        return !found || !inValues;
    }
    if (op == "Exists") {
        return found;
    }
    if (op == "DoesNotExist") {
        return !found;
    }
    return false;  // validation refuses other operators
}

std::string_view nameOf(const json::Value& obj) {
    const json::Value* meta = json::member(obj, "metadata");
    return meta ? json::stringMember(*meta, "name") : std::string_view();
}

}  // namespace

bool labelSelectorMatches(const json::Value& selector, const json::Value* labels) {
    if (!selector.IsObject()) {
        return false;
    }
    if (const json::Value* ml = json::member(selector, "matchLabels"); ml && ml->IsObject()) {
        for (const auto& m : ml->GetObject()) {
            bool found = false;
            std::string_view v = labelOf(labels, json::view(m.name), &found);
            if (!found || !m.value.IsString() || v != json::view(m.value)) {
                return false;
            }
        }
    }
    if (const json::Value* me = json::member(selector, "matchExpressions"); me && me->IsArray()) {
        for (const json::Value& expr : me->GetArray()) {
            if (!expressionMatches(expr, labels)) {
                return false;
            }
        }
    }
    return true;
}

std::optional<json::Document> aggregatedRules(const json::Value& role,
                                              const std::vector<const json::Value*>& all) {
    const json::Value* selectors = json::at(role, {"aggregationRule", "clusterRoleSelectors"});
    if (selectors == nullptr || !selectors->IsArray()) {
        return std::nullopt;
    }
    std::vector<const json::Value*> byName = all;
    std::sort(byName.begin(), byName.end(),
              [](const json::Value* a, const json::Value* b) { return nameOf(*a) < nameOf(*b); });
    std::string_view self = nameOf(role);
    std::vector<PolicyRule> rules;
    for (const json::Value& selector : selectors->GetArray()) {
        for (const json::Value* other : byName) {
            if (nameOf(*other) == self ||
                !labelSelectorMatches(selector, json::at(*other, {"metadata", "labels"}))) {
                continue;
            }
            for (PolicyRule& r : rulesOf(*other)) {
                if (std::find(rules.begin(), rules.end(), r) == rules.end()) {
                    rules.push_back(std::move(r));
                }
            }
        }
    }
    // Semantic equality: no rules and null rules are the same.
    if (rulesOf(role) == rules) {
        return std::nullopt;
    }
    json::Document doc;
    json::Value arr = rulesJson(rules, doc.GetAllocator());
    static_cast<json::Value&>(doc) = arr.Move();
    return doc;
}

ClusterRoleAggregator::ClusterRoleAggregator(registry::Store& clusterRoles)
    : store_(clusterRoles) {}

ClusterRoleAggregator::~ClusterRoleAggregator() {
    *alive_ = false;
    if (cache_ != nullptr) {
        cache_->removeWatcher(this);
    }
}

bool ClusterRoleAggregator::start() {
    meta::Status err;
    cache_ = store_.watchCache(&err);
    if (cache_ == nullptr) {
        return false;
    }
    cache_->addWatcher(this);
    schedule();
    return true;
}

void ClusterRoleAggregator::onEvent(const storage::cacher::EventRef&) {
    schedule();
}

void ClusterRoleAggregator::onReset() {
    schedule();
}

// Many changes in one burst (the bootstrap's creates) make one pass.
void ClusterRoleAggregator::schedule() {
    if (scheduled_) {
        return;
    }
    scheduled_ = true;
    store_.loop().post([this, alive = alive_] {
        if (*alive) {
            scheduled_ = false;
            pass();
        }
    });
}

void ClusterRoleAggregator::pass() {
    passes_++;
    store_.list("", {}, [this, alive = alive_](const meta::Status* err, registry::ListPage&& page) {
        if (!*alive || err) {
            return;
        }
        std::vector<json::Document> docs(page.items.size());
        std::vector<const json::Value*> all;
        for (size_t i = 0; i < page.items.size(); ++i) {
            if (!json::parse(page.items[i].value, docs[i]) && docs[i].IsObject()) {
                all.push_back(&docs[i]);
            }
        }
        for (const json::Value* role : all) {
            std::optional<json::Document> rules = aggregatedRules(*role, all);
            if (!rules) {
                continue;
            }
            auto next = std::make_shared<json::Document>();
            next->CopyFrom(*role, next->GetAllocator());
            json::setMember(*next, "rules", json::Value(*rules, next->GetAllocator()),
                            next->GetAllocator());
            std::string name(nameOf(*role));
            writes_++;
            // Guarded by the read's resourceVersion: a conflict means a newer
            // change, whose event schedules another pass.
            store_.update("", name, next, {}, [](const meta::Status*, std::string_view) {});
        }
    });
}

}  // namespace kube::authz
