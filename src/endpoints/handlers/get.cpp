#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

// The store always holds the latest state, so any resourceVersion it has
// reached is satisfied ("0" and NotOlderThan alike); a newer one is kube's
// 504 Too large resource version.
bool checkGetResourceVersion(const Scope& s) {
    storage::Revision wanted = 0;
    meta::Status err;
    if (!registry::parseResourceVersion(s->query.get("resourceVersion").value_or(""), &wanted,
                                        &err)) {
        s->fail(err);
        return false;
    }
    if (wanted > 0) {
        storage::Revision current = s->store.storage().currentRevision();
        if (wanted > current) {
            s->fail(registry::tooLargeResourceVersion(wanted, current));
            return false;
        }
    }
    return true;
}

// Mirrors handlers.GetResource (and StatusREST.Get, the same read).
void getResource(Scope s) {
    if (!checkGetResourceVersion(s)) {
        return;
    }
    s->store.get(s->info.namespace_, s->info.name,
                 [s](const meta::Status* err, std::string_view obj) {
                     if (err) {
                         s->fail(*err);
                         return;
                     }
                     s->respond(objectResponse(200, obj, s->render));
                 });
}

}  // namespace kube::endpoints
