#include "endpoints/handlers/core_subresources.hpp"
#include "registry/validation.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

// validateFinalizerName: a qualified name, and one with no domain only when
// it is a standard finalizer.
void validateFinalizer(std::string_view name, const std::string& path,
                       std::vector<meta::StatusCause>& out) {
    namespace field = registry::validation::field;
    for (const std::string& msg : registry::validation::isQualifiedName(name)) {
        out.push_back(field::invalid(path, name, msg));
    }
    bool standard = name == "kubernetes" || name == "orphan" || name == "foregroundDeletion";
    if (name.find('/') == std::string_view::npos && !standard) {
        out.push_back(field::invalid(path, name,
                                     "name is neither a standard finalizer name nor is it fully "
                                     "qualified"));
    }
}

}  // namespace

void finalizeNamespace(Scope s) {
    std::optional<std::string> manager = requestFieldManager(s, "UpdateOptions");
    if (!manager) {
        return;
    }
    registry::UpdateOptions opts;
    auto obj = readRequestObject(s, "UpdateOptions", &opts.dryRun);
    if (!obj) {
        return;
    }
    if (std::optional<meta::Status> bad = checkUpdateName(s, *obj, false)) {
        s->fail(*bad);
        return;
    }
    opts.user = s->req.user;
    opts.requestBytes = s->req.body.size();
    opts.manager = std::move(manager);
    std::string name = s->info.name;
    // namespaceFinalizeStrategy: the namespace as sent, its status as stored.
    auto fn = [obj, name](const json::Value& current,
                          json::Document& built) -> std::optional<meta::Status> {
        auto& a = built.GetAllocator();
        built.CopyFrom(*obj, a);
        if (const json::Value* status = json::member(current, "status")) {
            json::setMember(built, "status", json::Value(*status, a), a);
        } else {
            json::removeMember(built, "status");
        }
        std::vector<meta::StatusCause> causes;
        const json::Value* fs = json::at(built, {"spec", "finalizers"});
        if (fs && fs->IsArray()) {
            size_t i = 0;
            for (const json::Value& f : fs->GetArray()) {
                validateFinalizer(f.IsString() ? json::view(f) : "",
                                  registry::validation::field::index("spec.finalizers", i++),
                                  causes);
            }
        }
        if (!causes.empty()) {
            return meta::Status::invalid({"", "Namespace"}, name, std::move(causes));
        }
        return std::nullopt;
    };
    s->store.patch("", name, std::move(fn), opts,
                   [s](const meta::Status* err, std::string_view ns) {
                       if (err) {
                           s->fail(*err);
                           return;
                       }
                       respondObject(s, 200, ns);
                   });
}

}  // namespace kube::endpoints
