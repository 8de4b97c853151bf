#pragma once

#include "registry/kind.hpp"

// The node.k8s.io/v1 kinds served, one file each.
namespace kube::apis::node {

registry::KindInfo runtimeClassKind();

}  // namespace kube::apis::node
