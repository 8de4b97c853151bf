#include "endpoints/decode.hpp"
#include "endpoints/field_validation.hpp"
#include "endpoints/handlers/scope.hpp"
#include "endpoints/warning.hpp"
#include "registry/validation.hpp"

namespace kube::endpoints {

bool parseDryRun(const util::Query& q, std::string_view optionsKind, meta::Status* error,
                 bool* dryRun) {
    *dryRun = false;
    std::vector<std::string> values = q.values("dryRun");
    for (const std::string& v : values) {
        if (v != "All") {
            std::string list;
            for (const std::string& each : values) {
                list += (list.empty() ? "" : ", ") + registry::validation::goQuote(each);
            }
            *error = meta::Status::invalid(
                {"meta.k8s.io", std::string(optionsKind)}, "",
                {{"FieldValueNotSupported",
                  "Unsupported value: []string{" + list + "}: supported values: \"All\"",
                  "dryRun"}});
            return false;
        }
        *dryRun = true;
    }
    return true;
}

std::shared_ptr<util::json::Document> readRequestObject(const Scope& s,
                                                        std::string_view optionsKind,
                                                        bool* dryRun) {
    return readRequestObject(s, s->store.kind(), optionsKind, dryRun);
}

std::shared_ptr<util::json::Document> readRequestObject(const Scope& s,
                                                        const registry::KindInfo& kind,
                                                        std::string_view optionsKind,
                                                        bool* dryRun) {
    meta::Status err;
    auto form = negotiateInput(s->req.contentType, &err);
    std::optional<FieldValidation> validation;
    if (!form || !parseDryRun(s->query, optionsKind, &err, dryRun) ||
        !(validation = parseFieldValidation(s->query, optionsKind, &err))) {
        s->fail(err);
        return nullptr;
    }
    // Custom resources have no protobuf form (kube-apiserver 1.26.5 panics
    // on such a body; a 415 says what it takes).
    if (*form == InputForm::Protobuf && kind.custom) {
        s->fail(meta::Status::unsupportedMediaType(
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json, application/yaml"));
        return nullptr;
    }
    auto obj = decodeObject(s->req.body, *form, kind, &err);
    if (!obj) {
        s->fail(err);
        return nullptr;
    }
    SchemaCheck check = checkAgainstSchema(*obj, obj->GetAllocator(), kind);
    // A protobuf body decodes only into the kind's fields, of their types:
    // the walk only parsed its quantities (and rounded its ResourceLists).
    if (*form == InputForm::Protobuf && !check.typeError) {
        return obj;
    }
    std::string cannotHandle = kind.kind + " in version \"" + kind.version +
                               "\" cannot be handled as a " + kind.kind + ": ";
    if (check.typeError) {
        s->fail(meta::Status::badRequest(cannotHandle + *check.typeError));
        return nullptr;
    }
    if (check.strictErrors.empty() || *validation == FieldValidation::Ignore) {
        return obj;
    }
    if (*validation == FieldValidation::Strict) {
        std::string all;
        for (const std::string& e : check.strictErrors) {
            all += (all.empty() ? "" : ", ") + e;
        }
        s->fail(meta::Status::badRequest(cannotHandle + "strict decoding error: " + all));
        return nullptr;
    }
    // Warn: every answer to this request carries a Warning header per field,
    // as many as kube's recorder lets through.
    s->respond = [respond = std::move(s->respond),
                  headers = warningHeaders(check.strictErrors)](HttpResponse&& r) {
        for (const std::string& h : headers) {
            r.headers.emplace_back("Warning", h);
        }
        respond(std::move(r));
    };
    return obj;
}

}  // namespace kube::endpoints
