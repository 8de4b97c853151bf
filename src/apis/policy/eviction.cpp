#include "apis/policy/eviction.hpp"

#include "registry/table_cells.hpp"
#include "util/label_selector.hpp"

namespace kube::apis::policy {

namespace {

namespace cells = registry::cells;

registry::KindInfo makeEvictionKind() {
    registry::KindInfo k;
    k.group = "policy";
    k.version = "v1";
    k.kind = "Eviction";
    k.resource = "evictions";
    k.singular = "eviction";
    k.verbs = {"create"};
    k.storage = registry::KindStorage::Review;
    k.columns = cells::defaultColumns();
    return k;
}

int64_t statusCount(const json::Value& budget, std::string_view field) {
    return cells::integer(budget, {"status", field});
}

// pdbhelper.UpdateDisruptionAllowedCondition with meta.SetStatusCondition:
// the DisruptionAllowed condition follows disruptionsAllowed; its transition
// time moves only when its status changes.
void updateDisruptionAllowedCondition(json::Value& status, int64_t observedGeneration,
                                      std::string_view now, json::Allocator& a) {
    bool allowed = cells::integer(status, {"disruptionsAllowed"}) > 0;
    std::string_view want = allowed ? "True" : "False";
    json::Value* conditions = json::member(status, "conditions");
    if (!conditions || !conditions->IsArray()) {
        json::setMember(status, "conditions", json::Value(rapidjson::kArrayType), a);
        conditions = json::member(status, "conditions");
    }
    json::Value* found = nullptr;
    for (json::Value& c : conditions->GetArray()) {
        if (c.IsObject() && cells::text(c, {"type"}) == "DisruptionAllowed") {
            found = &c;
        }
    }
    std::string since(now);
    if (found && cells::text(*found, {"status"}) == want) {
        since = std::string(cells::text(*found, {"lastTransitionTime"}));
    }
    json::Value c(rapidjson::kObjectType);
    c.AddMember("type", "DisruptionAllowed", a);
    c.AddMember("status", json::stringValue(want, a), a);
    c.AddMember("observedGeneration", json::Value(observedGeneration), a);
    c.AddMember("lastTransitionTime", json::stringValue(since, a), a);
    c.AddMember("reason", json::stringValue(allowed ? "SufficientPods" : "InsufficientPods", a), a);
    std::string message(found ? cells::text(*found, {"message"}) : "");
    c.AddMember("message", json::stringValue(message, a), a);
    if (found) {
        *found = std::move(c);
    } else {
        conditions->PushBack(std::move(c), a);
    }
}

// What metav1.LabelSelectorAsSelector refuses that the selector syntax
// would read otherwise: an unknown operator, In or NotIn without values,
// Exists or DoesNotExist with some.
bool expressionsValid(const json::Value* selector) {
    const json::Value* exprs = selector ? json::member(*selector, "matchExpressions") : nullptr;
    if (!exprs || !exprs->IsArray()) {
        return true;
    }
    for (const json::Value& e : exprs->GetArray()) {
        if (!e.IsObject()) {
            return false;
        }
        std::string_view op = json::stringMember(e, "operator");
        const json::Value* values = json::member(e, "values");
        bool some = values && values->IsArray() && !values->Empty();
        if (op == "In" || op == "NotIn") {
            if (!some) {
                return false;
            }
        } else if (op == "Exists" || op == "DoesNotExist") {
            if (some) {
                return false;
            }
        } else {
            return false;
        }
    }
    return true;
}

}  // namespace

const registry::KindInfo& evictionRequestKind() {
    static const registry::KindInfo kind = makeEvictionKind();
    return kind;
}

registry::SubresourceInfo evictionSubresource() {
    registry::SubresourceInfo s{"eviction", "policy", "v1", "Eviction", {"create"}};
    s.storage = registry::SubresourceStorage::Eviction;
    s.responseKind = &evictionRequestKind();
    return s;
}

bool canIgnoreBudgets(const json::Value& pod) {
    std::string_view phase = cells::text(pod, {"status", "phase"});
    return phase == "Succeeded" || phase == "Failed" || phase == "Pending" ||
           !cells::text(pod, {"metadata", "deletionTimestamp"}).empty();
}

bool shouldEnforceResourceVersion(const json::Value& pod) {
    std::string_view phase = cells::text(pod, {"status", "phase"});
    return phase != "Succeeded" && phase != "Failed" &&
           cells::text(pod, {"metadata", "deletionTimestamp"}).empty();
}

bool podReady(const json::Value& pod) {
    const json::Value* conditions = json::at(pod, {"status", "conditions"});
    if (!conditions || !conditions->IsArray()) {
        return false;
    }
    for (const json::Value& c : conditions->GetArray()) {
        if (c.IsObject() && cells::text(c, {"type"}) == "Ready") {
            return cells::text(c, {"status"}) == "True";
        }
    }
    return false;
}

std::vector<const json::Value*> budgetsOf(const json::Value& pod,
                                          const std::vector<const json::Value*>& budgets) {
    std::vector<const json::Value*> out;
    std::string_view ns = cells::text(pod, {"metadata", "namespace"});
    const json::Value* labels = json::at(pod, {"metadata", "labels"});
    for (const json::Value* budget : budgets) {
        if (cells::text(*budget, {"metadata", "namespace"}) != ns) {
            continue;
        }
        // An invalid selector matches no pod; so does an empty or absent one.
        const json::Value* sel = json::at(*budget, {"spec", "selector"});
        if (!expressionsValid(sel)) {
            continue;
        }
        std::string text = cells::labelSelectorString(sel);
        std::string error;
        std::optional<util::LabelSelector> selector = util::LabelSelector::parse(text, &error);
        if (!selector || selector->empty() || !selector->matches(labels)) {
            continue;
        }
        out.push_back(budget);
    }
    return out;
}

meta::Status moreThanOneBudget() {
    meta::Status s;
    s.code = 500;
    s.message =
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does "
        "not support.";
    return s;
}

meta::Status budgetBeingProcessed(std::string_view budget) {
    meta::Status s = meta::Status::tooManyRequests(
        "Cannot evict pod as it would violate the pod's disruption budget.", 10);
    s.details->causes.push_back({"DisruptionBudget",
                                 "The disruption budget " + std::string(budget) +
                                     " is still being processed by the server.",
                                 ""});
    return s;
}

BudgetDecision decideBudget(const json::Value& pod, const json::Value& budget) {
    if (podReady(pod)) {
        return BudgetDecision::Decrement;
    }
    if (cells::text(budget, {"spec", "unhealthyPodEvictionPolicy"}) == "AlwaysAllow") {
        return BudgetDecision::DeleteUnhealthy;
    }
    int64_t desired = statusCount(budget, "desiredHealthy");
    if (statusCount(budget, "currentHealthy") >= desired && desired > 0) {
        return BudgetDecision::DeleteUnhealthy;
    }
    return BudgetDecision::Decrement;
}

std::optional<meta::Status> checkAndDecrement(json::Value& budget, std::string_view podName,
                                              std::string_view now, bool dryRun,
                                              json::Allocator& a) {
    std::string name(cells::text(budget, {"metadata", "name"}));
    int64_t observed = statusCount(budget, "observedGeneration");
    if (observed < cells::integer(budget, {"metadata", "generation"})) {
        return budgetBeingProcessed(name);
    }
    int64_t allowed = statusCount(budget, "disruptionsAllowed");
    const meta::GroupResource resource{"policy", "poddisruptionbudget"};
    if (allowed < 0) {
        return meta::Status::forbidden(resource, name, "pdb disruptions allowed is negative");
    }
    const json::Value* disrupted = json::at(budget, {"status", "disruptedPods"});
    if (disrupted && disrupted->IsObject() && disrupted->MemberCount() > kMaxDisruptedPods) {
        return meta::Status::forbidden(
            resource, name,
            "DisruptedPods map too big - too many evictions not confirmed by PDB controller");
    }
    if (allowed == 0) {
        meta::Status s = meta::Status::tooManyRequests(
            "Cannot evict pod as it would violate the pod's disruption budget.", 0);
        s.details->causes.push_back(
            {"DisruptionBudget",
             "The disruption budget " + name + " needs " +
                 std::to_string(statusCount(budget, "desiredHealthy")) + " healthy pods and has " +
                 std::to_string(statusCount(budget, "currentHealthy")) + " currently",
             ""});
        return s;
    }
    json::Value& status = json::objectMember(budget, "status", a);
    json::setMember(status, "disruptionsAllowed", json::Value(allowed - 1), a);
    if (allowed - 1 == 0) {
        updateDisruptionAllowedCondition(status, observed, now, a);
    }
    if (dryRun) {
        return std::nullopt;
    }
    json::Value& pods = json::objectMember(status, "disruptedPods", a);
    json::setMember(pods, podName, json::stringValue(now, a), a);
    return std::nullopt;
}

}  // namespace kube::apis::policy
