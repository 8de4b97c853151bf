#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

namespace json = util::json;

// Mirrors handlers.createHandler: negotiate, decode, check the namespace,
// store (which admits), answer 201.
void createResource(Scope s) {
    std::optional<std::string> manager = requestFieldManager(s, "CreateOptions");
    if (!manager) {
        return;
    }
    bool dryRun = false;
    auto obj = readRequestObject(s, "CreateOptions", &dryRun);
    if (!obj) {
        return;
    }
    const registry::KindInfo& kind = s->store.kind();
    std::string_view bodyNs = json::stringMember((*obj)["metadata"], "namespace");
    if (kind.namespaced && !bodyNs.empty() && bodyNs != s->info.namespace_) {
        s->fail(
            meta::Status::badRequest("the namespace of the provided object does not match "
                                     "the namespace sent on the request"));
        return;
    }
    registry::CreateOptions opts{dryRun, s->req.user, std::move(manager), s->req.body.size()};
    s->store.create(s->info.namespace_, obj, opts,
                    [s](const meta::Status* e, std::string_view created) {
                        if (e) {
                            s->fail(*e);
                            return;
                        }
                        respondObject(s, 201, created);
                    });
}

}  // namespace kube::endpoints
