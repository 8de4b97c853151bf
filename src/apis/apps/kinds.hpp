#pragma once

#include "registry/kind.hpp"

// The apps/v1 kinds served, one file each.
namespace kube::apis::apps {

registry::KindInfo controllerRevisionKind();
registry::KindInfo daemonSetKind();
registry::KindInfo deploymentKind();
registry::KindInfo replicaSetKind();
registry::KindInfo statefulSetKind();

}  // namespace kube::apis::apps
