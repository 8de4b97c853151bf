#include "endpoints/decode.hpp"
#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

namespace json = util::json;

bool parseDryRun(const util::Query& q, meta::Status* error, bool* dryRun) {
    *dryRun = false;
    auto v = q.get("dryRun");
    if (!v || v->empty()) {
        return true;
    }
    if (*v == "All") {
        *dryRun = true;
        return true;
    }
    *error = meta::Status::badRequest("Invalid dryRun value \"" + *v +
                                      "\": supported values: \"All\"");
    return false;
}

// Mirrors handlers.createHandler: negotiate, decode, check the namespace,
// admit, store, answer 201.
void createResource(Scope s) {
    meta::Status err;
    auto form = negotiateInput(s->req.contentType, &err);
    if (!form) {
        s->fail(err);
        return;
    }
    bool dryRun = false;
    if (!parseDryRun(s->query, &err, &dryRun)) {
        s->fail(err);
        return;
    }
    const registry::KindInfo& kind = s->store.kind();
    auto obj = decodeObject(s->req.body, *form, kind, &err);
    if (!obj) {
        s->fail(err);
        return;
    }
    std::string_view bodyNs = json::stringMember((*obj)["metadata"], "namespace");
    if (kind.namespaced && !bodyNs.empty() && bodyNs != s->info.namespace_) {
        s->fail(meta::Status::badRequest("the namespace of the provided object does not match "
                                         "the namespace sent on the request"));
        return;
    }
    registry::CreateOptions opts{dryRun};
    auto store = [s, obj, opts] {
        s->store.create(s->info.namespace_, obj, opts,
                        [s](const meta::Status* e, std::string_view created) {
                            if (e) {
                                s->fail(*e);
                                return;
                            }
                            s->respond(objectResponse(201, created, s->render));
                        });
    };
    if (!kind.namespaced) {
        store();
        return;
    }
    std::string name(json::stringMember((*obj)["metadata"], "name"));
    s->namespaces.admitCreate(kind, s->info.namespace_, name,
                              [s, store](const meta::Status* denied) {
                                  if (denied) {
                                      s->fail(*denied);
                                      return;
                                  }
                                  store();
                              });
}

}  // namespace kube::endpoints
