#include <cctype>
#include <set>
#include <string>
#include <string_view>

#include "apis/admissionregistration/kinds.hpp"
#include "apis/admissionregistration/rules.hpp"
#include "apis/core/defaulting.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::admissionregistration {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
namespace json = util::json;
using registry::validation::goQuote;

constexpr std::string_view kUrlForm = "; desired format: https://host[/path]";

// The parts of a URL that ValidateWebhookURL looks at, as Go's url.Parse splits them.
struct UrlParts {
    std::string error;  // url.Parse's error, when it fails
    std::string scheme;
    std::string user;
    std::string host;
    std::string query;
    std::string fragment;
};

UrlParts parseUrl(std::string_view raw) {
    UrlParts u;
    std::string_view rest = raw;
    if (size_t hash = rest.find('#'); hash != std::string_view::npos) {
        u.fragment = std::string(rest.substr(hash + 1));
        rest = rest.substr(0, hash);
    }
    for (size_t i = 0; i < rest.size(); i++) {
        char c = rest[i];
        if (std::isalpha(static_cast<unsigned char>(c))) {
            continue;
        }
        if (i > 0 &&
            (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.')) {
            continue;
        }
        if (c == ':') {
            if (i == 0) {
                u.error = "parse " + goQuote(raw) + ": missing protocol scheme";
                return u;
            }
            for (char s : rest.substr(0, i)) {
                u.scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(s)));
            }
            rest = rest.substr(i + 1);
        }
        break;
    }
    if (size_t q = rest.find('?'); q != std::string_view::npos) {
        u.query = std::string(rest.substr(q + 1));
        rest = rest.substr(0, q);
    }
    if (rest.substr(0, 2) == "//") {
        std::string_view authority = rest.substr(2);
        authority = authority.substr(0, authority.find('/'));
        if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
            u.user = std::string(authority.substr(0, at));
            authority = authority.substr(at + 1);
        }
        u.host = std::string(authority);
    }
    return u;
}

// webhook.ValidateWebhookURL with https forced.
void validateWebhookUrl(std::string_view url, const std::string& path, field::Causes& out) {
    UrlParts u = parseUrl(url);
    if (!u.error.empty()) {
        out.push_back(
            field::required(path, "url must be a valid URL: " + u.error + std::string(kUrlForm)));
        return;
    }
    if (u.scheme != "https") {
        out.push_back(field::invalid(
            path, u.scheme, "'https' is the only allowed URL scheme" + std::string(kUrlForm)));
    }
    if (u.host.empty()) {
        out.push_back(
            field::invalid(path, u.host, "host must be provided" + std::string(kUrlForm)));
    }
    if (!u.user.empty()) {
        out.push_back(field::invalid(path, u.user, "user information is not permitted in the URL"));
    }
    if (!u.fragment.empty()) {
        out.push_back(field::invalid(path, u.fragment, "fragments are not permitted in the URL"));
    }
    if (!u.query.empty()) {
        out.push_back(
            field::invalid(path, u.query, "query parameters are not permitted in the URL"));
    }
}

// webhook.ValidateWebhookService. kube passes the service's name where the function takes the
// namespace and the other way round, so an empty namespace is reported as a missing name: kept.
void validateWebhookService(const json::Value& service, const std::string& path,
                            field::Causes& out) {
    std::string_view name = cells::text(service, {"name"});
    std::string_view ns = cells::text(service, {"namespace"});
    if (ns.empty()) {
        out.push_back(field::required(field::child(path, "name"), "service name is required"));
    }
    if (name.empty()) {
        out.push_back(
            field::required(field::child(path, "namespace"), "service namespace is required"));
    }
    const json::Value* port = json::member(service, "port");
    if (port && port->IsInt64() && (port->GetInt64() < 1 || port->GetInt64() > 65535)) {
        out.push_back(field::invalid(field::child(path, "port"), port->GetInt64(),
                                     "port is not valid: must be between 1 and 65535, inclusive"));
    }
    const json::Value* pathValue = json::member(service, "path");
    if (!pathValue || !pathValue->IsString()) {
        return;
    }
    std::string urlPath(json::view(*pathValue));
    std::string pathPath = field::child(path, "path");
    if (urlPath == "/" || urlPath.empty()) {
        return;
    }
    if (urlPath == "//") {
        out.push_back(field::invalid(pathPath, urlPath, "segment[0] may not be empty"));
        return;
    }
    if (urlPath.front() != '/') {
        out.push_back(field::invalid(pathPath, urlPath, "must start with a '/'"));
    }
    std::string_view check = std::string_view(urlPath).substr(1);
    if (!check.empty() && check.back() == '/') {
        check.remove_suffix(1);
    }
    size_t i = 0;
    while (true) {
        size_t slash = check.find('/');
        std::string_view step = check.substr(0, slash);
        if (step.empty()) {
            out.push_back(field::invalid(pathPath, urlPath,
                                         "segment[" + std::to_string(i) + "] may not be empty"));
        } else {
            for (const std::string& e : registry::validation::isDNS1123Subdomain(step)) {
                out.push_back(
                    field::invalid(pathPath, urlPath, "segment[" + std::to_string(i) + "]: " + e));
            }
        }
        if (slash == std::string_view::npos) {
            break;
        }
        check = check.substr(slash + 1);
        i++;
    }
}

// validateAdmissionReviewVersions, with a recognized version required (a create, or an update
// of hooks that all had one).
void validateReviewVersions(const json::Value* list, bool requireRecognized,
                            const std::string& path, field::Causes& out) {
    if (!list || !list->IsArray() || list->Empty()) {
        out.push_back(field::required(path, "must specify one of v1, v1beta1"));
        return;
    }
    std::set<std::string_view> seen;
    bool recognized = false;
    for (size_t i = 0; i < list->Size(); i++) {
        const json::Value& v = (*list)[static_cast<rapidjson::SizeType>(i)];
        std::string_view version = v.IsString() ? json::view(v) : std::string_view();
        if (!seen.insert(version).second) {
            out.push_back(field::invalid(field::index(path, i), version, "duplicate version"));
            continue;
        }
        for (const std::string& msg : registry::validation::isDNS1035Label(version)) {
            out.push_back(field::invalid(field::index(path, i), version, msg));
        }
        recognized = recognized || version == "v1" || version == "v1beta1";
    }
    if (requireRecognized && !recognized) {
        out.push_back(field::invalid(path, field::goStringList(list),
                                     "must include at least one of v1, v1beta1"));
    }
}

// What kube relaxes on update, from what the stored hooks already had (validationOptions).
struct HookOptions {
    bool mutating = false;
    bool requireNoSideEffects = true;
    bool requireRecognizedVersion = true;
    bool requireUniqueNames = true;
    bool allowInvalidLabelValues = false;
    bool ignoreMatchConditions = false;
};

// validateValidatingWebhook / validateMutatingWebhook.
void validateWebhook(const json::Value& hook, const HookOptions& opts, const std::string& path,
                     field::Causes& out) {
    validateFullyQualifiedName(cells::text(hook, {"name"}), field::child(path, "name"), out);
    if (const json::Value* rules = json::member(hook, "rules"); rules && rules->IsArray()) {
        for (size_t i = 0; i < rules->Size(); i++) {
            const json::Value& rule = (*rules)[static_cast<rapidjson::SizeType>(i)];
            validateRuleWithOperations(rule, field::index(field::child(path, "rules"), i), out);
        }
    }
    field::validateEnum(json::member(hook, "failurePolicy"), field::child(path, "failurePolicy"),
                        {"Fail", "Ignore"}, out);
    field::validateEnum(json::member(hook, "matchPolicy"), field::child(path, "matchPolicy"),
                        {"Equivalent", "Exact"}, out);
    const json::Value* sideEffects = json::member(hook, "sideEffects");
    std::string sideEffectsPath = field::child(path, "sideEffects");
    if (!sideEffects || sideEffects->IsNull()) {
        out.push_back(field::required(
            sideEffectsPath, opts.requireNoSideEffects ? "must specify one of None, NoneOnDryRun"
                                                       : "must specify one of None, "
                                                         "NoneOnDryRun, Some, Unknown"));
    } else if (opts.requireNoSideEffects) {
        field::validateEnum(sideEffects, sideEffectsPath, {"None", "NoneOnDryRun"}, out);
    } else {
        field::validateEnum(sideEffects, sideEffectsPath,
                            {"None", "NoneOnDryRun", "Some", "Unknown"}, out);
    }
    const json::Value* timeout = json::member(hook, "timeoutSeconds");
    if (timeout && timeout->IsInt64() && (timeout->GetInt64() > 30 || timeout->GetInt64() < 1)) {
        out.push_back(field::invalid(field::child(path, "timeoutSeconds"), timeout->GetInt64(),
                                     "the timeout value must be between 1 and 30 seconds"));
    }
    field::validateLabelSelector(json::member(hook, "namespaceSelector"),
                                 field::child(path, "namespaceSelector"),
                                 opts.allowInvalidLabelValues, out);
    field::validateLabelSelector(json::member(hook, "objectSelector"),
                                 field::child(path, "objectSelector"), opts.allowInvalidLabelValues,
                                 out);
    if (opts.mutating) {
        field::validateEnum(json::member(hook, "reinvocationPolicy"),
                            field::child(path, "reinvocationPolicy"), {"IfNeeded", "Never"}, out);
    }
    const json::Value* cc = json::member(hook, "clientConfig");
    const json::Value* url = cc ? json::member(*cc, "url") : nullptr;
    const json::Value* service = cc ? json::member(*cc, "service") : nullptr;
    bool hasUrl = url && !url->IsNull();
    bool hasService = service && !service->IsNull();
    std::string ccPath = field::child(path, "clientConfig");
    if (hasUrl == hasService) {
        out.push_back(field::required(ccPath, "exactly one of url or service is required"));
    } else if (hasUrl) {
        validateWebhookUrl(url->IsString() ? json::view(*url) : std::string_view(),
                           field::child(ccPath, "url"), out);
    } else if (service->IsObject()) {
        validateWebhookService(*service, field::child(ccPath, "service"), out);
    }
    if (!opts.ignoreMatchConditions) {
        validateMatchConditions(json::member(hook, "matchConditions"),
                                field::child(path, "matchConditions"), false, out);
    }
}

const json::Value* webhooksOf(const json::Value& obj) {
    const json::Value* hooks = json::member(obj, "webhooks");
    return hooks && hooks->IsArray() ? hooks : nullptr;
}

// validateValidatingWebhookConfiguration / validateMutatingWebhookConfiguration (the metadata
// checks are the store's).
field::Causes validateConfiguration(const json::Value& obj, const HookOptions& opts) {
    field::Causes out;
    const json::Value* hooks = webhooksOf(obj);
    if (!hooks) {
        return out;
    }
    std::set<std::string_view> names;
    for (size_t i = 0; i < hooks->Size(); i++) {
        const json::Value& hook = (*hooks)[static_cast<rapidjson::SizeType>(i)];
        std::string path = field::index("webhooks", i);
        validateWebhook(hook, opts, path, out);
        validateReviewVersions(json::member(hook, "admissionReviewVersions"),
                               opts.requireRecognizedVersion,
                               field::child(path, "admissionReviewVersions"), out);
        std::string_view name = cells::text(hook, {"name"});
        if (opts.requireUniqueNames && !name.empty() && !names.insert(name).second) {
            out.push_back(field::duplicate(field::child(path, "name"), name));
        }
    }
    return out;
}

// The relaxations of ValidateValidatingWebhookConfigurationUpdate, from the stored hooks.
HookOptions updateOptions(const json::Value& obj, const json::Value& old, bool mutating) {
    HookOptions opts;
    opts.mutating = mutating;
    const json::Value* hooks = webhooksOf(obj);
    const json::Value* oldHooks = webhooksOf(old);
    std::set<std::string_view> names;
    if (oldHooks) {
        for (const json::Value& hook : oldHooks->GetArray()) {
            std::string_view se = cells::text(hook, {"sideEffects"});
            if (se != "None" && se != "NoneOnDryRun") {
                opts.requireNoSideEffects = false;
            }
            const json::Value* versions = json::member(hook, "admissionReviewVersions");
            if (versions && versions->IsArray() && !versions->Empty()) {
                bool recognized = false;
                for (const json::Value& v : versions->GetArray()) {
                    recognized =
                        recognized ||
                        (v.IsString() && (json::view(v) == "v1" || json::view(v) == "v1beta1"));
                }
                opts.requireRecognizedVersion = opts.requireRecognizedVersion && recognized;
            }
            if (!names.insert(cells::text(hook, {"name"})).second) {
                opts.requireUniqueNames = false;
            }
            for (const char* selector : {"namespaceSelector", "objectSelector"}) {
                field::Causes strict;
                field::validateLabelSelector(json::member(hook, selector), "", false, strict);
                opts.allowInvalidLabelValues = opts.allowInvalidLabelValues || !strict.empty();
            }
        }
    }
    // Match conditions are checked again only when some hook's changed.
    size_t count = hooks ? hooks->Size() : 0;
    size_t oldCount = oldHooks ? oldHooks->Size() : 0;
    opts.ignoreMatchConditions = count == oldCount;
    for (size_t i = 0; opts.ignoreMatchConditions && i < count; i++) {
        auto at = static_cast<rapidjson::SizeType>(i);
        const json::Value* a = json::member((*hooks)[at], "matchConditions");
        const json::Value* b = json::member((*oldHooks)[at], "matchConditions");
        bool emptyA = !a || !a->IsArray() || a->Empty();
        bool emptyB = !b || !b->IsArray() || b->Empty();
        opts.ignoreMatchConditions = (emptyA && emptyB) || (!emptyA && !emptyB && *a == *b);
    }
    return opts;
}

// SetDefaults_ValidatingWebhook / SetDefaults_MutatingWebhook, SetDefaults_Rule and
// SetDefaults_ServiceReference.
void defaultConfiguration(json::Value& obj, json::Allocator& a, bool mutating) {
    defaulting::forEachElement(obj, "webhooks", [&](json::Value& hook) {
        defaulting::setString(hook, "failurePolicy", "Fail", a);
        defaulting::setString(hook, "matchPolicy", "Equivalent", a);
        defaulting::setDefault(hook, "namespaceSelector", json::Value(rapidjson::kObjectType), a);
        defaulting::setDefault(hook, "objectSelector", json::Value(rapidjson::kObjectType), a);
        defaulting::setInt(hook, "timeoutSeconds", 10, a);
        if (mutating) {
            defaulting::setString(hook, "reinvocationPolicy", "Never", a);
        }
        defaulting::forEachElement(hook, "rules", [&](json::Value& rule) {
            defaulting::setString(rule, "scope", "*", a);
        });
        json::Value* cc = json::member(hook, "clientConfig");
        json::Value* service = cc && cc->IsObject() ? json::member(*cc, "service") : nullptr;
        if (service && service->IsObject()) {
            defaulting::setInt(*service, "port", 443, a);
        }
    });
}

registry::KindInfo webhookConfigurationKind(bool mutating) {
    registry::KindInfo k;
    k.group = "admissionregistration.k8s.io";
    k.version = "v1";
    k.kind = mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
    k.resource = mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
    k.singular = mutating ? "mutatingwebhookconfiguration" : "validatingwebhookconfiguration";
    k.namespaced = false;
    k.categories = {"api-extensions"};
    k.tracksGeneration = true;
    k.columns = {
        cells::nameColumn(),
        cells::countColumn(
            "Webhooks", "integer",
            "Webhooks indicates the number of webhooks registered in this "
            "configuration",
            [](const json::Value& obj) { return cells::count(json::member(obj, "webhooks")); }),
        cells::ageColumn(),
    };
    k.defaults = [mutating](json::Value& obj, json::Allocator& a) {
        defaultConfiguration(obj, a, mutating);
    };
    k.validate = [mutating](const json::Value& obj) {
        HookOptions opts;
        opts.mutating = mutating;
        return validateConfiguration(obj, opts);
    };
    k.validateUpdate = [mutating](const json::Value& obj, const json::Value& old) {
        return validateConfiguration(obj, updateOptions(obj, old, mutating));
    };
    return k;
}

}  // namespace

registry::KindInfo mutatingWebhookConfigurationKind() {
    return webhookConfigurationKind(true);
}

registry::KindInfo validatingWebhookConfigurationKind() {
    return webhookConfigurationKind(false);
}

}  // namespace kube::apis::admissionregistration
