#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apis/meta/status.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"

// What pods/eviction decides; mirrors pkg/registry/core/pod/storage/eviction.go
// (EvictionREST) without its I/O, which endpoints/handlers/eviction does.
namespace kube::apis::policy {

namespace json = util::json;

// The policy/v1 Eviction a request body is read as (never stored, not in the
// scheme); a policy/v1beta1 body is read as the same.
const registry::KindInfo& evictionRequestKind();
// pods/eviction: create, answered with a policy/v1 Eviction in discovery.
registry::SubresourceInfo evictionSubresource();

// canIgnorePDB: a pod that is Pending, Succeeded or Failed, or already being
// deleted, is deleted without consulting any budget.
bool canIgnoreBudgets(const json::Value& pod);
// shouldEnforceResourceVersion: the delete of a pod that is neither terminal
// nor terminating is made at the resourceVersion read, so that the pod cannot
// have become ready (and counted by a budget) in between.
bool shouldEnforceResourceVersion(const json::Value& pod);
// podutil.IsPodReady: the Ready condition is True.
bool podReady(const json::Value& pod);

// getPodDisruptionBudgets: the budgets of `budgets` (the pod's namespace's)
// whose selector is valid, not empty, and matches the pod's labels.
std::vector<const json::Value*> budgetsOf(const json::Value& pod,
                                          const std::vector<const json::Value*>& budgets);

// The answer to a pod that more than one budget covers (a 500 without a reason).
meta::Status moreThanOneBudget();
// The 429 that tells clients to try again later (createTooManyRequestsError).
meta::Status budgetBeingProcessed(std::string_view budget);

// What the eviction does about one budget.
enum class BudgetDecision {
    // Decrement it (checkAndDecrement), then delete the pod.
    Decrement,
    // The pod is not ready and does not count towards the budget's healthy
    // pods: delete it at the resourceVersion read, leaving the budget alone.
    DeleteUnhealthy,
};
// Whether an unready pod may go without touching the budget: AlwaysAllow, or
// (IfHealthyBudget, the default) the budget is met without it.
BudgetDecision decideBudget(const json::Value& pod, const json::Value& budget);

// checkAndDecrement on a budget as stored: either the 429/403 that refuses
// the eviction, or nullopt with `budget` changed as the status update writes
// it (disruptionsAllowed - 1, the DisruptionAllowed condition when that
// reaches 0, and unless `dryRun` the pod in disruptedPods at `now`).
std::optional<meta::Status> checkAndDecrement(json::Value& budget, std::string_view podName,
                                              std::string_view now, bool dryRun,
                                              json::Allocator& a);

// The most disruptedPods entries a budget may hold before evictions are
// refused (MaxDisruptedPodSize).
inline constexpr size_t kMaxDisruptedPods = 2000;

}  // namespace kube::apis::policy
