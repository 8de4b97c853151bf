#pragma once

#include "registry/kind.hpp"

// The certificates.k8s.io kinds served.
namespace kube::apis::certificates {

// certificatesigningrequests, with their approval and status subresources.
registry::KindInfo certificateSigningRequestKind();

}  // namespace kube::apis::certificates
