#include "endpoints/decode.hpp"
#include "endpoints/handlers/scope.hpp"
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
    meta::Status err;
    auto form = negotiateInput(s->req.contentType, &err);
    if (!form || !parseDryRun(s->query, optionsKind, &err, dryRun)) {
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
