#pragma once

#include "registry/kind.hpp"

// The policy/v1 kinds served.
namespace kube::apis::policy {

registry::KindInfo podDisruptionBudgetKind();

}  // namespace kube::apis::policy
