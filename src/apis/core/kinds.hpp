#pragma once

#include "registry/kind.hpp"

// The core ("" group, v1) kinds served, one file each.
namespace kube::apis::core {

registry::KindInfo bindingKind();
registry::KindInfo componentStatusKind();
registry::KindInfo configMapKind();
registry::KindInfo endpointsKind();
registry::KindInfo eventKind();
registry::KindInfo limitRangeKind();
registry::KindInfo namespaceKind();
registry::KindInfo nodeKind();
registry::KindInfo persistentVolumeClaimKind();
registry::KindInfo persistentVolumeKind();
registry::KindInfo podKind();
registry::KindInfo podTemplateKind();
registry::KindInfo replicationControllerKind();
registry::KindInfo resourceQuotaKind();
registry::KindInfo secretKind();
registry::KindInfo serviceAccountKind();
registry::KindInfo serviceKind();

}  // namespace kube::apis::core
