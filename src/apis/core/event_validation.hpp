#pragma once

#include <string_view>

#include "apis/core/field_errors.hpp"
#include "util/json.hpp"

// The validation core/v1 and events.k8s.io/v1 events share (both are core
// Events in storage, as kube validates them).
namespace kube::apis::core {

// Mirrors legacyValidateEvent, which every event passes, on an event in the
// stored (core/v1) shape; `reportingControllerPath` names the reporting
// controller as the request's version does ("reportingComponent" in core/v1).
field::Causes legacyValidateEvent(const util::json::Value& obj,
                                  std::string_view reportingControllerPath);

}  // namespace kube::apis::core
