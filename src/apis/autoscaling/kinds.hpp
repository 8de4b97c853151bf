#pragma once

#include "registry/kind.hpp"

// The autoscaling kinds served: HorizontalPodAutoscalers, stored at
// autoscaling/v2.
namespace kube::apis::autoscaling {

registry::KindInfo horizontalPodAutoscalerV2Kind();

}  // namespace kube::apis::autoscaling
