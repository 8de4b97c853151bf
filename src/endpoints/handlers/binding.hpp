#pragma once

#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

// Mirrors BindingREST.Create (pkg/registry/core/pod/storage): POST
// pods/<name>/binding, or POST bindings naming the pod in the body. The
// Binding is checked, then the pod is updated in storage as kube's
// GuaranteedUpdate does it, past the pod's strategy (no pod validation,
// admission or managedFields): spec.nodeName, the Binding's annotations and
// the PodScheduled condition. Answers 201 with a Success Status. `pods` is
// the pods store, whichever resource the scope's is.
void createBinding(Scope s, registry::Store& pods);

}  // namespace kube::endpoints
