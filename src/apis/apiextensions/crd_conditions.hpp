#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "util/json.hpp"

// A CustomResourceDefinition's status conditions and its cleanup finalizer,
// read and written on the JSON object; mirrors apiextensions' apihelpers
// (FindCRDCondition, SetCRDCondition, IsCRDConditionTrue, CRDHasFinalizer,
// CRDRemoveFinalizer).
namespace kube::apis::apiextensions {

// The finalizer a deleted CRD keeps until its custom resources are gone.
inline constexpr std::string_view kCustomResourceCleanupFinalizer =
    "customresourcecleanup.apiextensions.k8s.io";

struct CrdCondition {
    std::string type;    // "NamesAccepted", "Established", "Terminating"
    std::string status;  // "True", "False", "Unknown"
    std::string reason;
    std::string message;
};

// The condition of `type` in status.conditions; null when there is none.
const util::json::Value* findCondition(const util::json::Value& crd, std::string_view type);
// Its status is "True".
bool isConditionTrue(const util::json::Value& crd, std::string_view type);
// The condition's status, reason and message are `c`'s (kube's
// IsCRDConditionEquivalent, which ignores the transition time).
bool conditionEquivalent(const util::json::Value& crd, const CrdCondition& c);

// Sets condition `c` (appended when new); lastTransitionTime becomes `now`
// when the status changes or the condition is new.
void setCondition(util::json::Value& crd, const CrdCondition& c,
                  std::chrono::system_clock::time_point now, util::json::Allocator& a);

bool hasFinalizer(const util::json::Value& crd, std::string_view finalizer);
void addFinalizer(util::json::Value& crd, std::string_view finalizer, util::json::Allocator& a);
void removeFinalizer(util::json::Value& crd, std::string_view finalizer);

}  // namespace kube::apis::apiextensions
