#include "admission/registered_hooks.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace kube::admission {

namespace json = util::json;

struct RegisteredHooks::Rule {
    std::vector<std::string> operations, groups, versions, resources, resourceNames;
    std::string scope = "*";
    bool exclude = false;
};

struct RegisteredHooks::Hook {
    std::string name;  // the webhook's name; "" for a policy
    std::vector<Rule> rules;
};

namespace {

std::vector<std::string> strings(const json::Value& obj, std::string_view name) {
    std::vector<std::string> out;
    const json::Value* list = json::member(obj, name);
    if (list && list->IsArray()) {
        for (const json::Value& v : list->GetArray()) {
            if (v.IsString()) {
                out.emplace_back(json::view(v));
            }
        }
    }
    return out;
}

RegisteredHooks::Rule ruleOf(const json::Value& r, bool exclude) {
    RegisteredHooks::Rule rule;
    rule.operations = strings(r, "operations");
    rule.groups = strings(r, "apiGroups");
    rule.versions = strings(r, "apiVersions");
    rule.resources = strings(r, "resources");
    rule.resourceNames = strings(r, "resourceNames");
    std::string_view scope = json::stringMember(r, "scope");
    rule.scope = scope.empty() ? "*" : std::string(scope);
    rule.exclude = exclude;
    return rule;
}

bool listed(const std::vector<std::string>& list, std::string_view value) {
    return std::any_of(list.begin(), list.end(),
                       [&](const std::string& s) { return s == "*" || s == value; });
}

// rules.Matcher: operation, group, version, resource (with "*", "x/*", "*/y" and "*/*"), scope.
bool matches(const RegisteredHooks::Rule& rule, const WriteAttributes& a) {
    if (!listed(rule.operations, a.operation) || !listed(rule.groups, a.group) ||
        !listed(rule.versions, a.version)) {
        return false;
    }
    if (rule.scope == "Cluster" && a.namespaced) {
        return false;
    }
    if (rule.scope == "Namespaced" && !a.namespaced) {
        return false;
    }
    bool resourceMatch = false;
    for (const std::string& r : rule.resources) {
        size_t slash = r.find('/');
        std::string_view res = std::string_view(r).substr(0, slash);
        std::string_view sub =
            slash == std::string::npos ? std::string_view() : std::string_view(r).substr(slash + 1);
        bool resOk = res == "*" || res == a.resource;
        bool subOk = slash == std::string::npos ? a.subresource.empty()
                                                : (sub == "*" || sub == a.subresource);
        if (resOk && subOk) {
            resourceMatch = true;
            break;
        }
    }
    if (!resourceMatch) {
        return false;
    }
    return rule.resourceNames.empty() ||
           std::find(rule.resourceNames.begin(), rule.resourceNames.end(), a.name) !=
               rule.resourceNames.end();
}

bool hookMatches(const RegisteredHooks::Hook& hook, const WriteAttributes& a) {
    bool included = false;
    for (const RegisteredHooks::Rule& rule : hook.rules) {
        if (matches(rule, a)) {
            if (rule.exclude) {
                return false;
            }
            included = true;
        }
    }
    return included;
}

std::string quoted(std::string_view s) {
    return "\"" + std::string(s) + "\"";
}

}  // namespace

RegisteredHooks::RegisteredHooks() = default;
RegisteredHooks::~RegisteredHooks() = default;

void RegisteredHooks::follow(Source source, storage::cacher::WatchCache& cache) {
    storage::cacher::Follower::JsonHandlers h;
    h.replacing = [this, source] {
        switch (source) {
            case Source::MutatingWebhooks:
                mutating_.clear();
                break;
            case Source::ValidatingWebhooks:
                validating_.clear();
                break;
            case Source::Policies:
                policies_.clear();
                break;
            case Source::PolicyBindings:
                bindings_.clear();
                break;
        }
    };
    h.put = [this, source](const json::Value& obj) { put(source, obj); };
    h.remove = [this, source](std::string_view, std::string_view name) { remove(source, name); };
    followers_.push_back(std::make_unique<storage::cacher::Follower>(cache, std::move(h)));
}

void RegisteredHooks::put(Source source, const json::Value& obj) {
    const json::Value* nameValue = json::at(obj, {"metadata", "name"});
    if (!nameValue || !nameValue->IsString()) {
        return;
    }
    std::string name(json::view(*nameValue));
    if (source == Source::PolicyBindings) {
        const json::Value* policy = json::at(obj, {"spec", "policyName"});
        bindings_[name] = policy && policy->IsString() ? std::string(json::view(*policy)) : "";
        return;
    }
    std::vector<Hook> hooks;
    if (source == Source::Policies) {
        Hook hook;
        const json::Value* match = json::at(obj, {"spec", "matchConstraints"});
        if (match && match->IsObject()) {
            for (const auto& [list, exclude] :
                 {std::pair{"resourceRules", false}, std::pair{"excludeResourceRules", true}}) {
                const json::Value* rules = json::member(*match, list);
                if (rules && rules->IsArray()) {
                    for (const json::Value& r : rules->GetArray()) {
                        hook.rules.push_back(ruleOf(r, exclude));
                    }
                }
            }
        }
        hooks.push_back(std::move(hook));
        policies_[name] = std::move(hooks);
        return;
    }
    const json::Value* webhooks = json::member(obj, "webhooks");
    if (webhooks && webhooks->IsArray()) {
        for (const json::Value& w : webhooks->GetArray()) {
            Hook hook;
            hook.name = std::string(json::stringMember(w, "name"));
            const json::Value* rules = json::member(w, "rules");
            if (rules && rules->IsArray()) {
                for (const json::Value& r : rules->GetArray()) {
                    hook.rules.push_back(ruleOf(r, false));
                }
            }
            hooks.push_back(std::move(hook));
        }
    }
    (source == Source::MutatingWebhooks ? mutating_ : validating_)[name] = std::move(hooks);
}

void RegisteredHooks::remove(Source source, std::string_view name) {
    switch (source) {
        case Source::MutatingWebhooks:
            if (auto it = mutating_.find(name); it != mutating_.end()) {
                mutating_.erase(it);
            }
            break;
        case Source::ValidatingWebhooks:
            if (auto it = validating_.find(name); it != validating_.end()) {
                validating_.erase(it);
            }
            break;
        case Source::Policies:
            if (auto it = policies_.find(name); it != policies_.end()) {
                policies_.erase(it);
            }
            break;
        case Source::PolicyBindings:
            if (auto it = bindings_.find(name); it != bindings_.end()) {
                bindings_.erase(it);
            }
            break;
    }
}

std::vector<std::string> RegisteredHooks::warnings(const WriteAttributes& a) const {
    std::vector<std::string> out;
    if (a.group == "admissionregistration.k8s.io") {
        return out;
    }
    for (const auto& [configs, kind] :
         {std::pair{&mutating_, "MutatingWebhookConfiguration"},
          std::pair{&validating_, "ValidatingWebhookConfiguration"}}) {
        for (const auto& [config, hooks] : *configs) {
            for (const Hook& hook : hooks) {
                if (hookMatches(hook, a)) {
                    out.push_back(std::string(kind) + " " + quoted(config) + ": webhook " +
                                  quoted(hook.name) +
                                  " was not called: this server does not call admission "
                                  "webhooks yet");
                }
            }
        }
    }
    if (bindings_.empty()) {
        return out;
    }
    for (const auto& [binding, policy] : bindings_) {
        auto it = policies_.find(policy);
        if (it == policies_.end()) {
            continue;
        }
        for (const Hook& hook : it->second) {
            if (hookMatches(hook, a)) {
                out.push_back("ValidatingAdmissionPolicy " + quoted(policy) + " (binding " +
                              quoted(binding) +
                              ") was not evaluated: this server does not evaluate admission "
                              "policies yet");
            }
        }
    }
    return out;
}

}  // namespace kube::admission
