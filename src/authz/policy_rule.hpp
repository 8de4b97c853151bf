#pragma once

#include <string_view>
#include <vector>

#include "authz/authorizer.hpp"
#include "authz/rule_resolver.hpp"
#include "util/json.hpp"

// How one RBAC rule is matched against a request; mirrors rbac.RuleAllows and
// the helpers of pkg/apis/rbac/v1/evaluation_helpers.go.
namespace kube::authz {

// A verb of the rule is "*" or the request's.
bool verbMatches(const PolicyRule& rule, std::string_view verb);
// An apiGroup of the rule is "*" or the request's.
bool apiGroupMatches(const PolicyRule& rule, std::string_view group);
// A resource of the rule is "*", the request's resource (with its
// subresource: "pods/log"), or "*/<subresource>".
bool resourceMatches(const PolicyRule& rule, std::string_view combinedResource,
                     std::string_view subresource);
// The rule names no objects, or names the request's (a request without a
// name, a list or a create, matches only a rule without resourceNames).
bool resourceNameMatches(const PolicyRule& rule, std::string_view name);
// A URL of the rule is "*", the request's path, or a prefix of it ending in "*".
bool nonResourceURLMatches(const PolicyRule& rule, std::string_view path);

// The rule allows the request.
bool ruleAllows(const Attributes& attrs, const PolicyRule& rule);

// The rules of a Role or ClusterRole object (its "rules" array); members
// that are not arrays of strings read as empty.
std::vector<PolicyRule> policyRulesOf(const util::json::Value& role);

}  // namespace kube::authz
