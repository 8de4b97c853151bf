#pragma once

#include "registry/store.hpp"

namespace kube::endpoints {

// Gives `store` the field managers of its kind (registry/apply), built from
// the kind's schema message: one for the resource, which nobody comes to own
// status through when status is a subresource, and one for the status
// subresource, which owns nothing but metadata and status. A kind without a
// schema message gets none. Call at start-up, after prepareProtobufSchemas.
void installFieldManagers(registry::Store& store);

}  // namespace kube::endpoints
