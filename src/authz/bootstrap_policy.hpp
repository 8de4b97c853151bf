#pragma once

#include <memory>
#include <string>
#include <vector>

#include "util/json.hpp"

// The RBAC objects kube-apiserver creates at first start; mirrors
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy (its data lives in
// bootstrap_policy_data.cpp).
namespace kube::authz {

inline constexpr const char* kAutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate";
inline constexpr const char* kBootstrappingLabel = "kubernetes.io/bootstrapping";

// One object of the policy, as it is created: apiVersion, kind, metadata
// (name, namespace, labels, annotations), then rules and aggregationRule, or
// roleRef and subjects.
struct BootstrapObject {
    std::string resource;    // "clusterroles", "clusterrolebindings", "roles", "rolebindings"
    std::string namespace_;  // "" for the cluster kinds
    std::string name;
    std::shared_ptr<const util::json::Document> object;
};

// Every object, cluster roles first, then cluster role bindings, roles and
// role bindings (the order kube's PostStartHook reconciles them in). Parsed
// once; the same vector on every call.
const std::vector<BootstrapObject>& bootstrapPolicy();

}  // namespace kube::authz
