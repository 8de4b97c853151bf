#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "endpoints/negotiation.hpp"
#include "registry/scheme.hpp"

namespace kube::endpoints {

// A pre-rendered discovery document.
struct DiscoveryDocument {
    std::string contentType;
    std::string body;
    std::string etag;  // quoted, for aggregated documents
};

// The discovery documents of a scheme; mirrors kube-apiserver's discovery
// handlers (legacy APIVersions/APIGroupList/APIGroup/APIResourceList and
// aggregated APIGroupDiscoveryList v2 and v2beta1). The scheme is fixed for
// the server's life, so every document is rendered once, on first use.
class Discovery {
  public:
    // `verbsServed`: the verbs this server implements; a kind advertises
    // only those of its verbs that are served.
    Discovery(const registry::Scheme& scheme, std::vector<std::string> verbsServed);

    // GET /api. The legacy form names `serverAddress` (host:port).
    DiscoveryDocument coreRoot(DiscoveryForm form, std::string_view serverAddress);
    // GET /apis.
    const DiscoveryDocument& groupsRoot(DiscoveryForm form);
    // GET /apis/<group>; nullptr for an unknown group.
    const DiscoveryDocument* group(std::string_view name);
    // GET /api/v1, /apis/<group>/<version>; nullptr for an unknown one.
    const DiscoveryDocument* resources(std::string_view group, std::string_view version);

  private:
    std::vector<std::string> servedVerbs(const registry::KindInfo& kind) const;
    std::string aggregated(bool core, DiscoveryForm form) const;
    std::string resourceList(std::string_view group, std::string_view version) const;

    const registry::Scheme& scheme_;
    std::vector<std::string> verbsServed_;
    // Rendered documents by key; node-based so that handed-out pointers stay valid.
    std::map<std::string, DiscoveryDocument> cache_;
};

}  // namespace kube::endpoints
