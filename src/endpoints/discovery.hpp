#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "endpoints/negotiation.hpp"
#include "endpoints/route_table.hpp"

namespace kube::endpoints {

// A pre-rendered discovery document.
struct DiscoveryDocument {
    std::string contentType;
    std::string body;
    std::string etag;  // quoted, for aggregated documents
};

// The discovery documents of a route table; mirrors kube-apiserver's
// discovery handlers (legacy APIVersions/APIGroupList/APIGroup/APIResourceList
// and aggregated APIGroupDiscoveryList v2 and v2beta1). Every document is
// rendered on first use and kept until the routes change.
class Discovery {
  public:
    // The routes the documents list from now on; the documents of older
    // ones are dropped. Call before serving.
    void setRoutes(std::shared_ptr<const RouteTable> routes);

    // GET /api. The legacy form names `serverAddress` (host:port).
    DiscoveryDocument coreRoot(DiscoveryForm form, std::string_view serverAddress);
    // GET /apis.
    const DiscoveryDocument& groupsRoot(DiscoveryForm form);
    // GET /apis/<group>; nullptr for an unknown group.
    const DiscoveryDocument* group(std::string_view name);
    // GET /api/v1, /apis/<group>/<version>; nullptr for an unknown one.
    const DiscoveryDocument* resources(std::string_view group, std::string_view version);

  private:
    std::string aggregated(bool core, DiscoveryForm form) const;
    std::string resourceList(std::string_view group, std::string_view version) const;

    std::shared_ptr<const RouteTable> routes_;
    // Rendered documents by key; node-based so that handed-out pointers stay valid.
    std::map<std::string, DiscoveryDocument> cache_;
};

}  // namespace kube::endpoints
