#include "endpoints/decode.hpp"
#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

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

std::shared_ptr<util::json::Document> readRequestObject(const Scope& s, bool* dryRun) {
    meta::Status err;
    auto form = negotiateInput(s->req.contentType, &err);
    if (!form || !parseDryRun(s->query, &err, dryRun)) {
        s->fail(err);
        return nullptr;
    }
    auto obj = decodeObject(s->req.body, *form, s->store.kind(), &err);
    if (!obj) {
        s->fail(err);
    }
    return obj;
}

}  // namespace kube::endpoints
