#include <charconv>

#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

// Mirrors handlers.ListResource (watch excluded: it is not served yet).
void listResource(Scope s) {
    registry::ListOptions opts;
    if (auto limit = s->query.get("limit"); limit && !limit->empty()) {
        long long n = 0;
        auto [end, ec] = std::from_chars(limit->data(), limit->data() + limit->size(), n);
        if (ec != std::errc() || end != limit->data() + limit->size()) {
            s->fail(meta::Status::badRequest("invalid value for limit: " + *limit));
            return;
        }
        opts.limit = n > 0 ? static_cast<size_t>(n) : 0;
    }
    if (auto token = s->query.get("continue")) {
        opts.continueToken = *token;
    }
    meta::Status err;
    if (!registry::parseSelectors(s->store.kind(), s->query.get("labelSelector").value_or(""),
                                  s->query.get("fieldSelector").value_or(""), opts, &err)) {
        s->fail(err);
        return;
    }
    s->store.list(s->info.namespace_, opts, [s](const meta::Status* e,
                                                 const registry::ListPage& page) {
        if (e) {
            s->fail(*e);
            return;
        }
        s->respond(listResponse(page, s->render));
    });
}

}  // namespace kube::endpoints
