#include <map>
#include <optional>
#include <string>
#include <utility>

#include "apis/apiregistration/kinds.hpp"
#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"
#include "util/base64.hpp"

namespace kube::apis::apiregistration {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
namespace field = core::field;
namespace json = util::json;
using registry::TableContext;

// kube-apiserver's apiVersionPriorities (its built-in groups, kube 1.33).
const std::map<std::pair<std::string_view, std::string_view>, ApiServicePriority>& priorities() {
    static const std::map<std::pair<std::string_view, std::string_view>, ApiServicePriority> table =
        {
            {{"", "v1"}, {18000, 1}},
            {{"apps", "v1"}, {17800, 15}},
            {{"events.k8s.io", "v1"}, {17750, 15}},
            {{"authentication.k8s.io", "v1"}, {17700, 15}},
            {{"authorization.k8s.io", "v1"}, {17600, 15}},
            {{"autoscaling", "v1"}, {17500, 15}},
            {{"autoscaling", "v2"}, {17500, 30}},
            {{"batch", "v1"}, {17400, 15}},
            {{"certificates.k8s.io", "v1"}, {17300, 15}},
            {{"networking.k8s.io", "v1"}, {17200, 15}},
            {{"policy", "v1"}, {17100, 15}},
            {{"rbac.authorization.k8s.io", "v1"}, {17000, 15}},
            {{"storage.k8s.io", "v1"}, {16800, 15}},
            {{"storage.k8s.io", "v1beta1"}, {16800, 9}},
            {{"apiextensions.k8s.io", "v1"}, {16700, 15}},
            {{"admissionregistration.k8s.io", "v1"}, {16700, 15}},
            {{"scheduling.k8s.io", "v1"}, {16600, 15}},
            {{"coordination.k8s.io", "v1"}, {16500, 15}},
            {{"node.k8s.io", "v1"}, {16300, 15}},
            {{"discovery.k8s.io", "v1"}, {16200, 15}},
            {{"flowcontrol.apiserver.k8s.io", "v1"}, {16100, 21}},
            {{"flowcontrol.apiserver.k8s.io", "v1beta3"}, {16100, 18}},
            {{"flowcontrol.apiserver.k8s.io", "v1beta2"}, {16100, 15}},
        };
    return table;
}

// SetDefaults_ServiceReference.
void defaultApiService(json::Value& obj, json::Allocator& a) {
    json::Value* spec = json::member(obj, "spec");
    json::Value* service = spec && spec->IsObject() ? json::member(*spec, "service") : nullptr;
    if (service && service->IsObject()) {
        defaulting::setInt(*service, "port", 443, a);
    }
}

int64_t integerAt(const json::Value& spec, std::string_view name) {
    const json::Value* v = json::member(spec, name);
    return v && v->IsInt64() ? v->GetInt64() : 0;
}

// The byte count of caBundle (base64 in JSON).
size_t caBundleBytes(const json::Value& spec) {
    const json::Value* v = json::member(spec, "caBundle");
    if (!v || !v->IsString()) {
        return 0;
    }
    std::optional<std::string> decoded = util::decodeBase64(json::view(*v));
    return decoded ? decoded->size() : v->GetStringLength();
}

// ValidateAPIService (the metadata checks but the name's are the store's).
field::Causes validateApiService(const json::Value& obj) {
    field::Causes out;
    static const json::Value kEmpty(rapidjson::kObjectType);
    const json::Value* specValue = json::member(obj, "spec");
    const json::Value& spec = specValue && specValue->IsObject() ? *specValue : kEmpty;
    std::string_view group = cells::text(spec, {"group"});
    std::string_view version = cells::text(spec, {"version"});
    // The name must be version.group (after the path segment checks the store made).
    std::string_view name = cells::text(obj, {"metadata", "name"});
    std::string required = std::string(version) + "." + std::string(group);
    if (registry::validation::isValidPathSegmentName(name).empty() && name != required) {
        out.push_back(field::invalid(
            "metadata.name", name,
            "must be `spec.version+\".\"+spec.group`: " + registry::validation::goQuote(required)));
    }
    if (group.empty() && version != "v1") {
        out.push_back(field::required("spec.group",
                                      "only v1 may have an empty group and it better be legacy "
                                      "kube"));
    }
    if (!group.empty()) {
        for (const std::string& msg : registry::validation::isDNS1123Subdomain(group)) {
            out.push_back(field::invalid("spec.group", group, msg));
        }
    }
    for (const std::string& msg : registry::validation::isDNS1035Label(version)) {
        out.push_back(field::invalid("spec.version", version, msg));
    }
    int64_t groupPriority = integerAt(spec, "groupPriorityMinimum");
    if (groupPriority <= 0 || groupPriority > 20000) {
        out.push_back(field::invalid("spec.groupPriorityMinimum", groupPriority,
                                     "must be positive and less than 20000"));
    }
    int64_t versionPriority = integerAt(spec, "versionPriority");
    if (versionPriority <= 0 || versionPriority > 1000) {
        out.push_back(field::invalid("spec.versionPriority", versionPriority,
                                     "must be positive and less than 1000"));
    }
    bool insecure = cells::isTrue(spec, {"insecureSkipTLSVerify"});
    size_t bundle = caBundleBytes(spec);
    const json::Value* service = json::member(spec, "service");
    if (!service || !service->IsObject()) {
        if (bundle != 0) {
            out.push_back(field::invalid("spec.caBundle", std::to_string(bundle) + " bytes",
                                         "local APIServices may not have a caBundle"));
        }
        if (insecure) {
            out.push_back(field::invalid("spec.insecureSkipTLSVerify", true,
                                         "local APIServices may not have insecureSkipTLSVerify"));
        }
        return out;
    }
    if (cells::text(*service, {"namespace"}).empty()) {
        out.push_back(field::required("spec.service.namespace"));
    }
    if (cells::text(*service, {"name"}).empty()) {
        out.push_back(field::required("spec.service.name"));
    }
    int64_t port = integerAt(*service, "port");
    if (port < 1 || port > 65535) {
        out.push_back(field::invalid("spec.service.port", port,
                                     "port is not valid: must be between 1 and 65535, inclusive"));
    }
    if (insecure && bundle > 0) {
        out.push_back(field::invalid("spec.insecureSkipTLSVerify", true,
                                     "may not be true if caBundle is present"));
    }
    return out;
}

// ValidateAPIServiceStatus: every condition's status is True, False or Unknown.
field::Causes validateApiServiceStatus(const json::Value& obj, const json::Value&) {
    field::Causes out;
    const json::Value* status = json::member(obj, "status");
    const json::Value* conds =
        status && status->IsObject() ? json::member(*status, "conditions") : nullptr;
    if (!conds || !conds->IsArray()) {
        return out;
    }
    for (size_t i = 0; i < conds->Size(); i++) {
        const json::Value& c = (*conds)[static_cast<rapidjson::SizeType>(i)];
        std::string_view s = cells::text(c, {"status"});
        if (s != "True" && s != "False" && s != "Unknown") {
            out.push_back(
                field::notSupported(field::child(field::index("status.conditions", i), "status"), s,
                                    {"True", "False", "Unknown"}));
        }
    }
    return out;
}

// The printer's Available cell: "True", "False (<reason>)", or "Unknown" without a condition.
std::string availableCell(const json::Value& obj) {
    const json::Value* status = json::member(obj, "status");
    const json::Value* conds =
        status && status->IsObject() ? json::member(*status, "conditions") : nullptr;
    if (conds && conds->IsArray()) {
        for (const json::Value& c : conds->GetArray()) {
            if (cells::text(c, {"type"}) != "Available") {
                continue;
            }
            std::string s(cells::text(c, {"status"}));
            if (s == "True") {
                return s;
            }
            return s + " (" + std::string(cells::text(c, {"reason"})) + ")";
        }
    }
    return "Unknown";
}

std::string serviceCell(const json::Value& obj) {
    const json::Value* spec = json::member(obj, "spec");
    const json::Value* service =
        spec && spec->IsObject() ? json::member(*spec, "service") : nullptr;
    if (!service || !service->IsObject()) {
        return "Local";
    }
    return std::string(cells::text(*service, {"namespace"})) + "/" +
           std::string(cells::text(*service, {"name"}));
}

}  // namespace

ApiServicePriority apiServicePriority(std::string_view group, std::string_view version,
                                      bool builtin) {
    if (!builtin) {
        return {1000, 100};
    }
    auto it = priorities().find({group, version});
    return it == priorities().end() ? ApiServicePriority{} : it->second;
}

registry::KindInfo apiServiceKind() {
    registry::KindInfo k;
    k.group = "apiregistration.k8s.io";
    k.version = "v1";
    k.kind = "APIService";
    k.resource = "apiservices";
    k.singular = "apiservice";
    k.namespaced = false;
    k.categories = {"api-extensions"};
    k.nameRule = registry::NameRule::PathSegment;
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn(
            "Service", "string", "The reference to the service that hosts this API endpoint.",
            [](const json::Value& obj, const TableContext&) { return serviceCell(obj); }),
        cells::textColumn(
            "Available", "string", "Whether this service is available.",
            [](const json::Value& obj, const TableContext&) { return availableCell(obj); }),
        cells::ageColumn(),
    };
    k.defaults = defaultApiService;
    k.validate = validateApiService;
    k.validateStatusUpdate = validateApiServiceStatus;
    return k;
}

}  // namespace kube::apis::apiregistration
