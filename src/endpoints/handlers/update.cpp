#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

namespace json = util::json;

// Mirrors handlers.UpdateResource: the body must name the object of the URL.
void updateResource(Scope s) {
    bool dryRun = false;
    auto obj = readRequestObject(s, "UpdateOptions", &dryRun);
    if (!obj) {
        return;
    }
    const registry::KindInfo& kind = s->store.kind();
    const json::Value& m = (*obj)["metadata"];
    std::string_view name = json::stringMember(m, "name");
    std::string_view ns = json::stringMember(m, "namespace");
    if (name != s->info.name) {
        s->fail(meta::Status::badRequest("the name of the object (" + std::string(name) +
                                         ") does not match the name on the URL (" + s->info.name +
                                         ")"));
        return;
    }
    if (kind.namespaced && !ns.empty() && ns != s->info.namespace_) {
        s->fail(meta::Status::badRequest("the namespace of the object (" + std::string(ns) +
                                         ") does not match the namespace on the request (" +
                                         s->info.namespace_ + ")"));
        return;
    }
    s->store.update(s->info.namespace_, s->info.name, obj, registry::UpdateOptions{dryRun},
                    [s](const meta::Status* e, std::string_view updated) {
                        if (e) {
                            s->fail(*e);
                            return;
                        }
                        s->respond(objectResponse(200, updated, s->render));
                    });
}

}  // namespace kube::endpoints
