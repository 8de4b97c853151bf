#include "endpoints/delete_options.hpp"
#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

namespace {

// The store's delete of the URL's object, once admitted.
void removeResource(const Scope& s, const registry::DeleteOptions& opts);

}  // namespace

// Mirrors handlers.DeleteResource: the object when deletion is graceful,
// otherwise a success Status naming it.
void deleteResource(Scope s) {
    meta::Status err;
    std::optional<registry::DeleteOptions> opts =
        readDeleteOptions(s->req.body, s->req.contentType, s->query, &err);
    if (!opts) {
        s->fail(err);
        return;
    }
    auto attrs = std::make_shared<admission::Attributes>();
    attrs->operation = admission::Operation::Delete;
    attrs->kind = &s->store.kind();
    attrs->ns = s->info.namespace_;
    attrs->name = s->info.name;
    attrs->user = s->req.user;
    attrs->dryRun = opts->dryRun;
    s->admission.admitAndValidate(attrs, unlessDenied(s, [s, opts = *opts] {
        removeResource(s, opts);
    }));
}

namespace {

void removeResource(const Scope& s, const registry::DeleteOptions& opts) {
    // 202 when the object stays and the client asked, with the legacy
    // orphanDependents=false, for its dependents to go.
    bool accepted = opts.orphanDependents && !*opts.orphanDependents;
    s->store.remove(s->info.namespace_, s->info.name, opts,
                    [s, accepted](const meta::Status* e, const registry::DeleteResult& res) {
                        if (e) {
                            s->fail(*e);
                            return;
                        }
                        int code = accepted && !res.deleted ? 202 : 200;
                        if (res.returnsObject) {
                            respondObject(s, code, res.object);
                            return;
                        }
                        meta::Status status = res.status;
                        status.code = code;
                        s->respond(statusResponse(status, s->render));
                    });
}

}  // namespace

// Mirrors handlers.DeleteCollection: answers with the deleted objects (with
// dryRun, the objects that would have been deleted).
void deleteCollection(Scope s) {
    meta::Status err;
    registry::ListOptions list;
    int64_t limit = 0;
    if (!parseListIntegers(s->query, &limit, &err) ||
        !registry::parseSelectors(s->store.kind(), s->query.get("labelSelector").value_or(""),
                                  s->query.get("fieldSelector").value_or(""), list, &err)) {
        s->fail(err);
        return;
    }
    list.limit = limit > 0 ? static_cast<size_t>(limit) : 0;
    list.continueToken = s->query.get("continue").value_or("");
    std::optional<registry::DeleteOptions> opts =
        readDeleteOptions(s->req.body, s->req.contentType, s->query, &err);
    if (!opts) {
        s->fail(err);
        return;
    }
    s->store.deleteCollection(s->info.namespace_, list, *opts,
                              [s](const meta::Status* e, const registry::ListPage& page) {
                                  if (e) {
                                      s->fail(*e);
                                      return;
                                  }
                                  s->respond(listResponse(page, s->render));
                              });
}

}  // namespace kube::endpoints
