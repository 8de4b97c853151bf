#pragma once

#include "registry/kind.hpp"

// The networking.k8s.io/v1 kinds served.
namespace kube::apis::networking {

registry::KindInfo ingressClassKind();
registry::KindInfo ingressKind();
registry::KindInfo networkPolicyKind();

}  // namespace kube::apis::networking
