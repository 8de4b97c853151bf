#pragma once

#include "registry/kind.hpp"

// The storage.k8s.io/v1 kinds served, one file each, and the checks they share.
namespace kube::apis::storage {

registry::KindInfo csiDriverKind();
registry::KindInfo csiNodeKind();
registry::KindInfo csiStorageCapacityKind();
registry::KindInfo storageClassKind();
registry::KindInfo volumeAttachmentKind();

}  // namespace kube::apis::storage
