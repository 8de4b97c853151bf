#include "apis/core/ephemeral_containers.hpp"
#include "apis/core/pod_spec.hpp"
#include "endpoints/handlers/core_subresources.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

// The pod `built` made into what the ephemeral containers strategy writes
// over `current`, or the 422 that refuses it.
std::optional<meta::Status> ephemeralUpdate(const json::Value& current, json::Document& built,
                                            const std::string& name) {
    apis::core::keepOnlyEphemeralContainers(built, current);
    if (json::Value* spec = json::member(built, "spec"); spec && spec->IsObject()) {
        apis::core::defaultPodSpec(*spec, built.GetAllocator());
    }
    std::vector<meta::StatusCause> causes =
        apis::core::validateEphemeralContainersUpdate(built, current);
    if (!causes.empty()) {
        return meta::Status::invalid({"", "Pod"}, name, std::move(causes));
    }
    return std::nullopt;
}

void respondUpdated(const Scope& s, const meta::Status* err, std::string_view pod) {
    if (err) {
        s->fail(*err);
        return;
    }
    respondObject(s, 200, pod);
}

}  // namespace

void serveEphemeralContainers(Scope s) {
    const std::string& verb = s->info.verb;
    if (verb == "get") {
        getResource(std::move(s));
        return;
    }
    std::string name = s->info.name;
    registry::UpdateOptions opts;
    opts.user = s->req.user;
    opts.requestBytes = s->req.body.size();
    registry::Store::PatchFn fn;
    if (verb == "patch") {
        std::optional<RequestPatch> patch = readRequestPatch(s, s->store.kind());
        if (!patch) {
            return;
        }
        opts.dryRun = patch->dryRun;
        opts.mayGrow = patch->mayGrow;
        opts.manager = patch->manager;
        fn = [apply = patch->apply, name](const json::Value& current, json::Document& patched) {
            if (auto refused = apply(current, patched)) {
                return refused;
            }
            return ephemeralUpdate(current, patched, name);
        };
    } else {
        opts.manager = requestFieldManager(s, "UpdateOptions");
        if (!opts.manager) {
            return;
        }
        auto obj = readRequestObject(s, "UpdateOptions", &opts.dryRun);
        if (!obj) {
            return;
        }
        if (std::optional<meta::Status> bad = checkUpdateName(s, *obj, true)) {
            s->fail(*bad);
            return;
        }
        fn = [obj, name](const json::Value& current, json::Document& built) {
            built.CopyFrom(*obj, built.GetAllocator());
            return ephemeralUpdate(current, built, name);
        };
    }
    s->store.patch(
        s->info.namespace_, name, std::move(fn), opts,
        [s](const meta::Status* err, std::string_view pod) { respondUpdated(s, err, pod); });
}

}  // namespace kube::endpoints
