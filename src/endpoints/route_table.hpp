#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "endpoints/request_info.hpp"
#include "registry/scheme.hpp"

namespace kube::endpoints {

// Which handlers answer a route; mirrors the rest.Storage interfaces kube's
// APIInstaller finds behind a path.
enum class Handlers {
    Object,        // the generic handlers on the kind's store (the status subresource too)
    Review,        // a review: answered on create, never stored
    Scale,         // the scale subresource's handlers
    TokenRequest,  // serviceaccounts/token
    Binding,       // pods/binding and bindings: the pod's node
    Eviction,      // pods/eviction: the pod deleted as its disruption budget allows
    // pods/ephemeralcontainers: the pod, of which only spec.ephemeralContainers changes
    EphemeralContainers,
    Finalize,  // namespaces/finalize: the namespace, of which only spec.finalizers changes
    // A kubelet's or a backend's stream (pods/log, exec, attach, portforward,
    // and the proxy subresources): kube's rest.Connecter storages
    Connect,
    ComponentStatus,  // componentstatuses: the server's checks, read-only
};

// One resource or subresource served: its handlers and the verbs they
// serve, which are the verbs the kind declares that its handlers implement.
struct ResourceRoute {
    const registry::SubresourceInfo* subresource = nullptr;  // null: the resource itself
    Handlers handlers = Handlers::Object;
    // What the requests read and write: the kind, or the subresource's own (Scale).
    const registry::KindInfo* responseKind = nullptr;
    // In the order the kind lists them; discovery and OpenAPI show these.
    std::vector<std::string> verbs;

    bool serves(std::string_view verb) const;
};

// The routes of one kind: APIInstaller.registerResourceHandlers' output.
struct KindRoutes {
    // Shared with the scheme: a kind removed while a request holds it stays alive.
    std::shared_ptr<const registry::KindInfo> kind;
    ResourceRoute resource;
    std::vector<ResourceRoute> subresources;  // in the kind's order

    // The route of subresource `name`; null when the kind serves none.
    const ResourceRoute* subresource(std::string_view name) const;
};

// How a resource request meets the table.
struct RouteMatch {
    enum class Outcome {
        NotFound,          // no route has the request's path (404)
        MethodNotAllowed,  // the path is served, not with the request's verb (405)
        Found,
    };
    Outcome outcome = Outcome::NotFound;
    const KindRoutes* kind = nullptr;      // unless NotFound
    const ResourceRoute* route = nullptr;  // unless NotFound
    // The namespace the request is scoped to: RequestInfo's, except for
    // /api/v1/namespaces/<name>, where it read the object's own name as one.
    std::string namespace_;
};

// Every route of a scheme's kinds, built once per scheme generation and
// read by dispatch, discovery and the OpenAPI documents; mirrors the routes
// kube's APIInstaller registers for each storage.
class RouteTable {
  public:
    explicit RouteTable(const registry::Scheme& scheme);

    // The scheme generation the table was built from.
    uint64_t generation() const { return generation_; }

    // The groups in priority order ("" first when present).
    const std::vector<registry::GroupInfo>& groups() const { return groups_; }
    bool hasGroupVersion(std::string_view group, std::string_view version) const;
    // The kinds of one group-version, in the scheme's order.
    std::vector<const KindRoutes*> kinds(std::string_view group, std::string_view version) const;
    const KindRoutes* find(std::string_view group, std::string_view version,
                           std::string_view resource) const;

    // The route of a resource request (info.isResourceRequest): the kind
    // and (sub)resource its path names, checked against the path's shape
    // (a namespaced item without a namespace, a cluster-scoped resource
    // under one: not found) and the verb (one its handlers do not serve,
    // create on an item or without the namespace of a namespaced kind, an
    // item verb on a collection: not allowed).
    RouteMatch match(const RequestInfo& info) const;

  private:
    uint64_t generation_ = 0;
    std::vector<registry::GroupInfo> groups_;
    std::vector<KindRoutes> kinds_;
    // Index into kinds_ by "<group>/<version>/<resource>".
    std::map<std::string, size_t, std::less<>> byResource_;
};

}  // namespace kube::endpoints
