#pragma once

#include "registry/kind.hpp"

// The networking.k8s.io/v1 kinds served.
namespace kube::apis::networking {

registry::KindInfo ingressClassKind();
registry::KindInfo ingressKind();
registry::KindInfo ipAddressKind();
registry::KindInfo networkPolicyKind();
registry::KindInfo serviceCIDRKind();

}  // namespace kube::apis::networking
