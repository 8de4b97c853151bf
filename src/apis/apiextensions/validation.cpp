#include "apis/apiextensions/validation.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "apis/apiextensions/cel_rules.hpp"
#include "apis/apiextensions/default_validation.hpp"
#include "apis/apiextensions/json_members.hpp"
#include "apis/apiextensions/schema_validation.hpp"

namespace kube::apis::apiextensions {

namespace {

namespace json = util::json;
namespace field = core::field;
using field::BadValue;
using field::Causes;
using registry::validation::goQuote;

constexpr std::string_view kApprovalAnnotation = "api-approved.kubernetes.io";

std::string joinErrors(const std::vector<std::string>& errs) {
    std::string out;
    for (const std::string& e : errs) {
        out += out.empty() ? e : "," + e;
    }
    return out;
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// What the v1 → internal conversion moves to the top level: a schema,
// subresources or printer columns that every version carries alike.
struct Hoisted {
    bool schema = false;
    bool subresources = false;
    bool columns = false;
};

Hoisted hoisted(const json::Value* versions) {
    Hoisted h;
    if (!versions || versions->Empty()) {
        return h;
    }
    const json::Value& first = (*versions)[0];
    auto same = [&](std::string_view name, bool nonEmptyList) {
        const json::Value* value = member(&first, name);
        for (const json::Value& v : versions->GetArray()) {
            const json::Value* mine = member(&v, name);
            if (!mine || (nonEmptyList && (!mine->IsArray() || mine->Empty())) || !value ||
                *mine != *value) {
                return false;
            }
        }
        return true;
    };
    h.schema = same("schema", false);
    h.subresources = same("subresources", false);
    h.columns = same("additionalPrinterColumns", true);
    return h;
}

// Go's %#v of a *T field: nil, or some address (which no client can use).
std::string goPointer(std::string_view type, const json::Value* v) {
    return "(*" + std::string(type) + ")(" + (v ? "0xc000000000" : "nil") + ")";
}

std::string goColumns(const json::Value* columns) {
    if (!columns || !columns->IsArray() || columns->Empty()) {
        return "[]apiextensions.CustomResourceColumnDefinition(nil)";
    }
    std::string out = "[]apiextensions.CustomResourceColumnDefinition{";
    for (rapidjson::SizeType i = 0; i < columns->Size(); ++i) {
        const json::Value* c = &(*columns)[i];
        const json::Value* priority = member(c, "priority");
        out += i ? ", " : "";
        out += "apiextensions.CustomResourceColumnDefinition{Name:" + goQuote(text(c, "name")) +
               ", Type:" + goQuote(text(c, "type")) + ", Format:" + goQuote(text(c, "format")) +
               ", Description:" + goQuote(text(c, "description")) + ", Priority:" +
               std::to_string(priority && priority->IsInt() ? priority->GetInt() : 0) +
               ", JSONPath:" + goQuote(text(c, "jsonPath")) + "}";
    }
    return out + "}";
}

// Go's %#v of an internal CustomResourceDefinitionVersion.
std::string goVersion(const json::Value& v, const Hoisted& h) {
    auto flag = [&](std::string_view name) { return isTrue(&v, name) ? "true" : "false"; };
    return "apiextensions.CustomResourceDefinitionVersion{Name:" + goQuote(text(&v, "name")) +
           ", Served:" + flag("served") + ", Storage:" + flag("storage") +
           ", Deprecated:" + flag("deprecated") +
           ", DeprecationWarning:" + goPointer("string", member(&v, "deprecationWarning")) +
           ", Schema:" +
           goPointer("apiextensions.CustomResourceValidation",
                     h.schema ? nullptr : member(&v, "schema")) +
           ", Subresources:" +
           goPointer("apiextensions.CustomResourceSubresources",
                     h.subresources ? nullptr : member(&v, "subresources")) +
           ", AdditionalPrinterColumns:" +
           goColumns(h.columns ? nullptr : member(&v, "additionalPrinterColumns")) + "}";
}

BadValue goVersions(const json::Value* spec, const Hoisted& h) {
    const json::Value* versions = arrayAt(spec, "versions");
    if (!versions) {
        return BadValue::raw("[]apiextensions.CustomResourceDefinitionVersion(nil)");
    }
    std::string out = "[]apiextensions.CustomResourceDefinitionVersion{";
    for (rapidjson::SizeType i = 0; i < versions->Size(); ++i) {
        out += (i ? ", " : "") + goVersion((*versions)[i], h);
    }
    return BadValue::raw(out + "}");
}

// What the stored CRD allows an update to keep (kube's ValidationOptions).
struct Options {
    bool requireOpenAPISchema = true;
    bool requireValidPropertyType = true;
    bool requireRecognizedConversionReviewVersion = true;
    bool requirePrunedDefaults = true;
};

// Mirrors ValidateCustomResourceDefinitionNames.
void validateNames(const json::Value* names, const std::string& path, Causes& out) {
    auto label = [&](std::string_view member, std::string_view value, bool mixedCase) {
        if (value.empty()) {
            return;
        }
        std::vector<std::string> errs =
            registry::validation::isDNS1035Label(mixedCase ? lower(value) : std::string(value));
        if (!errs.empty()) {
            std::string detail =
                mixedCase ? "may have mixed case, but should otherwise match: " : "";
            out.push_back(
                field::invalid(field::child(path, member), value, detail + joinErrors(errs)));
        }
    };
    label("plural", text(names, "plural"), false);
    label("singular", text(names, "singular"), false);
    label("kind", text(names, "kind"), true);
    label("listKind", text(names, "listKind"), true);
    auto labels = [&](std::string_view member) {
        const json::Value* list = arrayAt(names, member);
        if (!list) {
            return;
        }
        for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
            std::string_view value = (*list)[i].IsString() ? json::view((*list)[i]) : "";
            std::vector<std::string> errs = registry::validation::isDNS1035Label(value);
            if (!errs.empty()) {
                out.push_back(field::invalid(field::index(field::child(path, member), i), value,
                                             joinErrors(errs)));
            }
        }
    };
    labels("shortNames");
    std::string_view kind = text(names, "kind");
    if (!kind.empty() && kind == text(names, "listKind")) {
        out.push_back(field::invalid(field::child(path, "listKind"), kind,
                                     "kind and listKind may not be the same"));
    }
    labels("categories");
}

// validateSimpleJSONPath.
bool simpleJSONPath(std::string_view s, const std::string& path, Causes& out) {
    if (s.empty()) {
        out.push_back(field::invalid(path, s, "must not be empty"));
        return false;
    }
    if (s[0] != '.') {
        out.push_back(field::invalid(path, s, "must be a simple json path starting with ."));
        return false;
    }
    return true;
}

// Mirrors ValidateCustomResourceDefinitionSubresources.
void validateSubresources(const json::Value* subresources, const std::string& path, Causes& out) {
    const json::Value* scale = member(subresources, "scale");
    if (!scale) {
        return;
    }
    auto replicas = [&](std::string_view member, std::string_view prefix, const char* why) {
        std::string at = path + ".scale." + std::string(member);
        std::string_view value = text(scale, member);
        if (value.empty()) {
            out.push_back(field::required(at));
        } else if (simpleJSONPath(value, at, out) && !value.starts_with(prefix)) {
            out.push_back(field::invalid(at, value, why));
        }
    };
    replicas("specReplicasPath", ".spec.", "should be a json path under .spec");
    replicas("statusReplicasPath", ".status.", "should be a json path under .status");
    std::string_view selector = text(scale, "labelSelectorPath");
    std::string at = path + ".scale.labelSelectorPath";
    if (!selector.empty() && simpleJSONPath(selector, at, out) && !selector.starts_with(".spec.") &&
        !selector.starts_with(".status.")) {
        out.push_back(
            field::invalid(at, selector, "should be a json path under either .spec or .status"));
    }
}

// Mirrors ValidateCustomResourceColumnDefinition.
void validateColumn(const json::Value& column, const std::string& path, Causes& out) {
    static const std::set<std::string_view> types = {"boolean", "date", "integer", "number",
                                                     "string"};
    static const std::set<std::string_view> formats = {"byte",  "date",  "date-time", "double",
                                                       "float", "int32", "int64",     "password"};
    if (text(&column, "name").empty()) {
        out.push_back(field::required(field::child(path, "name")));
    }
    std::string_view type = text(&column, "type");
    const char* typesText = "must be one of boolean,date,integer,number,string";
    if (type.empty()) {
        out.push_back(field::required(field::child(path, "type"), typesText));
    } else if (!types.count(type)) {
        out.push_back(field::invalid(field::child(path, "type"), type, typesText));
    }
    std::string_view format = text(&column, "format");
    if (!format.empty() && !formats.count(format)) {
        out.push_back(
            field::invalid(field::child(path, "format"), format,
                           "must be one of byte,date,date-time,double,float,int32,int64,password"));
    }
    std::string_view jsonPath = text(&column, "jsonPath");
    if (jsonPath.empty()) {
        out.push_back(field::required(field::child(path, "JSONPath")));
    } else {
        simpleJSONPath(jsonPath, field::child(path, "JSONPath"), out);
    }
}

void validateColumns(const json::Value* columns, const std::string& path, Causes& out) {
    if (!columns || !columns->IsArray()) {
        return;
    }
    for (rapidjson::SizeType i = 0; i < columns->Size(); ++i) {
        validateColumn((*columns)[i], field::index(path, i), out);
    }
}

// Mirrors ValidateCustomResourceDefinitionValidation on a version's
// CustomResourceValidation (`path` names it).
void validateValidation(const json::Value* validation, bool statusEnabled, const Options& opts,
                        const std::string& path, Causes& out) {
    const json::Value* schema = member(validation, "openAPIV3Schema");
    if (!schema) {
        return;
    }
    SchemaOptions schemaOpts;
    schemaOpts.statusEnabled = statusEnabled;
    schemaOpts.requireValidPropertyType = opts.requireValidPropertyType;
    schemaOpts.requirePrunedDefaults = opts.requirePrunedDefaults;
    size_t before = out.size();
    validateSchema(*schema, path + ".openAPIV3Schema", schemaOpts, out);
    // kube compiles the rules of a schema without errors (CEL errors on a
    // broken schema would not help).
    if (out.size() == before) {
        compileCelRules(*schema, path + ".openAPIV3Schema", &out);
    }
}

bool statusEnabled(const json::Value* subresources) {
    return member(subresources, "status") != nullptr;
}

// ValidateDeprecationWarning.
void validateDeprecationWarning(const json::Value& version, const std::string& path, Causes& out) {
    const json::Value* warning = member(&version, "deprecationWarning");
    if (!warning || !warning->IsString()) {
        return;
    }
    std::string_view w = json::view(*warning);
    std::string at = field::child(path, "deprecationWarning");
    if (!isTrue(&version, "deprecated")) {
        out.push_back(field::invalid(at, w, "can only be set for deprecated versions"));
        return;
    }
    if (w.size() > 256) {
        out.push_back(field::invalid(at, w, "must be <= 256 characters long"));
    }
    if (w.empty()) {
        out.push_back(field::invalid(at, w, "must not be an empty string"));
    }
    for (size_t i = 0; i < w.size(); ++i) {
        auto c = static_cast<unsigned char>(w[i]);
        if (c < 0x20 || c == 0x7f) {
            out.push_back(field::invalid(at, w,
                                         "must only contain printable UTF-8 characters; control "
                                         "character found at index " +
                                             std::to_string(i)));
            break;
        }
    }
}

// validation.IsValidPortNum, as the webhook service's port error words it.
bool validPort(const json::Value* port) {
    return port && port->IsInt64() && port->GetInt64() >= 1 && port->GetInt64() <= 65535;
}

// ValidateWebhookURL with https required, on a URL split the way Go's
// url.Parse splits it (scheme, user info, host, query, fragment).
void validateWebhookURL(std::string_view url, const std::string& path, Causes& out) {
    constexpr std::string_view form = "; desired format: https://host[/path]";
    std::string_view rest = url;
    std::string_view fragment;
    if (size_t hash = rest.find('#'); hash != std::string_view::npos) {
        fragment = rest.substr(hash + 1);
        rest = rest.substr(0, hash);
    }
    std::string_view scheme;
    size_t colon = rest.find(':');
    if (colon != std::string_view::npos && colon > 0 &&
        std::isalpha(static_cast<unsigned char>(rest[0]))) {
        bool ok = true;
        for (char c : rest.substr(0, colon)) {
            ok = ok &&
                 (std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.');
        }
        if (ok) {
            scheme = rest.substr(0, colon);
            rest = rest.substr(colon + 1);
        }
    }
    std::string_view query;
    if (size_t q = rest.find('?'); q != std::string_view::npos) {
        query = rest.substr(q + 1);
        rest = rest.substr(0, q);
    }
    std::string_view host;
    std::string_view user;
    bool hasUser = false;
    if (rest.starts_with("//")) {
        std::string_view authority = rest.substr(2, rest.find('/', 2) - 2);
        if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
            hasUser = true;
            user = authority.substr(0, at);
            authority = authority.substr(at + 1);
        }
        host = authority;
    }
    if (lower(scheme) != "https") {
        out.push_back(field::invalid(path, lower(scheme),
                                     "'https' is the only allowed URL scheme" + std::string(form)));
    }
    if (host.empty()) {
        out.push_back(field::invalid(path, host, "host must be specified" + std::string(form)));
    }
    if (hasUser) {
        out.push_back(field::invalid(path, user, "user information is not permitted in the URL"));
    }
    if (!fragment.empty()) {
        out.push_back(field::invalid(path, fragment, "fragments are not permitted in the URL"));
    }
    if (!query.empty()) {
        out.push_back(field::invalid(path, query, "query parameters are not permitted in the URL"));
    }
}

// ValidateWebhookService.
void validateWebhookService(const json::Value* service, const std::string& path, Causes& out) {
    if (text(service, "name").empty()) {
        out.push_back(field::required(field::child(path, "name"), "service name is required"));
    }
    if (text(service, "namespace").empty()) {
        out.push_back(
            field::required(field::child(path, "namespace"), "service namespace is required"));
    }
    const json::Value* port = member(service, "port");
    if (port && !validPort(port)) {
        out.push_back(field::invalid(field::child(path, "port"), BadValue(*port),
                                     "port is not valid: must be between 1 and 65535, inclusive"));
    }
    const json::Value* p = member(service, "path");
    if (!p || !p->IsString()) {
        return;
    }
    std::string_view urlPath = json::view(*p);
    if (urlPath == "/" || urlPath.empty()) {
        return;
    }
    std::string at = field::child(path, "path");
    if (urlPath == "//") {
        out.push_back(field::invalid(at, urlPath, "segment[0] may not be empty"));
    }
    if (!urlPath.starts_with("/")) {
        out.push_back(field::invalid(at, urlPath, "must start with a '/'"));
    }
    std::string_view check = urlPath.substr(1);
    if (check.ends_with("/")) {
        check.remove_suffix(1);
    }
    size_t i = 0;
    for (size_t from = 0;; ++i) {
        size_t slash = check.find('/', from);
        std::string_view step =
            check.substr(from, slash == std::string_view::npos ? slash : slash - from);
        if (step.empty()) {
            out.push_back(
                field::invalid(at, urlPath, "segment[" + std::to_string(i) + "] may not be empty"));
        } else {
            for (const std::string& failure : registry::validation::isDNS1123Subdomain(step)) {
                out.push_back(
                    field::invalid(at, urlPath, "segment[" + std::to_string(i) + "]: " + failure));
            }
        }
        if (slash == std::string_view::npos) {
            break;
        }
        from = slash + 1;
    }
}

bool acceptedReviewVersion(std::string_view v) {
    return v == "v1" || v == "v1beta1";
}

// Mirrors validateCustomResourceConversion on the v1 form: the internal
// webhookClientConfig and conversionReviewVersions are v1's
// webhook.clientConfig and webhook.conversionReviewVersions.
void validateConversion(const json::Value* spec, const Options& opts, Causes& out) {
    const json::Value* conversion = member(spec, "conversion");
    if (!conversion) {
        return;
    }
    const std::string path = "spec.conversion";
    std::string_view strategy = text(conversion, "strategy");
    if (!strategy.empty() && strategy != "None" && isTrue(spec, "preserveUnknownFields")) {
        out.push_back(field::invalid(path + ".strategy", strategy,
                                     "must be None if spec.preserveUnknownFields is true"));
    }
    if (strategy.empty()) {
        out.push_back(field::required(path + ".strategy"));
    } else if (strategy != "None" && strategy != "Webhook") {
        out.push_back(field::notSupported(path + ".strategy", strategy, {"None", "Webhook"}));
    }
    const json::Value* webhook = member(conversion, "webhook");
    const json::Value* clientConfig = member(webhook, "clientConfig");
    const json::Value* reviewVersions = arrayAt(webhook, "conversionReviewVersions");
    std::string configPath = path + ".webhookClientConfig";
    std::string versionsPath = path + ".conversionReviewVersions";
    if (strategy != "Webhook") {
        if (clientConfig) {
            out.push_back(field::forbidden(
                configPath, "should not be set when strategy is not set to Webhook"));
        }
        if (reviewVersions && !reviewVersions->Empty()) {
            out.push_back(field::forbidden(
                versionsPath, "should not be set when strategy is not set to Webhook"));
        }
        return;
    }
    if (!clientConfig) {
        out.push_back(field::required(configPath, "required when strategy is set to Webhook"));
    } else {
        const json::Value* url = member(clientConfig, "url");
        const json::Value* service = member(clientConfig, "service");
        if (!url == !service) {
            out.push_back(field::required(configPath, "exactly one of url or service is required"));
        } else if (url) {
            validateWebhookURL(url->IsString() ? json::view(*url) : "", configPath + ".url", out);
        } else {
            validateWebhookService(service, configPath + ".service", out);
        }
    }
    if (!reviewVersions || reviewVersions->Empty()) {
        out.push_back(field::required(versionsPath));
        return;
    }
    std::set<std::string_view> seen;
    bool accepted = false;
    for (rapidjson::SizeType i = 0; i < reviewVersions->Size(); ++i) {
        const json::Value& item = (*reviewVersions)[i];
        std::string_view v = item.IsString() ? json::view(item) : "";
        std::string at = field::index(versionsPath, i);
        if (!seen.insert(v).second) {
            out.push_back(field::invalid(at, v, "duplicate version"));
            continue;
        }
        for (const std::string& e : registry::validation::isDNS1035Label(v)) {
            out.push_back(field::invalid(at, v, e));
        }
        accepted = accepted || acceptedReviewVersion(v);
    }
    if (opts.requireRecognizedConversionReviewVersion && !accepted) {
        out.push_back(field::invalid(versionsPath, field::goStringList(reviewVersions),
                                     "must include at least one of v1, v1beta1"));
    }
}

// Mirrors validateCustomResourceDefinitionSpec.
void validateSpec(const json::Value* spec, const Options& opts, Causes& out) {
    std::string_view group = text(spec, "group");
    if (group.empty()) {
        out.push_back(field::required("spec.group"));
    } else if (auto errs = registry::validation::isDNS1123Subdomain(group); !errs.empty()) {
        out.push_back(field::invalid("spec.group", group, joinErrors(errs)));
    } else if (group.find('.') == std::string_view::npos) {
        out.push_back(
            field::invalid("spec.group", group, "should be a domain with at least one dot"));
    }
    std::string_view scope = text(spec, "scope");
    if (scope.empty()) {
        out.push_back(field::required("spec.scope"));
    } else if (scope != "Cluster" && scope != "Namespaced") {
        out.push_back(field::notSupported("spec.scope", scope, {"Cluster", "Namespaced"}));
    }

    const json::Value* versions = arrayAt(spec, "versions");
    Hoisted h = hoisted(versions);
    rapidjson::SizeType n = versions ? versions->Size() : 0;
    if (opts.requireOpenAPISchema && !h.schema) {
        for (rapidjson::SizeType i = 0; i < n; ++i) {
            if (!member(member(&(*versions)[i], "schema"), "openAPIV3Schema")) {
                out.push_back(field::required(
                    "spec.versions[" + std::to_string(i) + "].schema.openAPIV3Schema",
                    "schemas are required"));
            }
        }
    }
    bool hasDefaults = false;
    for (rapidjson::SizeType i = 0; i < n; ++i) {
        const json::Value* schema = member(member(&(*versions)[i], "schema"), "openAPIV3Schema");
        hasDefaults = hasDefaults || (schema && schemaHasDefaults(*schema));
    }
    if (hasDefaults && isTrue(spec, "preserveUnknownFields")) {
        out.push_back(field::invalid("spec.preserveUnknownFields", true,
                                     "must be false in order to use defaults in the schema"));
    }

    int storage = 0;
    std::set<std::string_view> names;
    bool unique = true;
    bool anyStatus = false;
    for (rapidjson::SizeType i = 0; i < n; ++i) {
        const json::Value& v = (*versions)[i];
        std::string path = field::index("spec.versions", i);
        storage += isTrue(&v, "storage") ? 1 : 0;
        std::string_view name = text(&v, "name");
        unique = names.insert(name).second && unique;
        if (auto errs = registry::validation::isDNS1035Label(name); !errs.empty()) {
            out.push_back(field::invalid(field::child(path, "name"), name, joinErrors(errs)));
        }
        bool status = statusEnabled(member(&v, "subresources"));
        anyStatus = anyStatus || status;
        validateDeprecationWarning(v, path, out);
        if (!h.schema) {
            validateValidation(member(&v, "schema"), status, opts, field::child(path, "schema"),
                               out);
        }
        if (!h.subresources) {
            validateSubresources(member(&v, "subresources"), field::child(path, "subresources"),
                                 out);
        }
        if (!h.columns) {
            validateColumns(member(&v, "additionalPrinterColumns"),
                            field::child(path, "additionalPrinterColumns"), out);
        }
    }
    if (!unique) {
        out.push_back(field::invalid("spec.versions", goVersions(spec, h),
                                     "must contain unique version names"));
    }
    if (storage != 1) {
        out.push_back(field::invalid("spec.versions", goVersions(spec, h),
                                     "must have exactly one version marked as storage version"));
    }
    // The internal spec.version is the first version's name.
    if (n > 0) {
        std::string_view first = text(&(*versions)[0], "name");
        if (auto errs = registry::validation::isDNS1035Label(first);
            !first.empty() && !errs.empty()) {
            out.push_back(field::invalid("spec.version", first, joinErrors(errs)));
        }
    }

    const json::Value* specNames = member(spec, "names");
    for (std::string_view required : {"plural", "singular", "kind", "listKind"}) {
        if (text(specNames, required).empty()) {
            out.push_back(field::required("spec.names." + std::string(required)));
        }
    }
    validateNames(specNames, "spec.names", out);
    if (h.schema) {
        validateValidation(member(&(*versions)[0], "schema"), anyStatus, opts, "spec.validation",
                           out);
    }
    if (h.subresources) {
        validateSubresources(member(&(*versions)[0], "subresources"), "spec.subresources", out);
    }
    if (h.columns) {
        validateColumns(member(&(*versions)[0], "additionalPrinterColumns"),
                        "spec.additionalPrinterColumns", out);
    }
    validateConversion(spec, opts, out);
}

// Mirrors ValidateCustomResourceDefinitionStoredVersions.
void validateStoredVersions(const json::Value& crd, Causes& out) {
    const json::Value* spec = member(&crd, "spec");
    const json::Value* stored = arrayAt(member(&crd, "status"), "storedVersions");
    const std::string path = "status.storedVersions";
    if (!stored || stored->Empty()) {
        out.push_back(field::invalid(path, field::goStringList(stored),
                                     "must have at least one stored version"));
        return;
    }
    std::map<std::string_view, size_t> remaining;
    for (rapidjson::SizeType i = 0; i < stored->Size(); ++i) {
        remaining[(*stored)[i].IsString() ? json::view((*stored)[i]) : ""] = i;
    }
    const json::Value* versions = arrayAt(spec, "versions");
    Hoisted h = hoisted(versions);
    if (versions) {
        for (const json::Value& v : versions->GetArray()) {
            std::string_view name = text(&v, "name");
            auto it = remaining.find(name);
            if (isTrue(&v, "storage") && it == remaining.end()) {
                out.push_back(field::invalid(path, BadValue::raw(goVersion(v, h)),
                                             "must have the storage version " + std::string(name)));
            }
            if (it != remaining.end()) {
                remaining.erase(it);
            }
        }
    }
    // kube walks a Go map here; index order keeps the answer stable.
    std::vector<std::pair<size_t, std::string_view>> left;
    for (const auto& [name, i] : remaining) {
        left.emplace_back(i, name);
    }
    std::sort(left.begin(), left.end());
    for (const auto& [i, name] : left) {
        out.push_back(field::invalid(field::index(path, i), name, "must appear in spec.versions"));
    }
}

// Mirrors validateAPIApproval: groups under k8s.io and kubernetes.io need
// the api-approved.kubernetes.io annotation.
enum class Approval { Missing, Invalid, Bypassed, Approved };

Approval approvalState(const json::Value& crd) {
    const json::Value* value =
        member(member(member(&crd, "metadata"), "annotations"), kApprovalAnnotation);
    if (!value) {
        return Approval::Missing;
    }
    std::string_view v = value->IsString() ? json::view(*value) : "";
    if (v.starts_with("unapproved")) {
        return Approval::Bypassed;
    }
    // url.ParseRequestURI: an absolute URL or an absolute path.
    size_t colon = v.find(':');
    bool absoluteURL = colon != std::string_view::npos && colon > 0 &&
                       std::isalpha(static_cast<unsigned char>(v[0]));
    for (size_t i = 0; absoluteURL && i < colon; ++i) {
        auto c = static_cast<unsigned char>(v[i]);
        absoluteURL = std::isalnum(c) || c == '+' || c == '-' || c == '.';
    }
    return absoluteURL || v.starts_with("/") ? Approval::Approved : Approval::Invalid;
}

void validateAPIApproval(const json::Value& crd, const json::Value* old, Causes& out) {
    std::string_view group = text(member(&crd, "spec"), "group");
    bool isProtected = group == "k8s.io" || group.ends_with(".k8s.io") ||
                       group == "kubernetes.io" || group.ends_with(".kubernetes.io");
    if (!isProtected) {
        return;
    }
    Approval state = approvalState(crd);
    if (old && approvalState(*old) == state) {
        return;
    }
    std::string path = "metadata.annotations[" + std::string(kApprovalAnnotation) + "]";
    if (state == Approval::Invalid) {
        out.push_back(field::invalid(
            path, text(member(member(&crd, "metadata"), "annotations"), kApprovalAnnotation),
            "protected groups must have approval annotation \"api-approved.kubernetes.io\" with "
            "either a URL or a reason starting with \"unapproved\", see "
            "https://github.com/kubernetes/enhancements/pull/1111"));
    } else if (state == Approval::Missing) {
        out.push_back(field::required(path,
                                      "protected groups must have approval annotation "
                                      "\"api-approved.kubernetes.io\", see "
                                      "https://github.com/kubernetes/enhancements/pull/1111"));
    }
}

// Mirrors validatePreserveUnknownFields for v1: it may not become true.
void validatePreserveUnknownFields(const json::Value& crd, const json::Value* old, Causes& out) {
    if (isTrue(member(&crd, "spec"), "preserveUnknownFields") &&
        (!old || !isTrue(member(old, "spec"), "preserveUnknownFields"))) {
        out.push_back(field::invalid("spec.preserveUnknownFields", true,
                                     "cannot set to true, set x-kubernetes-preserve-unknown-fields "
                                     "to true in spec.versions[*].schema instead"));
    }
}

bool established(const json::Value& crd) {
    const json::Value* conditions = arrayAt(member(&crd, "status"), "conditions");
    if (!conditions) {
        return false;
    }
    for (const json::Value& c : conditions->GetArray()) {
        if (text(&c, "type") == "Established" && text(&c, "status") == "True") {
            return true;
        }
    }
    return false;
}

void immutable(const json::Value* spec, const json::Value* oldSpec,
               std::initializer_list<std::string_view> members, Causes& out) {
    const json::Value* now = spec;
    const json::Value* before = oldSpec;
    std::string path = "spec";
    for (std::string_view m : members) {
        now = member(now, m);
        before = member(before, m);
        path += "." + std::string(m);
    }
    std::string_view a = now && now->IsString() ? json::view(*now) : "";
    std::string_view b = before && before->IsString() ? json::view(*before) : "";
    if (a != b) {
        out.push_back(field::invalid(path, a, "field is immutable"));
    }
}

bool allVersionsHaveSchemas(const json::Value* spec) {
    const json::Value* versions = arrayAt(spec, "versions");
    if (!versions) {
        return true;
    }
    for (const json::Value& v : versions->GetArray()) {
        if (!member(member(&v, "schema"), "openAPIV3Schema")) {
            return false;
        }
    }
    return true;
}

bool allSchemasHaveValidTypes(const json::Value* spec) {
    const json::Value* versions = arrayAt(spec, "versions");
    if (!versions) {
        return true;
    }
    for (const json::Value& v : versions->GetArray()) {
        const json::Value* schema = member(member(&v, "schema"), "openAPIV3Schema");
        if (schema && !schemaHasValidTypes(*schema)) {
            return false;
        }
    }
    return true;
}

// Mirrors requirePrunedDefaults: a stored CRD with unpruned defaults may
// keep them.
bool anySchemaHasUnprunedDefaults(const json::Value* spec) {
    const json::Value* versions = arrayAt(spec, "versions");
    if (!versions) {
        return false;
    }
    for (const json::Value& v : versions->GetArray()) {
        const json::Value* schema = member(member(&v, "schema"), "openAPIV3Schema");
        if (schema && schemaHasUnprunedDefaults(*schema)) {
            return true;
        }
    }
    return false;
}

}  // namespace

Causes validateCustomResourceDefinition(const json::Value& crd) {
    Causes out;
    const json::Value* spec = member(&crd, "spec");
    const json::Value* names = member(spec, "names");
    std::string_view name = text(member(&crd, "metadata"), "name");
    if (name != std::string(text(names, "plural")) + "." + std::string(text(spec, "group"))) {
        out.push_back(
            field::invalid("metadata.name", name, "must be spec.names.plural+\".\"+spec.group"));
    }
    validateSpec(spec, Options{}, out);
    validateNames(member(member(&crd, "status"), "acceptedNames"), "status.acceptedNames", out);
    validateStoredVersions(crd, out);
    validateAPIApproval(crd, nullptr, out);
    validatePreserveUnknownFields(crd, nullptr, out);
    return out;
}

Causes validateCustomResourceDefinitionUpdate(const json::Value& crd, const json::Value& old) {
    Causes out;
    const json::Value* spec = member(&crd, "spec");
    const json::Value* oldSpec = member(&old, "spec");
    Options opts;
    opts.requireOpenAPISchema = allVersionsHaveSchemas(oldSpec);
    opts.requireValidPropertyType = allSchemasHaveValidTypes(oldSpec);
    opts.requirePrunedDefaults = !anySchemaHasUnprunedDefaults(oldSpec);
    if (const json::Value* reviewVersions =
            arrayAt(member(member(oldSpec, "conversion"), "webhook"), "conversionReviewVersions")) {
        bool ok = reviewVersions->Empty();
        for (const json::Value& v : reviewVersions->GetArray()) {
            ok = ok || (v.IsString() && acceptedReviewVersion(json::view(v)));
        }
        opts.requireRecognizedConversionReviewVersion = ok;
    }
    validateSpec(spec, opts, out);
    if (established(old)) {
        immutable(spec, oldSpec, {"scope"}, out);
        immutable(spec, oldSpec, {"names", "kind"}, out);
    }
    immutable(spec, oldSpec, {"group"}, out);
    immutable(spec, oldSpec, {"names", "plural"}, out);
    validateNames(member(member(&crd, "status"), "acceptedNames"), "status.acceptedNames", out);
    validateStoredVersions(crd, out);
    validateAPIApproval(crd, &old, out);
    validatePreserveUnknownFields(crd, &old, out);
    return out;
}

Causes validateCustomResourceDefinitionStatus(const json::Value& crd) {
    Causes out;
    validateNames(member(member(&crd, "status"), "acceptedNames"), "status.acceptedNames", out);
    return out;
}

}  // namespace kube::apis::apiextensions
