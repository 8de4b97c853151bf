#pragma once

#include <map>
#include <string>
#include <string_view>

#include "endpoints/route_table.hpp"
#include "openapi/schema_pool.hpp"

namespace kube::openapi {

// /openapi/v2: one Swagger 2.0 document with the paths of every served kind
// and of discovery, and every definition they reach, compact JSON.
// `serverVersion` is info.version ("v1.32.0+..."). Group-versions served by
// custom resources alone have no discovery paths (kube's apiextensions
// server documents none).
std::string buildV2(const endpoints::RouteTable& routes, const SchemaPool& pool,
                    std::string_view serverVersion);

// /openapi/v3/<path>: one OpenAPI 3.0 document per served group-version
// ("api/v1", "apis/apps/v1") and per discovery path kube-apiserver lists
// ("api", "apis", "apis/apps", "version"), compact JSON, by path. A
// group-version of custom resources alone gets the apiextensions server's
// document (no discovery path, its own info, no security), and a group of
// them alone no "apis/<group>" document.
std::map<std::string, std::string> buildV3(const endpoints::RouteTable& routes,
                                           const SchemaPool& pool);

}  // namespace kube::openapi
