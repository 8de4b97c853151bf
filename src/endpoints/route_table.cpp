#include "endpoints/route_table.hpp"

#include <algorithm>
#include <optional>

namespace kube::endpoints {

namespace {

// The verbs each family of handlers implements (the rest.Storage interfaces
// kube's installer tests for: Getter, Lister, Watcher, Creater, ...).
const std::vector<std::string>& implementedVerbs(Handlers handlers, bool subresource) {
    static const std::vector<std::string> object = {
        "create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
    static const std::vector<std::string> part = {"get", "patch", "update"};
    static const std::vector<std::string> create = {"create"};
    static const std::vector<std::string> update = {"update"};
    static const std::vector<std::string> connect = {"create", "delete", "get", "patch", "update"};
    static const std::vector<std::string> read = {"get", "list"};
    switch (handlers) {
        case Handlers::Object:
            return subresource ? part : object;
        case Handlers::Scale:
        case Handlers::EphemeralContainers:
            return part;
        case Handlers::ComponentStatus:
            return read;
        case Handlers::Finalize:
            return update;
        case Handlers::Connect:
            return connect;
        case Handlers::Eviction:
        case Handlers::Review:
        case Handlers::TokenRequest:
        case Handlers::Binding:
            return create;
    }
    return create;
}

Handlers subresourceHandlers(const registry::SubresourceInfo& sub) {
    switch (sub.storage) {
        case registry::SubresourceStorage::Scale:
            return Handlers::Scale;
        case registry::SubresourceStorage::TokenRequest:
            return Handlers::TokenRequest;
        case registry::SubresourceStorage::Binding:
            return Handlers::Binding;
        case registry::SubresourceStorage::Eviction:
            return Handlers::Eviction;
        case registry::SubresourceStorage::EphemeralContainers:
            return Handlers::EphemeralContainers;
        case registry::SubresourceStorage::Finalize:
            return Handlers::Finalize;
        case registry::SubresourceStorage::Connect:
            return Handlers::Connect;
        case registry::SubresourceStorage::Parent:
            break;
    }
    return Handlers::Object;
}

Handlers kindHandlers(const registry::KindInfo& kind) {
    switch (kind.storage) {
        case registry::KindStorage::Review:
            return Handlers::Review;
        case registry::KindStorage::Binding:
            return Handlers::Binding;
        case registry::KindStorage::ComponentStatus:
            return Handlers::ComponentStatus;
        case registry::KindStorage::Store:
            break;
    }
    return Handlers::Object;
}

ResourceRoute route(const registry::KindInfo& kind, const registry::SubresourceInfo* sub) {
    ResourceRoute r;
    r.subresource = sub;
    r.handlers = sub ? subresourceHandlers(*sub) : kindHandlers(kind);
    r.responseKind = sub && sub->responseKind ? sub->responseKind : &kind;
    const std::vector<std::string>& implemented = implementedVerbs(r.handlers, sub != nullptr);
    for (const std::string& verb : sub ? sub->verbs : kind.verbs) {
        if (std::find(implemented.begin(), implemented.end(), verb) != implemented.end()) {
            r.verbs.push_back(verb);
        }
    }
    return r;
}

std::string resourceKey(std::string_view group, std::string_view version,
                        std::string_view resource) {
    std::string key(group);
    key += '/';
    key += version;
    key += '/';
    key += resource;
    return key;
}

// Verbs on one object: its path names it.
bool itemVerb(std::string_view verb) {
    return verb == "get" || verb == "update" || verb == "patch" || verb == "delete";
}

}  // namespace

bool ResourceRoute::serves(std::string_view verb) const {
    return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

const ResourceRoute* KindRoutes::subresource(std::string_view name) const {
    for (const ResourceRoute& r : subresources) {
        if (r.subresource->name == name) {
            return &r;
        }
    }
    return nullptr;
}

RouteTable::RouteTable(const registry::Scheme& scheme)
    : generation_(scheme.generation()), groups_(scheme.groups()) {
    kinds_.reserve(scheme.all().size());
    for (const std::shared_ptr<const registry::KindInfo>& kind : scheme.all()) {
        KindRoutes k{kind, route(*kind, nullptr), {}};
        for (const registry::SubresourceInfo& sub : kind->subresources) {
            k.subresources.push_back(route(*kind, &sub));
        }
        byResource_.emplace(resourceKey(kind->group, kind->version, kind->resource), kinds_.size());
        kinds_.push_back(std::move(k));
    }
}

bool RouteTable::hasGroupVersion(std::string_view group, std::string_view version) const {
    for (const registry::GroupInfo& g : groups_) {
        if (g.name == group) {
            return std::find(g.versions.begin(), g.versions.end(), version) != g.versions.end();
        }
    }
    return false;
}

std::vector<const KindRoutes*> RouteTable::kinds(std::string_view group,
                                                 std::string_view version) const {
    std::vector<const KindRoutes*> out;
    for (const KindRoutes& k : kinds_) {
        if (k.kind->group == group && k.kind->version == version) {
            out.push_back(&k);
        }
    }
    return out;
}

const KindRoutes* RouteTable::find(std::string_view group, std::string_view version,
                                   std::string_view resource) const {
    auto it = byResource_.find(resourceKey(group, version, resource));
    return it == byResource_.end() ? nullptr : &kinds_[it->second];
}

RouteMatch RouteTable::match(const RequestInfo& info) const {
    RouteMatch m;
    m.kind = find(info.apiGroup, info.apiVersion, info.resource);
    if (!m.kind) {
        return m;
    }
    const registry::KindInfo& kind = *m.kind->kind;
    m.route = info.subresource.empty() ? &m.kind->resource : m.kind->subresource(info.subresource);
    if (!m.route) {
        return m;
    }
    m.namespace_ = info.namespace_;
    // RequestInfo reads /namespaces/<name> as the namespace <name>: on the
    // cluster-scoped resource of that name, it is the object's own path.
    if (!kind.namespaced && info.resource == "namespaces" && info.namespace_ == info.name) {
        m.namespace_.clear();
    }
    const std::string& verb = info.verb;
    bool item = !info.name.empty();
    bool listing = verb == "list" || verb == "watch";  // a name may come from the fieldSelector
    // A namespaced item without a namespace, a cluster-scoped resource under
    // one: paths without a route.
    if ((kind.namespaced && m.namespace_.empty() && item && !listing) ||
        (!kind.namespaced && !m.namespace_.empty())) {
        m.route = nullptr;
        return m;
    }
    m.outcome = RouteMatch::Outcome::MethodNotAllowed;
    if (!m.route->serves(verb) || (itemVerb(verb) && !item)) {
        return m;
    }
    // A resource's create and deletecollection are collection verbs, create
    // only where objects are created: in a namespace when namespaced. (A
    // subresource's path always names its object.)
    bool collectionVerb = verb == "create" || verb == "deletecollection";
    if (!m.route->subresource && collectionVerb &&
        (item || (verb == "create" && kind.namespaced && m.namespace_.empty()))) {
        return m;
    }
    m.outcome = RouteMatch::Outcome::Found;
    return m;
}

}  // namespace kube::endpoints
