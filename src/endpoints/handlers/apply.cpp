#include "endpoints/field_validation.hpp"
#include "endpoints/handlers/scope.hpp"
#include "registry/validation.hpp"
#include "util/time.hpp"
#include "util/yaml.hpp"

namespace kube::endpoints {

namespace json = util::json;
namespace apply = registry::apply;
namespace field = registry::validation::field;

namespace {

// A body at least this large is applied to a missing object on a thread,
// as the store builds a large update's object.
constexpr size_t kApplyOffLoopBytes = 64 * 1024;

struct ApplyOptions {
    std::string manager;
    bool force = false;
    bool dryRun = false;
};

// Mirrors the decoding of metav1.PatchOptions and ValidatePatchOptions for
// an apply: fieldManager is required, force may be given; every problem is
// one cause of a 422.
bool parseApplyOptions(const util::Query& q, ApplyOptions* out, meta::Status* error) {
    std::vector<meta::StatusCause> causes;
    out->manager = q.get("fieldManager").value_or("");
    if (out->manager.empty()) {
        causes.push_back(field::required("fieldManager", "is required for apply patch"));
    }
    for (meta::StatusCause& c : fieldManagerCauses(out->manager)) {
        causes.push_back(std::move(c));
    }
    // kube-apiserver reads a force it cannot parse as false.
    std::string force = q.get("force").value_or("");
    out->force = force == "1" || force == "t" || force == "T" || force == "true" ||
                 force == "TRUE" || force == "True";
    meta::Status bad;
    if (!parseDryRun(q, "PatchOptions", &bad, &out->dryRun) && bad.details) {
        causes.insert(causes.end(), bad.details->causes.begin(), bad.details->causes.end());
    }
    if (!parseFieldValidation(q, "PatchOptions", &bad) && bad.details) {
        causes.insert(causes.end(), bad.details->causes.begin(), bad.details->causes.end());
    }
    if (!causes.empty()) {
        *error = meta::Status::invalid({"meta.k8s.io", "PatchOptions"}, "", std::move(causes));
        return false;
    }
    return true;
}

// The apply body as the patch handler decodes it (yaml.Unmarshal into a
// map): YAML or JSON, an object or nothing.
std::shared_ptr<json::Document> decodeApplyBody(std::string_view body, meta::Status* error) {
    auto config = std::make_shared<json::Document>();
    if (auto err = util::yaml::toJson(body, *config)) {
        *error = meta::Status::badRequest("error decoding YAML: " + *err);
        return nullptr;
    }
    if (config->IsNull()) {
        config->SetObject();
    }
    if (!config->IsObject()) {
        *error = meta::Status::badRequest(
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot "
            "unmarshal " +
            std::string(json::typeName(*config)) +
            " into Go value of type map[string]interface {}");
        return nullptr;
    }
    return config;
}

// What every attempt of one apply needs.
struct Applier {
    const apply::FieldManager* manager;
    std::shared_ptr<const json::Document> config;
    ApplyOptions opts;
    std::string now;
    std::string ns;  // "" for a cluster-scoped kind
    std::string name;

    // The applied object of `live` (an empty object for a create), checked
    // as the patch handler checks a patched object.
    std::optional<meta::Status> operator()(const json::Value& live, json::Document& out) const {
        apply::ApplyResult r = manager->apply(live, *config, opts.manager, opts.force, now);
        if (r.status) {
            return r.status;
        }
        out.Swap(r.object);
        return checkPatchedNamespaceAndName(out, ns, name);
    }
};

void respondApplied(const Scope& s, int code, const meta::Status* e, std::string_view obj) {
    if (e) {
        s->fail(*e);
        return;
    }
    respondObject(s, code, obj);
}

void applyToStored(const Scope& s, const Applier& applier, bool status, int attempt);

// How often an apply that found no object, and then found one when it
// created it, goes back to apply to the object created meanwhile.
constexpr int kApplyCreateAttempts = 3;

// kube's create on apply (the patch handler's forceAllowCreate): the apply
// on an empty object, then what a create does, answered 201. An object
// created meanwhile by another request is applied to instead, as kube's
// guaranteed update retries once the create's precondition fails.
void createApplied(const Scope& s, const Applier& applier, int attempt) {
    auto obj = std::make_shared<json::Document>();
    auto failed = std::make_shared<std::optional<meta::Status>>();
    auto build = [applier, obj, failed] {
        try {
            json::Value empty(rapidjson::kObjectType);
            *failed = applier(empty, *obj);
        } catch (const std::exception& e) {
            *failed = meta::Status::internalError(e.what());
        }
    };
    auto create = [s, applier, obj, failed, attempt] {
        if (*failed) {
            s->fail(**failed);
            return;
        }
        // the store admits the create (the namespace exists, ...)
        registry::CreateOptions opts{applier.opts.dryRun, s->req.user, std::nullopt,
                                     s->req.body.size()};
        s->store.create(s->info.namespace_, obj, opts,
                        [s, applier, attempt](const meta::Status* e, std::string_view created) {
                            if (e && e->reason == "AlreadyExists" &&
                                attempt + 1 < kApplyCreateAttempts) {
                                applyToStored(s, applier, false, attempt + 1);
                                return;
                            }
                            respondApplied(s, 201, e, created);
                        });
    };
    if (s->req.body.size() >= kApplyOffLoopBytes) {
        s->store.loop().runBlocking(std::move(build), std::move(create));
        return;
    }
    build();
    create();
}

}  // namespace

// Mirrors handlers.PatchResource with the applyPatcher: the body applied by
// the kind's FieldManager to the stored object inside the store's guaranteed
// update (through the status strategy for the status subresource), or to
// nothing when the object does not exist yet, which creates it.
void applyResource(Scope s) {
    bool status = s->info.subresource == "status";
    const apply::FieldManager* manager = s->store.fieldManager(status);
    if (!manager) {
        s->fail(meta::Status::unsupportedMediaType(
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, "
            "application/strategic-merge-patch+json"));
        return;
    }
    Applier applier;
    meta::Status err;
    if (!parseApplyOptions(s->query, &applier.opts, &err)) {
        s->fail(err);
        return;
    }
    std::shared_ptr<json::Document> config = decodeApplyBody(s->req.body, &err);
    if (!config) {
        s->fail(err);
        return;
    }
    applier.manager = manager;
    applier.config = std::move(config);
    applier.now = util::time::formatRFC3339(s->store.loop().now());
    applier.ns = s->store.kind().namespaced ? s->info.namespace_ : std::string();
    applier.name = s->info.name;
    applyToStored(s, applier, status, 0);
}

namespace {

// The apply inside the store's guaranteed update of the stored object; a
// missing one is created (not a missing object's status).
void applyToStored(const Scope& s, const Applier& applier, bool status, int attempt) {
    registry::UpdateOptions opts{applier.opts.dryRun, status, s->req.body.size()};
    opts.user = s->req.user;
    s->store.patch(s->info.namespace_, s->info.name, applier, opts,
                   [s, applier, status, attempt](const meta::Status* e,
                                                 std::string_view applied) {
                       if (e && e->code == 404 && !status) {
                           createApplied(s, applier, attempt);
                           return;
                       }
                       respondApplied(s, 200, e, applied);
                   });
}

}  // namespace

}  // namespace kube::endpoints
