#include "endpoints/handlers/scope.hpp"

namespace kube::endpoints {

namespace json = util::json;

std::optional<meta::Status> checkUpdateName(const Scope& s, const json::Value& obj,
                                            bool namespaced) {
    const json::Value& m = obj["metadata"];
    std::string_view name = json::stringMember(m, "name");
    std::string_view ns = json::stringMember(m, "namespace");
    if (name != s->info.name) {
        return meta::Status::badRequest("the name of the object (" + std::string(name) +
                                        ") does not match the name on the URL (" + s->info.name +
                                        ")");
    }
    if (namespaced && !ns.empty() && ns != s->info.namespace_) {
        return meta::Status::badRequest("the namespace of the object (" + std::string(ns) +
                                        ") does not match the namespace on the request (" +
                                        s->info.namespace_ + ")");
    }
    return std::nullopt;
}

// Mirrors handlers.UpdateResource: the body must name the object of the URL;
// then Priority admission (which lets subresources pass), then the store,
// through the status strategy for the status subresource.
void updateResource(Scope s) {
    std::optional<std::string> manager = requestFieldManager(s, "UpdateOptions");
    if (!manager) {
        return;
    }
    bool dryRun = false;
    auto obj = readRequestObject(s, "UpdateOptions", &dryRun);
    if (!obj) {
        return;
    }
    const registry::KindInfo& kind = s->store.kind();
    if (std::optional<meta::Status> bad = checkUpdateName(s, *obj, kind.namespaced)) {
        s->fail(*bad);
        return;
    }
    // A subresource served here is the parent's own: status, or one with a
    // strategy of its own (approval).
    const std::string& sub = s->info.subresource;
    registry::UpdateOptions opts{dryRun, !sub.empty(), s->req.body.size()};
    opts.subresource = sub == "status" ? "" : sub;
    opts.user = s->req.user;
    opts.manager = std::move(manager);
    s->store.update(s->info.namespace_, s->info.name, obj, opts,
                    [s](const meta::Status* e, std::string_view updated) {
                        if (e) {
                            s->fail(*e);
                            return;
                        }
                        respondObject(s, 200, updated);
                    });
}

}  // namespace kube::endpoints
