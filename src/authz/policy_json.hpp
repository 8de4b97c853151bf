#pragma once

#include <vector>

#include "authz/rule_resolver.hpp"
#include "util/json.hpp"

// rbac/v1 PolicyRule lists between their JSON form and authz::PolicyRule.
namespace kube::authz {

// The `rules` of a Role or ClusterRole (null or absent: none).
std::vector<PolicyRule> rulesOf(const util::json::Value& role);

// `rules` as rbac/v1 JSON, fields omitted when empty as kube's encoder does.
util::json::Value rulesJson(const std::vector<PolicyRule>& rules, util::json::Allocator& a);

}  // namespace kube::authz
