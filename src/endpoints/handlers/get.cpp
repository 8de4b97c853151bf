#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

namespace {

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

}  // namespace

void getStored(const Scope& s, std::function<void(std::string_view obj)> found) {
    if (!checkGetResourceVersion(s)) {
        return;
    }
    auto read = [s, found = std::move(found)](const meta::Status* err, std::string_view obj) {
        if (err) {
            s->fail(*err);
            return;
        }
        found(obj);
    };
    // Without a resourceVersion, a consistent read: every write acknowledged
    // before it, on any host, is seen (kube's GET reads etcd; ours waits for
    // the watch to have brought etcd's revision, then reads the replica).
    if (s->query.get("resourceVersion").value_or("").empty()) {
        s->store.getConsistent(s->info.namespace_, s->info.name, std::move(read));
    } else {
        s->store.get(s->info.namespace_, s->info.name, std::move(read));
    }
}

// Mirrors handlers.GetResource (and StatusREST.Get, the same read).
void getResource(Scope s) {
    getStored(s, [s](std::string_view obj) { respondObject(s, 200, obj); });
}

}  // namespace kube::endpoints
