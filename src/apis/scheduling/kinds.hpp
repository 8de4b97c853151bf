#pragma once

#include "registry/kind.hpp"

// The scheduling.k8s.io/v1 kinds served.
namespace kube::apis::scheduling {

registry::KindInfo priorityClassKind();

}  // namespace kube::apis::scheduling
