#pragma once

#include <string>
#include <vector>

#include "apis/core/field_errors.hpp"
#include "registry/kind.hpp"

// What the four RBAC kinds share: rule and binding validation, binding
// defaults, and their table columns.
namespace kube::apis::rbac {

namespace json = util::json;
namespace field = core::field;

// Mirrors ValidatePolicyRule for each of `rules` (a Role's when `namespaced`).
void validateRules(const json::Value& obj, bool namespaced, field::Causes& out);

// SetDefaults_RoleBinding / SetDefaults_ClusterRoleBinding / SetDefaults_Subject.
void defaultBinding(json::Value& obj, json::Allocator& a);

// Mirrors ValidateRoleBinding / ValidateClusterRoleBinding: roleRef and subjects.
void validateBinding(const json::Value& obj, bool namespaced, field::Causes& out);

// RoleBinding / ClusterRoleBinding columns (Name, Role, Age, then -o wide
// Users, Groups, ServiceAccounts).
std::vector<registry::TableColumn> bindingColumns(std::string_view kind);

}  // namespace kube::apis::rbac
