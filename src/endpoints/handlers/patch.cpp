#include <algorithm>

#include "endpoints/field_validation.hpp"
#include "endpoints/handlers/scope.hpp"
#include "endpoints/protobuf_codec.hpp"
#include "endpoints/warning.hpp"
#include "registry/patch/go_format.hpp"
#include "registry/patch/json_patch.hpp"
#include "registry/patch/merge_patch.hpp"
#include "registry/patch/patch_document.hpp"
#include "registry/patch/strategic_merge_patch.hpp"
#include "registry/validation.hpp"

namespace kube::endpoints {

namespace json = util::json;
namespace patch = registry::patch;
namespace field = registry::validation::field;

namespace {

// The most operations one JSON patch may carry (kube's maxJSONPatchOperations).
constexpr size_t kMaxJsonPatchOperations = 10000;

enum class PatchType { Json, Merge, Strategic };

// The patch types served, in the order kube lists them; server-side apply
// (application/apply-patch+yaml) is served by applyResource.
const char* const kSupportedPatchTypes =
    "application/json-patch+json, application/merge-patch+json, "
    "application/strategic-merge-patch+json, application/apply-patch+yaml";
const char* const kCustomResourcePatchTypes =
    "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";

// The Content-Type without parameters, as kube cuts it (at a ';' that is not
// the first character), matched exactly.
std::string_view mediaTypeOf(std::string_view contentType) {
    size_t semi = contentType.find(';');
    if (semi != std::string_view::npos && semi > 0) {
        contentType = contentType.substr(0, semi);
    }
    return contentType;
}

std::optional<PatchType> patchTypeOf(std::string_view contentType) {
    contentType = mediaTypeOf(contentType);
    if (contentType == "application/json-patch+json") {
        return PatchType::Json;
    }
    if (contentType == "application/merge-patch+json") {
        return PatchType::Merge;
    }
    if (contentType == "application/strategic-merge-patch+json") {
        return PatchType::Strategic;
    }
    return std::nullopt;
}

struct PatchOptions {
    bool dryRun = false;
    FieldValidation validation = FieldValidation::Warn;
};

// Mirrors the decoding of metav1.PatchOptions and ValidatePatchOptions for
// a patch that is not an apply: every problem is one cause of a 422.
bool parsePatchOptions(const util::Query& q, PatchOptions* out, meta::Status* error) {
    std::vector<meta::StatusCause> causes;
    if (auto force = q.get("force")) {
        static const std::vector<std::string_view> kBools = {
            "1", "t", "T", "true", "TRUE", "True", "0", "f", "F", "false", "FALSE", "False"};
        if (std::find(kBools.begin(), kBools.end(), *force) == kBools.end()) {
            *error = meta::Status::badRequest("strconv.ParseBool: parsing " +
                                              registry::validation::goQuote(*force) +
                                              ": invalid syntax");
            return false;
        }
        causes.push_back(field::forbidden("force", "may not be specified for non-apply patch"));
    }
    for (meta::StatusCause& c : fieldManagerCauses(q.get("fieldManager").value_or(""))) {
        causes.push_back(std::move(c));
    }
    meta::Status bad;
    if (!parseDryRun(q, "PatchOptions", &bad, &out->dryRun) && bad.details) {
        causes.insert(causes.end(), bad.details->causes.begin(), bad.details->causes.end());
    }
    if (auto v = parseFieldValidation(q, "PatchOptions", &bad)) {
        out->validation = *v;
    } else if (bad.details) {
        causes.insert(causes.end(), bad.details->causes.begin(), bad.details->causes.end());
    }
    if (!causes.empty()) {
        *error = meta::Status::invalid({"meta.k8s.io", "PatchOptions"}, "", std::move(causes));
        return false;
    }
    return true;
}

// How kube's patch handler answers the patch libraries' errors.
meta::Status statusOf(const patch::Error& e) {
    switch (e.kind) {
        case patch::Error::Kind::BadRequest:
            return meta::Status::badRequest(e.message);
        case patch::Error::Kind::Unprocessable: {
            // errors.NewGenericServerResponse(422, ...) keeps its own message.
            meta::Status s;
            s.code = 422;
            s.reason = "Invalid";
            s.message = "the server rejected our request due to an error in our request";
            s.details = meta::StatusDetails{};
            return s;
        }
        case patch::Error::Kind::Other:
            break;
    }
    // An error that is not an API status: 500 with no reason.
    meta::Status s;
    s.code = 500;
    s.message = e.message;
    return s;
}

// The 422 kube answers when the patched object does not decode:
// `patch: Invalid value: "<patched object>": <why>`.
meta::Status invalidPatch(const registry::validation::BadValue& value, const std::string& why) {
    return meta::Status::invalid({}, "", {field::invalid("patch", value, why)});
}

// What every attempt of one patch request needs.
struct Patcher {
    PatchType type;
    // Shared: the patcher is copied into the update and its attempts.
    std::shared_ptr<const std::string> body;
    bool strict = false;  // Strict or Warn: strict decoding errors are found
    FieldValidation validation = FieldValidation::Warn;
    const registry::KindInfo* kind = nullptr;
    std::string ns;    // the request's namespace ("" for cluster-scoped kinds)
    std::string name;  // the URL's name
    // The last attempt's strict decoding errors, when they are warnings.
    std::shared_ptr<std::vector<std::string>> warnings;

    // Mirrors patcher.applyPatch: the patch on the current object, decoded
    // as the kind (jsonPatcher / smpPatcher.applyPatchToCurrentObject), then
    // the namespace and name checks.
    std::optional<meta::Status> operator()(const json::Value& current, json::Document& out) const {
        std::vector<std::string> strictErrors;
        json::Document smp;
        if (std::optional<meta::Status> failed = apply(current, out, &strictErrors, &smp)) {
            return failed;
        }
        // kube quotes the patched JSON, or for a strategic merge patch the
        // patch as Go prints it. Printed only for an error; the schema check
        // changes `out`, so the patched JSON is made again.
        auto shown = [&] {
            if (type == PatchType::Strategic) {
                return registry::validation::BadValue(patch::goValue(smp));
            }
            json::Document again;
            std::vector<std::string> ignored;
            json::Document unused;
            apply(current, again, &ignored, &unused);
            return registry::validation::BadValue(patch::goMarshal(again));
        };
        if (!out.IsObject()) {
            return invalidPatch(shown(),
                                "json: cannot unmarshal " + std::string(json::typeName(out)) +
                                    " into Go value of type " + kind->version + "." + kind->kind);
        }
        SchemaCheck check = checkAgainstSchema(out, out.GetAllocator(), *kind);
        if (check.typeError) {
            return invalidPatch(shown(), *check.typeError);
        }
        if (strict) {
            strictErrors.insert(strictErrors.end(), check.strictErrors.begin(),
                                check.strictErrors.end());
        }
        warnings->clear();
        if (!strictErrors.empty()) {
            if (validation == FieldValidation::Warn) {
                *warnings = std::move(strictErrors);
            } else {
                std::string all;
                for (const std::string& e : strictErrors) {
                    all += (all.empty() ? "" : ", ") + e;
                }
                return invalidPatch(shown(), "strict decoding error: " + all);
            }
        }
        return checkPatchedNamespaceAndName(out, ns, name);
    }

    // The patch alone on `current`, into `out`.
    std::optional<meta::Status> apply(const json::Value& current, json::Document& out,
                                      std::vector<std::string>* strictErrors,
                                      json::Document* smp) const {
        out.CopyFrom(current, out.GetAllocator());
        std::optional<patch::Error> failed;
        if (type == PatchType::Json) {
            patch::Error err;
            auto p = patch::JsonPatch::decode(*body, strict, strictErrors, &err);
            if (!p) {
                return statusOf(err);
            }
            if (p->size() > kMaxJsonPatchOperations) {
                return meta::Status::requestEntityTooLarge(
                    "Request entity too large: The allowed maximum operations in a JSON patch "
                    "is " +
                    std::to_string(kMaxJsonPatchOperations) + ", got " + std::to_string(p->size()));
            }
            failed = p->apply(out);
        } else if (type == PatchType::Merge) {
            failed = patch::applyMergePatch(out, *body, strict, strictErrors);
        } else {
            patch::PatchSchema schema(protobufSchema(kind->apiVersion(), kind->kind));
            failed = patch::applyStrategicMergePatch(out, *body, schema, strict, strictErrors, smp);
        }
        if (failed) {
            return statusOf(*failed);
        }
        return std::nullopt;
    }
};

}  // namespace

bool isApplyPatch(std::string_view contentType) {
    return mediaTypeOf(contentType) == "application/apply-patch+yaml";
}

std::optional<meta::Status> checkPatchedNamespaceAndName(json::Document& obj, const std::string& ns,
                                                         const std::string& name) {
    auto& a = obj.GetAllocator();
    json::Value* metadata = json::member(obj, "metadata");
    if (!metadata || !metadata->IsObject()) {
        json::setMember(obj, "metadata", json::Value(rapidjson::kObjectType), a);
        metadata = json::member(obj, "metadata");
    }
    std::string objNs(json::stringMember(*metadata, "namespace"));
    if (objNs != ns) {
        if (objNs.empty()) {
            json::setMember(*metadata, "namespace", json::stringValue(ns, a), a);
        } else if (ns.empty()) {
            json::removeMember(*metadata, "namespace");
        } else {
            return meta::Status::badRequest(
                "the namespace of the provided object does not match the namespace sent "
                "on the request");
        }
    }
    std::string_view objName = json::stringMember(*metadata, "name");
    if (objName != name) {
        return meta::Status::badRequest("the name of the object (" + std::string(objName) +
                                        ") does not match the name on the URL (" + name + ")");
    }
    return std::nullopt;
}

std::optional<RequestPatch> readRequestPatch(const Scope& s, const registry::KindInfo& kind) {
    std::optional<PatchType> type = patchTypeOf(s->req.contentType);
    // Custom resources have no patch strategies: kube's crdHandler serves
    // JSON, merge and apply patches only (the scale subresource's too).
    bool custom = s->store.kind().custom != nullptr;
    if (!type || (custom && *type == PatchType::Strategic)) {
        s->fail(meta::Status::unsupportedMediaType(
            std::string("the body of the request was in an unknown format - accepted media types "
                        "include: ") +
            (custom ? kCustomResourcePatchTypes : kSupportedPatchTypes)));
        return std::nullopt;
    }
    PatchOptions opts;
    meta::Status err;
    if (!parsePatchOptions(s->query, &opts, &err)) {
        s->fail(err);
        return std::nullopt;
    }
    Patcher patcher;
    patcher.type = *type;
    patcher.body = std::make_shared<const std::string>(s->req.body);
    patcher.validation = opts.validation;
    patcher.strict = opts.validation != FieldValidation::Ignore;
    patcher.kind = &kind;
    patcher.ns = kind.namespaced ? s->info.namespace_ : std::string();
    patcher.name = s->info.name;
    patcher.warnings = std::make_shared<std::vector<std::string>>();
    RequestPatch out;
    out.warnings = patcher.warnings;
    out.apply = std::move(patcher);
    out.dryRun = opts.dryRun;
    std::string manager = s->query.get("fieldManager").value_or("");
    out.manager = manager.empty() ? managerFromUserAgent(s->req.userAgent) : manager;
    out.mayGrow = *type == PatchType::Json && patch::JsonPatch::mayCopy(s->req.body);
    return out;
}

// Mirrors handlers.PatchResource for JSON, merge and strategic merge
// patches: the patch is applied to the stored object inside the store's
// guaranteed update, then the result goes through what an update does (the
// status strategy's, for the status subresource).
void patchResource(Scope s) {
    if (isApplyPatch(s->req.contentType)) {
        applyResource(std::move(s));
        return;
    }
    std::optional<RequestPatch> patch = readRequestPatch(s, s->store.kind());
    if (!patch) {
        return;
    }
    auto warnings = patch->warnings;
    const std::string& sub = s->info.subresource;
    registry::UpdateOptions opts{patch->dryRun, !sub.empty(), s->req.body.size(), patch->mayGrow};
    opts.subresource = sub == "status" ? "" : sub;
    opts.user = s->req.user;
    opts.manager = patch->manager;
    s->store.patch(s->info.namespace_, s->info.name, patch->apply, opts,
                   [s, warnings](const meta::Status* e, std::string_view patched) {
                       if (e) {
                           s->fail(*e);
                           return;
                       }
                       std::vector<std::pair<std::string, std::string>> headers;
                       for (const std::string& h : warningHeaders(*warnings)) {
                           headers.emplace_back("Warning", h);
                       }
                       respondObject(s, 200, patched, std::move(headers));
                   });
}

}  // namespace kube::endpoints
