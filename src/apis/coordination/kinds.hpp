#pragma once

#include "registry/kind.hpp"

// The coordination.k8s.io/v1 kinds served.
namespace kube::apis::coordination {

registry::KindInfo leaseKind();

}  // namespace kube::apis::coordination
