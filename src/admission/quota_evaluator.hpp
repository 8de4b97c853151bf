#pragma once

#include <optional>
#include <string>
#include <vector>

#include "admission/interface.hpp"
#include "admission/resources.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"

// What a ResourceQuota counts for an object, and the admission check of one
// write against the quotas of its namespace; mirrors kube's
// pkg/quota/v1/evaluator/core (pods, services, persistentvolumeclaims and
// the object-count evaluator every other kind gets) and the check of
// plugin/pkg/admission/resourcequota (checkRequest). Pure functions over
// parsed objects: the plugin and the quota controller read the stores.
namespace kube::admission::quota {

using resources::List;

// "count/<resource>" for the core group, "count/<resource>.<group>" otherwise
// (generic.ObjectCountQuotaResourceNameFor).
std::string objectCountName(const registry::KindInfo& kind);

// The usage of one object (the evaluator's Usage): its object count, the
// legacy count of core kinds (pods, services, configmaps, secrets,
// persistentvolumeclaims, resourcequotas, replicationcontrollers), a pod's
// compute requests and limits (none once Succeeded or Failed), a service's
// load balancers and node ports, a claim's storage request (also per
// storage class).
List usage(const registry::KindInfo& kind, const util::json::Value& obj);

// Of `names` (a quota's hard resources), those the kind's evaluator tracks
// (MatchingResources).
std::vector<std::string> matchingResources(const registry::KindInfo& kind,
                                           const std::vector<std::string>& names);

// Whether the quota's scopes (spec.scopes and spec.scopeSelector) all match
// the object: pods know Terminating, NotTerminating, BestEffort,
// NotBestEffort and PriorityClass; other kinds match only unscoped quotas.
bool matchesScopes(const registry::KindInfo& kind, const util::json::Value& quota,
                   const util::json::Value& obj);

// The evaluator's Constraints: a pod under a quota of cpu or memory must set
// them on every container ("must specify limits.cpu for: c; ..."); null
// when the object meets them.
std::optional<std::string> constraints(const registry::KindInfo& kind,
                                       const std::vector<std::string>& restricted,
                                       const util::json::Value& obj);

// Whether a write of `kind` is evaluated at all (the evaluator's Handles):
// creates of every kind; updates of services and claims (a claim's storage
// may grow), never of pods, whose resources are immutable.
bool evaluates(const registry::KindInfo& kind, Operation op, std::string_view subresource);

// One ResourceQuota as admission sees it: status.hard and status.used (what
// the quota controller last computed, or admission last charged).
struct Quota {
    std::string name;
    const util::json::Value* object = nullptr;  // the stored quota
    List hard;
    List used;
    bool changed = false;  // `used` was charged by this request
};

// The quotas' names of resources, sorted: "a,b" (prettyPrintResourceNames).
std::string resourceNames(const List& list);
// "a=1,b=2" (prettyPrint).
std::string prettyPrint(const List& list);

// Mirrors checkRequest: the write of `obj` (replacing `old` on update)
// against `quotas`. Returns the refusal's message (admission wraps it in
// 403 Forbidden), or null after charging every matching quota's `used`
// (marked `changed`).
std::optional<std::string> check(const registry::KindInfo& kind, const util::json::Value& obj,
                                 const util::json::Value* old, std::vector<Quota>& quotas);

// Quota arithmetic (quota.Add, SubtractWithNonNegativeResult).
util::Quantity add(const util::Quantity& a, const util::Quantity& b);
List addLists(const List& a, const List& b);

}  // namespace kube::admission::quota
