#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "endpoints/route_table.hpp"
#include "openapi/definitions.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"

namespace kube::openapi {

// The paths of one document and their operations, as kube-apiserver's route
// installer documents them: one path item per URL pattern, operations named
// <verb><Group><Version>[Namespaced]<Kind>[Suffix], every query parameter
// written out in the operation (not as a $ref: kubectl's fieldValidation
// check reads the PATCH operation's own parameters), and the operation's
// x-kubernetes-action and x-kubernetes-group-version-kind. The definitions
// the operations name are added to `defs`.
class Paths {
  public:
    Paths(Definitions& defs, Flavor flavor, util::json::Allocator& a);

    // Mirrors APIInstaller.registerResourceHandlers: the collection and item
    // paths of a kind (namespaced ones also across all namespaces), the
    // legacy /watch/ paths and the kind's subresources, with an operation
    // for each verb its routes serve. A custom resource's (KindInfo::custom)
    // are as kube's CRD builder writes them: no /watch/ paths, JSON and YAML
    // bodies only, no strategic merge patch, the custom kind's GVK on every
    // operation (/scale's too).
    void resource(const endpoints::KindRoutes& routes);

    // GET /api/v1/, /apis/<group>/<version>/: the APIResourceList.
    void groupVersion(std::string_view group, std::string_view version);
    // GET /api/: the APIVersions.
    void coreVersions();
    // GET /apis/: the APIGroupList.
    void groups();
    // GET /apis/<group>/: the APIGroup.
    void group(std::string_view group);
    // GET /version/: the version.Info.
    void version();

    // Every path item added, sorted by path.
    util::json::Value take();

  private:
    // One operation of a path item.
    struct Operation {
        const char* method = "get";  // "get", "post", "put", "patch", "delete"
        const char* action = "get";  // x-kubernetes-action
        std::string id = {};
        std::string description = {};
        std::vector<std::string> params = {};  // query parameters, by name
        std::string body = {};                 // the request body's definition, "" for none
        bool bodyRequired = true;
        bool patch = false;                        // the body is one of the patch types
        std::vector<int> codes = {};               // 200, 201, 202
        std::string response = {};                 // the response's definition
        bool streams = false;                      // list and watch answers may stream
        const registry::KindInfo* kind = nullptr;  // x-kubernetes-group-version-kind
        bool custom = false;                       // on a custom resource: JSON and YAML only
        std::string gvkGroup = {}, gvkVersion = {}, gvkKind = {};  // when not `kind`'s
    };

    struct Resource;

    Operation op(const Resource& r, const char* method, const char* action, std::string id);
    // The definition of a meta.k8s.io type ("Status"), added; "" without one.
    std::string meta(std::string_view name);
    void collectionPaths(const Resource& r);
    void itemPath(const Resource& r);
    void subresourcePath(const Resource& r, const endpoints::ResourceRoute& route);
    void watchPaths(const Resource& r);
    void addItem(const std::string& path, std::vector<Operation> ops,
                 std::vector<std::string> pathParams, const registry::KindInfo* kind,
                 std::string tag);
    util::json::Value operation(const Operation& op, const std::string& tag);
    util::json::Value parameter(std::string_view name, const registry::KindInfo* kind);
    util::json::Value schemaRef(const std::string& definition);
    util::json::Value gvk(std::string_view group, std::string_view version, std::string_view kind);
    void discoveryGet(const std::string& path, std::string id, std::string description,
                      std::string_view definition, std::string tag);

    Definitions& defs_;
    Flavor flavor_;
    util::json::Allocator& a_;
    std::map<std::string, util::json::Value> items_;
};

// "Core", "Apps", "RbacAuthorization": a group as operation ids spell it.
std::string operationGroup(std::string_view group);

}  // namespace kube::openapi
