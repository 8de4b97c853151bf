#pragma once

#include <string>
#include <vector>

#include "authz/rule_resolver.hpp"

// Rule comparison for escalation checks and reconciliation; mirrors rbac
// validation's policy_comparator.go (Covers) and CompactRules, and
// rbacv1helpers.CompactString.
namespace kube::authz {

// The rules of `servant`, broken down to one verb, group, resource and
// resource name (or one verb and URL) each, that no rule of `owner` allows;
// empty when `owner` covers them all. Mirrors validation.Covers.
std::vector<PolicyRule> uncoveredRules(const std::vector<PolicyRule>& owner,
                                       const std::vector<PolicyRule>& servant);

inline bool covers(const std::vector<PolicyRule>& owner, const std::vector<PolicyRule>& servant) {
    return uncoveredRules(owner, servant).empty();
}

// Merges rules naming one group and one resource (and at most one resource
// name) that differ only in verbs; mirrors validation.CompactRules.
std::vector<PolicyRule> compactRules(const std::vector<PolicyRule>& rules);

// `{APIGroups:["apps"], Resources:["deployments"], Verbs:["delete"]}`, the form
// escalation errors list missing rules in; mirrors rbacv1helpers.CompactString.
std::string compactString(const PolicyRule& rule);

bool operator==(const PolicyRule& a, const PolicyRule& b);

}  // namespace kube::authz
