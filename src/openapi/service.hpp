#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "endpoints/route_table.hpp"

namespace kube::openapi {

// What the answer of an OpenAPI endpoint depends on.
struct Request {
    std::string_view path;         // "/openapi/v3/apis/apps/v1"
    std::string_view query;        // raw, without '?'
    std::string_view accept;       // "" counts as */*
    std::string_view ifNoneMatch;  // the If-None-Match header, "" when absent
    std::chrono::system_clock::time_point now;
};

struct Response {
    int status = 200;
    std::string contentType;  // "" for none (304, 406, a redirect)
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
};

// Serves /openapi/v2, /openapi/v3 and /openapi/v3/<group-version> from
// documents generated from a route table and the schema in src/apis/proto,
// on first use (build()) or aside (prepare(), install()), and again after
// the routes change; mirrors kube-openapi's handler.OpenAPIService (v2) and
// handler3.OpenAPIService (v3). v2 also in gnostic's protobuf form, which
// client-go asks for; v3 in JSON only (an Accept that takes nothing but its
// protobuf form is answered 406). Not thread-safe (one per worker;
// Publisher builds its documents off the loop).
class Service {
  public:
    // `serverVersion` is the v2 document's info.version.
    explicit Service(std::string serverVersion);

    // The routes the documents describe from now on; the documents of older
    // ones are dropped and built again when next asked for (or by build()).
    // Call before serving.
    void setRoutes(std::shared_ptr<const endpoints::RouteTable> routes);

    // Whether `path` is an OpenAPI endpoint path (/openapi/v2, /openapi/v3
    // and below).
    static bool handles(std::string_view path);

    // Answers a GET or HEAD of an OpenAPI path:
    //  - /openapi/v2: the document (JSON, or protobuf when the Accept header
    //    prefers it), ETag "<SHA-512 of the JSON>", Vary: Accept; 304 when
    //    If-None-Match names that ETag.
    //  - /openapi/v3: {"paths":{"api/v1":{"serverRelativeURL":
    //    "/openapi/v3/api/v1?hash=<SHA-512>"},...}} with its ETag.
    //  - /openapi/v3/<path>: the document, ETag "<its hash>", Vary: Accept;
    //    with ?hash= of the current hash also Cache-Control: public,
    //    immutable and Expires a year on; with another hash 301 to the
    //    current URL; 304 for a matching If-None-Match; 404 Status for a
    //    path no document has.
    Response serve(const Request& req);

    // The SHA-512 (128 upper-case hex digits) of the v3 document at `path`
    // ("apis/apps/v1"); "" when there is none.
    std::string v3Hash(std::string_view path);

    // Builds every document now (tens of milliseconds), so that no request
    // pays for it; serving builds them first if this was not called.
    void build();

    // Every document of one route table, built together and immutable once
    // built.
    struct Built;

    // The documents of `routes`, built aside: reads nothing but `routes`
    // and the schema, so it may run on a thread while the loop serves.
    static std::shared_ptr<const Built> prepare(const endpoints::RouteTable& routes,
                                                std::string_view serverVersion);

    // Whether the documents of the current routes are built.
    bool built() const { return built_ != nullptr; }

    // The current routes (null before setRoutes).
    const std::shared_ptr<const endpoints::RouteTable>& routes() const { return routes_; }

    const std::string& serverVersion() const { return serverVersion_; }

    // Serves `built`, prepared from `routes`, from now on: true when those
    // are still the current routes; false (and nothing changes) when they
    // changed since.
    bool install(const endpoints::RouteTable* routes, std::shared_ptr<const Built> built);

  private:
    Response v2(const Request& req);
    Response v3Index(const Request& req);
    Response v3Document(const Request& req, std::string_view path);

    std::shared_ptr<const endpoints::RouteTable> routes_;
    std::string serverVersion_;
    std::shared_ptr<const Built> built_;  // null until built for routes_
};

}  // namespace kube::openapi
