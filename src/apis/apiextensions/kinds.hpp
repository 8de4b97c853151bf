#pragma once

#include "registry/kind.hpp"

// The apiextensions.k8s.io/v1 kinds served.
namespace kube::apis::apiextensions {

registry::KindInfo customResourceDefinitionKind();

}  // namespace kube::apis::apiextensions
