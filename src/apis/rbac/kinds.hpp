#pragma once

#include "registry/kind.hpp"

// The rbac.authorization.k8s.io/v1 kinds served, one file each.
namespace kube::apis::rbac {

registry::KindInfo clusterRoleBindingKind();
registry::KindInfo clusterRoleKind();
registry::KindInfo roleBindingKind();
registry::KindInfo roleKind();

}  // namespace kube::apis::rbac
