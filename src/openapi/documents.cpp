#include "openapi/documents.hpp"

#include "openapi/definitions.hpp"
#include "openapi/paths.hpp"

namespace kube::openapi {

namespace json = util::json;

namespace {

json::Value info(std::string_view version, json::Allocator& a) {
    json::Value v(rapidjson::kObjectType);
    v.AddMember("title", "Kubernetes", a);
    v.AddMember("version", json::stringValue(version, a), a);
    return v;
}

// Bearer tokens in the Authorization header, as kube-apiserver declares them.
json::Value bearerScheme(json::Allocator& a) {
    json::Value s(rapidjson::kObjectType);
    s.AddMember("type", "apiKey", a);
    s.AddMember("description", "A bearer token in the Authorization header.", a);
    s.AddMember("name", "authorization", a);
    s.AddMember("in", "header", a);
    json::Value schemes(rapidjson::kObjectType);
    schemes.AddMember("BearerToken", s, a);
    return schemes;
}

json::Value security(json::Allocator& a) {
    json::Value requirement(rapidjson::kObjectType);
    requirement.AddMember("BearerToken", json::Value(rapidjson::kArrayType), a);
    json::Value list(rapidjson::kArrayType);
    list.PushBack(requirement, a);
    return list;
}

// Whether every kind served at `group` (at `version` when given) is a custom
// resource: kube serves those from the apiextensions server, whose documents
// have no discovery paths, and whose v3 index lists no group document.
bool onlyCustom(const endpoints::RouteTable& routes, const registry::GroupInfo& g,
                const std::string* version = nullptr) {
    bool any = false;
    for (const std::string& v : g.versions) {
        if (version && v != *version) {
            continue;
        }
        for (const endpoints::KindRoutes* k : routes.kinds(g.name, v)) {
            if (!k->kind->custom) {
                return false;
            }
            any = true;
        }
    }
    return any;
}

std::string v3Document(json::Document& d, Paths& paths, Definitions& defs, bool custom) {
    auto& a = d.GetAllocator();
    d.AddMember("openapi", "3.0.0", a);
    if (custom) {
        // The apiextensions server's own title and version.
        json::Value v(rapidjson::kObjectType);
        v.AddMember("title", "Kubernetes CRD Swagger", a);
        v.AddMember("version", "v0.1.0", a);
        d.AddMember("info", v, a);
    } else {
        d.AddMember("info", info("unversioned", a), a);
    }
    d.AddMember("paths", paths.take(), a);
    json::Value components(rapidjson::kObjectType);
    components.AddMember("schemas", defs.take(), a);
    if (!custom) {
        components.AddMember("securitySchemes", bearerScheme(a), a);
    }
    d.AddMember("components", components, a);
    if (!custom) {
        d.AddMember("security", security(a), a);
    }
    return json::serialize(d);
}

}  // namespace

std::string buildV2(const endpoints::RouteTable& routes, const SchemaPool& pool,
                    std::string_view serverVersion) {
    json::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    Definitions defs(pool, Flavor::V2, a);
    Paths paths(defs, Flavor::V2, a);
    paths.coreVersions();
    paths.groups();
    paths.version();
    for (const registry::GroupInfo& g : routes.groups()) {
        if (!g.name.empty() && !onlyCustom(routes, g)) {
            paths.group(g.name);
        }
        for (const std::string& v : g.versions) {
            if (!onlyCustom(routes, g, &v)) {
                paths.groupVersion(g.name, v);
            }
            for (const endpoints::KindRoutes* k : routes.kinds(g.name, v)) {
                paths.resource(*k);
            }
        }
    }
    d.AddMember("swagger", "2.0", a);
    d.AddMember("info", info(serverVersion, a), a);
    d.AddMember("paths", paths.take(), a);
    d.AddMember("definitions", defs.take(), a);
    d.AddMember("securityDefinitions", bearerScheme(a), a);
    d.AddMember("security", security(a), a);
    return json::serialize(d);
}

std::map<std::string, std::string> buildV3(const endpoints::RouteTable& routes,
                                           const SchemaPool& pool) {
    std::map<std::string, std::string> docs;
    auto single = [&](const std::string& path, auto&& fill, bool custom = false) {
        json::Document d(rapidjson::kObjectType);
        Definitions defs(pool, Flavor::V3, d.GetAllocator());
        Paths paths(defs, Flavor::V3, d.GetAllocator());
        fill(paths);
        docs.emplace(path, v3Document(d, paths, defs, custom));
    };
    single("api", [](Paths& p) { p.coreVersions(); });
    single("apis", [](Paths& p) { p.groups(); });
    single("version", [](Paths& p) { p.version(); });
    for (const registry::GroupInfo& g : routes.groups()) {
        if (!g.name.empty() && !onlyCustom(routes, g)) {
            single("apis/" + g.name, [&](Paths& p) { p.group(g.name); });
        }
        for (const std::string& v : g.versions) {
            std::string path = g.name.empty() ? "api/" + v : "apis/" + g.name + "/" + v;
            bool custom = onlyCustom(routes, g, &v);
            single(
                path,
                [&](Paths& p) {
                    if (!custom) {
                        p.groupVersion(g.name, v);
                    }
                    for (const endpoints::KindRoutes* k : routes.kinds(g.name, v)) {
                        p.resource(*k);
                    }
                },
                custom);
        }
    }
    return docs;
}

}  // namespace kube::openapi
