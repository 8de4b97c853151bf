#pragma once

#include "registry/kind.hpp"

// The batch/v1 kinds served, one file each.
namespace kube::apis::batch {

registry::KindInfo cronJobKind();
registry::KindInfo jobKind();

}  // namespace kube::apis::batch
