#pragma once

#include <string_view>

#include "apis/core/field_errors.hpp"

// Mirrors pkg/apis/flowcontrol/validation: the spec checks of FlowSchema and
// PriorityLevelConfiguration (the metadata checks are the store's).
namespace kube::apis::flowcontrol {

namespace field = core::field;

// `version` is the version the request was made at: v1 allows a Limited level
// nominalConcurrencyShares of 0, v1beta3 does not.
field::Causes validateFlowSchema(const util::json::Value& obj);
field::Causes validatePriorityLevelConfiguration(const util::json::Value& obj,
                                                 std::string_view version);
// Mirrors ValidateNonResourceURLPath; "" when `path` is valid.
std::string nonResourceURLPathError(std::string_view path);

}  // namespace kube::apis::flowcontrol
