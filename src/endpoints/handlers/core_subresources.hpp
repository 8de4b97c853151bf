#pragma once

#include "endpoints/handlers/scope.hpp"

// The core/v1 subresources served by storages of their own.
namespace kube::endpoints {

// Mirrors kube's rest.Connecter storages (pods/log, exec, attach,
// portforward, proxy; nodes/proxy; services/proxy), which this server has no
// kubelet or backend to connect to: the request is resolved as kube resolves
// it (the pod, its node and the node's address; the service, its port and
// endpoints), answering kube's error where kube's resolution fails, and where
// kube would then dial, the failure of that dial as kube reports it (500, or
// 503 for a proxy), saying this server makes no such connection. `nodes` and
// `endpoints` are the core/v1 stores of those resources.
void connect(Scope s, registry::Store& nodes, registry::Store& endpoints);

// Mirrors EphemeralContainersREST (pods/<name>/ephemeralcontainers): GET
// reads the pod; PUT and PATCH change only its spec.ephemeralContainers,
// which may be added to but never changed or removed, checked as kube's
// ValidatePodEphemeralContainersUpdate checks them.
void serveEphemeralContainers(Scope s);

// Mirrors FinalizeREST (PUT namespaces/<name>/finalize): the namespace as
// sent, its status kept, with its spec.finalizers checked as kube's
// ValidateNamespaceFinalizeUpdate checks them.
void finalizeNamespace(Scope s);

}  // namespace kube::endpoints
