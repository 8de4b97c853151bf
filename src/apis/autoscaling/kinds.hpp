#pragma once

#include "registry/kind.hpp"

// The autoscaling kinds served: HorizontalPodAutoscalers, stored at
// autoscaling/v2.
namespace kube::apis::autoscaling {

registry::KindInfo horizontalPodAutoscalerV2Kind();
// autoscaling/v1 horizontalpodautoscalers: the same objects in v1's shape,
// what v1 cannot say kept in annotations.
registry::KindInfo horizontalPodAutoscalerV1Kind();

}  // namespace kube::apis::autoscaling
