#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "admission/namespace_lifecycle.hpp"
#include "endpoints/request_info.hpp"
#include "endpoints/responses.hpp"
#include "registry/store.hpp"
#include "server/http.hpp"
#include "util/query.hpp"

namespace kube::endpoints {

// Everything one resource request's handler needs; mirrors handlers.RequestScope.
// Shared by the handler's callbacks, so it lives until the response is sent.
struct RequestScope {
    server::HttpRequest req;
    RequestInfo info;
    util::Query query;
    registry::Store& store;
    admission::NamespaceLifecycle& namespaces;
    RenderOptions render;
    server::Responder respond;

    void fail(const meta::Status& s) const {
        respond(server::HttpResponse::fromStatus(s, render.pretty));
    }
};

using Scope = std::shared_ptr<RequestScope>;

// One function per verb, each a straight line from request to response.
void getResource(Scope s);
void listResource(Scope s);
// A watch; without timeoutSeconds it lasts between `minRequestTimeout` and
// twice that.
void watchResource(Scope s, std::chrono::seconds minRequestTimeout);
void createResource(Scope s);
void updateResource(Scope s);
void deleteResource(Scope s);
void deleteCollection(Scope s);

// The dryRun parameter: absent → false, "All" → true, else a 422 in `error`
// naming `optionsKind` (CreateOptions, UpdateOptions, DeleteOptions), as
// kube's ValidateDryRun does.
bool parseDryRun(const util::Query& q, std::string_view optionsKind, meta::Status* error,
                 bool* dryRun);

// The body of a create or update as an object of the scope's kind, and the
// dryRun parameter; on failure the scope is answered and nullptr returned.
std::shared_ptr<util::json::Document> readRequestObject(const Scope& s,
                                                        std::string_view optionsKind, bool* dryRun);

}  // namespace kube::endpoints
