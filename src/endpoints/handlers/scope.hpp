#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "admission/chain.hpp"
#include "endpoints/http.hpp"
#include "endpoints/request_info.hpp"
#include "endpoints/responses.hpp"
#include "registry/store.hpp"
#include "util/query.hpp"
#include "util/turns.hpp"

namespace kube::endpoints {

// Everything one resource request's handler needs; mirrors handlers.RequestScope.
// Shared by the handler's callbacks, so it lives until the response is sent.
struct RequestScope {
    HttpRequest req;
    RequestInfo info;
    util::Query query;
    registry::Store& store;
    // The admission chain (a delete's; the store runs it for writes).
    admission::Chain& admission;
    // The worker's large responses take turns in one slice per loop pass.
    util::Turns& turns;
    RenderOptions render;
    Responder respond;

    // The error in the negotiated form (a protobuf Status for protobuf output).
    void fail(const meta::Status& s) const { respond(statusResponse(s, render)); }
};

using Scope = std::shared_ptr<RequestScope>;

// An admission plugin's callback: a denial answers the scope with it, an
// admission goes on with `next`.
inline std::function<void(const meta::Status* denied)> unlessDenied(Scope s,
                                                                    std::function<void()> next) {
    return [s = std::move(s), next = std::move(next)](const meta::Status* denied) {
        if (denied) {
            s->fail(*denied);
            return;
        }
        next();
    };
}

// Answers `s` with the object `stored` in the form it negotiated
// (objectResponse), `headers` added. A large object whose form is more than
// its stored bytes (protobuf, a Table, indented JSON) is rendered on a
// thread: encoding megabytes would hold the loop, and every request on it,
// for tens of milliseconds.
void respondObject(const Scope& s, int code, std::string_view stored,
                   std::vector<std::pair<std::string, std::string>> headers = {});

// One function per verb, each a straight line from request to response.
void getResource(Scope s);
void listResource(Scope s);
// A watch; without timeoutSeconds it lasts between `minRequestTimeout` and
// twice that.
void watchResource(Scope s, std::chrono::seconds minRequestTimeout);
void createResource(Scope s);
void updateResource(Scope s);
void patchResource(Scope s);
// Server-side apply: a PATCH with application/apply-patch+yaml.
void applyResource(Scope s);
void deleteResource(Scope s);
void deleteCollection(Scope s);

// The status subresource is served by getResource, updateResource and
// patchResource themselves: a scope whose info names the "status"
// subresource updates through the kind's status strategy.

// The scale subresource (autoscaling/v1 Scale) of a replicated kind; the
// scope's store is the parent's, its render options the Scale's.
void getScale(Scope s);
void updateScale(Scope s);
void patchScale(Scope s);

// componentstatuses (componentstatus.REST): read-only, computed from the
// server's own checks on each request, never stored.
void getComponentStatus(Scope s);
void listComponentStatuses(Scope s);

// The integers of ListOptions (timeoutSeconds, limit) as the parameter codec
// reads them: a 400 with strconv's message in `error` for one that is not an
// int64; `limit` gets the limit (0 when absent).
bool parseListIntegers(const util::Query& q, int64_t* limit, meta::Status* error);

// The dryRun parameter: absent → false, "All" → true, else a 422 in `error`
// naming `optionsKind` (CreateOptions, UpdateOptions, DeleteOptions), as
// kube's ValidateDryRun does.
bool parseDryRun(const util::Query& q, std::string_view optionsKind, meta::Status* error,
                 bool* dryRun);

// The body of a create or update as an object of the scope's kind, and the
// dryRun parameter; on failure the scope is answered and nullptr returned.
std::shared_ptr<util::json::Document> readRequestObject(const Scope& s,
                                                        std::string_view optionsKind, bool* dryRun);
// The same for a body of `kind` (a subresource's: autoscaling/v1 Scale).
std::shared_ptr<util::json::Document> readRequestObject(const Scope& s,
                                                        const registry::KindInfo& kind,
                                                        std::string_view optionsKind, bool* dryRun);

// The read of handlers.GetResource, before its answer: the resourceVersion
// check (a malformed one is 400, one the store has not reached 504), then
// the store's get of the URL's object. A failure answers the scope; the
// stored object goes to `found`.
void getStored(const Scope& s, std::function<void(std::string_view obj)> found);

// The name and namespace an update body must have (handlers' checkName):
// the URL's name, and the URL's namespace or none. A 400 otherwise.
std::optional<meta::Status> checkUpdateName(const Scope& s, const util::json::Value& obj,
                                            bool namespaced);

// ValidateFieldManager: a 422 cause per problem of a fieldManager parameter
// (over 128 bytes, a character that is not printable).
std::vector<meta::StatusCause> fieldManagerCauses(std::string_view manager);

// The field manager a create, update or patch records (managerOrUserAgent):
// the fieldManager parameter, checked (a 422 naming `optionsKind` answers
// the scope, and nullopt is returned), else managerFromUserAgent.
std::optional<std::string> requestFieldManager(const Scope& s, std::string_view optionsKind);

// kube's prefixFromUserAgent: the User-Agent up to its first '/', at most
// 128 bytes ("kubectl" of "kubectl/v1.32.0 (linux/amd64) ..."; "" becomes
// "unknown" in managedFields).
std::string managerFromUserAgent(std::string_view userAgent);

// A PATCH request's patch, checked (its Content-Type, PatchOptions).
struct RequestPatch {
    // Applies the patch to the current object of the kind it was read for
    // (the resource's, or a subresource's such as Scale), with the patch
    // handler's decoding, namespace and name checks; a Store::PatchFn.
    registry::Store::PatchFn apply;
    bool dryRun = false;
    // The patch may build an object far larger than itself
    // (UpdateOptions::mayGrow).
    bool mayGrow = false;
    // The strict decoding problems of the last application, which answer as
    // Warning headers (fieldValidation=Warn).
    std::shared_ptr<std::vector<std::string>> warnings;
    // Who the patch is recorded as in managedFields (managerOrUserAgent).
    std::string manager;
};

// Whether a Content-Type is server-side apply's (application/apply-patch+yaml,
// parameters aside).
bool isApplyPatch(std::string_view contentType);

// rest.EnsureObjectNamespaceMatchesRequestNamespace, then checkName, on a
// patched object: no namespace takes `ns` ("" for a cluster-scoped kind),
// another is a 400, and so is a name that is not `name`.
std::optional<meta::Status> checkPatchedNamespaceAndName(util::json::Document& obj,
                                                         const std::string& ns,
                                                         const std::string& name);

// Reads the patch of `s` for objects of `kind`; on failure (415, 422) the
// scope is answered and nullopt returned.
std::optional<RequestPatch> readRequestPatch(const Scope& s, const registry::KindInfo& kind);

}  // namespace kube::endpoints
