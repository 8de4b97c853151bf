#pragma once

#include "registry/kind.hpp"

// The events.k8s.io kinds served.
namespace kube::apis::events {

// events.k8s.io/v1 events: core/v1 Events in storage, served in the events
// API's shape.
registry::KindInfo eventKind();

}  // namespace kube::apis::events
