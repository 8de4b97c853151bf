#pragma once

#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

// Mirrors EvictionREST.Create (pkg/registry/core/pod/storage/eviction.go):
// POST pods/<name>/eviction with a policy/v1 (or v1beta1) Eviction. A pod
// that is not running, or already terminating, is deleted at once; otherwise
// the one PodDisruptionBudget covering it (none: deleted; several: 500) must
// allow a disruption, which is taken from its status (disruptionsAllowed - 1,
// the pod in disruptedPods) in one compare-and-swap status update before the
// pod is deleted with the Eviction's deleteOptions; a budget that forbids
// answers 429 TooManyRequests with a DisruptionBudget cause. Answers 201 with
// a Success Status. `pods` and `budgets` are the stores of pods and
// policy/v1 poddisruptionbudgets.
void createEviction(Scope s, registry::Store& pods, registry::Store& budgets);

}  // namespace kube::endpoints
