#pragma once

#include "registry/kind.hpp"

// The discovery.k8s.io/v1 kinds served.
namespace kube::apis::discovery {

registry::KindInfo endpointSliceKind();

}  // namespace kube::apis::discovery
