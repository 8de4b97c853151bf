#include <arpa/inet.h>

#include <string>
#include <vector>

#include "apis/core/field_errors.hpp"
#include "apis/networking/kinds.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::networking {

namespace {

namespace cells = registry::cells;
namespace field = core::field;
namespace json = util::json;
namespace validation = registry::validation;
using registry::TableContext;

// netutils.ParseIPSloppy: IPv6, or dotted IPv4 whose parts may carry leading
// zeros.
bool isIP(std::string_view host) {
    std::string s(host);
    unsigned char buf[16];
    if (inet_pton(AF_INET6, s.c_str(), buf) == 1) {
        return true;
    }
    int parts = 0;
    size_t i = 0;
    while (i <= s.size()) {
        size_t dot = s.find('.', i);
        std::string part = s.substr(i, dot == std::string::npos ? std::string::npos : dot - i);
        if (part.empty() || part.size() > 3 ||
            part.find_first_not_of("0123456789") != std::string::npos || std::stoi(part) > 255) {
            return false;
        }
        parts++;
        if (dot == std::string::npos) {
            break;
        }
        i = dot + 1;
    }
    return parts == 4;
}

// validation.IsWildcardDNS1123Subdomain: "*." then a DNS subdomain.
std::vector<std::string> isWildcardDNS1123Subdomain(std::string_view value) {
    std::vector<std::string> out;
    if (value.size() > 253) {
        out.push_back("must be no more than 253 characters");
    }
    bool ok = value.starts_with("*.") && validation::isDNS1123Subdomain(value.substr(2)).empty();
    if (!ok) {
        out.push_back(
            "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS "
            "subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and "
            "end with an alphanumeric character (e.g. '*.example.com', regex used for validation "
            "is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    }
    return out;
}

// Mirrors validateIngressTypedLocalObjectReference.
void validateResourceBackend(const json::Value& ref, const std::string& path, field::Causes& out) {
    const json::Value* group = json::member(ref, "apiGroup");
    if (group && group->IsString()) {
        for (const std::string& msg : validation::isDNS1123Subdomain(json::view(*group))) {
            out.push_back(field::invalid(field::child(path, "apiGroup"), json::view(*group), msg));
        }
    }
    for (const char* name : {"kind", "name"}) {
        std::string_view v = json::stringMember(ref, name);
        std::string p = field::child(path, name);
        if (v.empty()) {
            out.push_back(field::required(p, std::string(name) + " is required"));
            continue;
        }
        for (const std::string& msg : validation::isValidPathSegmentName(v)) {
            out.push_back(field::invalid(p, v, msg));
        }
    }
}

// Mirrors validateIngressBackend.
void validateBackend(const json::Value* backend, const std::string& path, field::Causes& out) {
    const json::Value* resource = backend ? json::member(*backend, "resource") : nullptr;
    const json::Value* service = backend ? json::member(*backend, "service") : nullptr;
    bool hasResource = resource && resource->IsObject();
    bool hasService = service && service->IsObject();
    if (hasResource && hasService) {
        out.push_back(field::invalid(path, "", "cannot set both resource and service backends"));
        return;
    }
    if (hasResource) {
        validateResourceBackend(*resource, field::child(path, "resource"), out);
        return;
    }
    if (!hasService) {
        out.push_back(field::invalid(path, "", "resource or service backend is required"));
        return;
    }
    std::string namePath = field::child(field::child(path, "service"), "name");
    std::string_view name = json::stringMember(*service, "name");
    if (name.empty()) {
        out.push_back(field::required(namePath));
    } else {
        for (const std::string& msg : validation::isDNS1035Label(name)) {
            out.push_back(field::invalid(namePath, name, msg));
        }
    }
    std::string portPath = field::child(field::child(path, "service"), "port");
    std::string_view portName = cells::text(*service, {"port", "name"});
    int64_t portNumber = cells::integer(*service, {"port", "number"});
    if (!portName.empty() && portNumber != 0) {
        out.push_back(field::invalid(path, "", "cannot set both port name & port number"));
    } else if (!portName.empty()) {
        for (const std::string& msg : field::isValidPortName(portName)) {
            out.push_back(field::invalid(field::child(portPath, "name"), portName, msg));
        }
    } else if (portNumber != 0) {
        field::validatePortNumber(json::at(*service, {"port", "number"}),
                                  field::child(portPath, "number"), out);
    } else {
        out.push_back(field::required(path, "port name or number is required"));
    }
}

// Mirrors validateHTTPIngressPath.
void validatePath(const json::Value& p, const std::string& path, field::Causes& out) {
    const json::Value* type = json::member(p, "pathType");
    if (!type || type->IsNull()) {
        out.push_back(
            field::required(field::child(path, "pathType"), "pathType must be specified"));
        return;
    }
    std::string_view t = json::view(*type);
    std::string_view value = json::stringMember(p, "path");
    std::string valuePath = field::child(path, "path");
    if (t == "Exact" || t == "Prefix") {
        if (!value.starts_with("/")) {
            out.push_back(field::invalid(valuePath, value, "must be an absolute path"));
        }
        if (!value.empty()) {
            for (std::string_view seq : {"//", "/./", "/../", "%2f", "%2F"}) {
                if (value.find(seq) != std::string_view::npos) {
                    out.push_back(field::invalid(valuePath, value,
                                                 "must not contain '" + std::string(seq) + "'"));
                }
            }
            for (std::string_view suffix : {"/..", "/."}) {
                if (value.ends_with(suffix)) {
                    out.push_back(field::invalid(valuePath, value,
                                                 "cannot end with '" + std::string(suffix) + "'"));
                }
            }
        }
    } else if (t == "ImplementationSpecific") {
        if (!value.empty() && !value.starts_with("/")) {
            out.push_back(field::invalid(valuePath, value, "must be an absolute path"));
        }
    } else {
        out.push_back(field::notSupported(field::child(path, "pathType"), t,
                                          {"Exact", "ImplementationSpecific", "Prefix"}));
    }
    validateBackend(json::member(p, "backend"), field::child(path, "backend"), out);
}

// What an update may keep of a stored ingress that today's rules reject;
// mirrors IngressValidationOptions.
struct IngressOptions {
    bool allowInvalidSecretName = false;
    bool allowInvalidWildcardHostRule = false;
};

// Mirrors validateIngressRuleValue: the HTTP paths of one rule.
void validateRuleValue(const json::Value& rule, const std::string& path, field::Causes& out) {
    const json::Value* http = json::member(rule, "http");
    if (!http || !http->IsObject()) {
        return;
    }
    std::string httpPath = field::child(path, "http");
    const json::Value* paths = json::member(*http, "paths");
    if (cells::count(paths) == 0) {
        out.push_back(field::required(field::child(httpPath, "paths")));
        return;
    }
    for (rapidjson::SizeType j = 0; j < paths->Size(); j++) {
        validatePath((*paths)[j], field::index(field::child(httpPath, "paths"), j), out);
    }
}

// Mirrors validateIngressRules.
void validateRules(const json::Value& rules, const IngressOptions& opts, field::Causes& out) {
    for (rapidjson::SizeType i = 0; i < rules.Size(); i++) {
        const json::Value& rule = rules[i];
        std::string path = field::index("spec.rules", i);
        std::string_view host = json::stringMember(rule, "host");
        bool wildcard = host.find('*') != std::string_view::npos;
        if (!host.empty()) {
            std::string hostPath = field::child(path, "host");
            if (isIP(host)) {
                out.push_back(
                    field::invalid(hostPath, host, "must be a DNS name, not an IP address"));
            }
            for (const std::string& msg : wildcard ? isWildcardDNS1123Subdomain(host)
                                                   : validation::isDNS1123Subdomain(host)) {
                out.push_back(field::invalid(hostPath, host, msg));
            }
        }
        if (!wildcard || !opts.allowInvalidWildcardHostRule) {
            validateRuleValue(rule, path, out);
        }
    }
}

// Mirrors validateIngressTLS.
void validateTLS(const json::Value& tls, const IngressOptions& opts, field::Causes& out) {
    for (rapidjson::SizeType i = 0; i < tls.Size(); i++) {
        std::string path = field::index("spec.tls", i);
        const json::Value* hosts = json::member(tls[i], "hosts");
        for (rapidjson::SizeType j = 0; hosts && hosts->IsArray() && j < hosts->Size(); j++) {
            std::string_view host = json::view((*hosts)[j]);
            bool wildcard = host.find('*') != std::string_view::npos;
            for (const std::string& msg : wildcard ? isWildcardDNS1123Subdomain(host)
                                                   : validation::isDNS1123Subdomain(host)) {
                out.push_back(
                    field::invalid(field::index(field::child(path, "hosts"), j), host, msg));
            }
        }
        std::string_view secret = json::stringMember(tls[i], "secretName");
        if (!secret.empty() && !opts.allowInvalidSecretName) {
            for (const std::string& msg : validation::isDNS1123Subdomain(secret)) {
                out.push_back(field::invalid(field::child(path, "secretName"), secret, msg));
            }
        }
    }
}

// Mirrors ValidateIngressSpec.
void validateSpec(const json::Value& obj, const IngressOptions& opts, field::Causes& out) {
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* specp = json::member(obj, "spec");
    const json::Value& spec = specp && specp->IsObject() ? *specp : empty;
    const json::Value* rules = json::member(spec, "rules");
    const json::Value* defaultBackend = json::member(spec, "defaultBackend");
    bool hasRules = cells::count(rules) > 0;
    bool hasDefault = defaultBackend && !defaultBackend->IsNull();
    if (!hasRules && !hasDefault) {
        out.push_back(field::invalid("spec",
                                     validation::BadValue::raw("[]networking.IngressRule(nil)"),
                                     "either `defaultBackend` or `rules` must be specified"));
    }
    if (hasDefault) {
        validateBackend(defaultBackend, "spec.defaultBackend", out);
    }
    if (hasRules) {
        validateRules(*rules, opts, out);
    }
    if (const json::Value* tls = json::member(spec, "tls"); tls && tls->IsArray()) {
        validateTLS(*tls, opts, out);
    }
    const json::Value* className = json::member(spec, "ingressClassName");
    if (className && className->IsString()) {
        for (const std::string& msg : validation::isDNS1123Subdomain(json::view(*className))) {
            out.push_back(field::invalid("spec.ingressClassName", json::view(*className), msg));
        }
    }
}

// Mirrors ValidateIngressCreate.
field::Causes validateIngress(const json::Value& obj) {
    field::Causes out;
    validateSpec(obj, {}, out);
    // The legacy class annotation may not contradict ingressClassName.
    const json::Value* className = json::at(obj, {"spec", "ingressClassName"});
    const json::Value* annotation =
        json::at(obj, {"metadata", "annotations", "kubernetes.io/ingress.class"});
    if (annotation && annotation->IsString() && className && className->IsString() &&
        json::view(*annotation) != json::view(*className)) {
        out.push_back(field::invalid("annotations.kubernetes.io/ingress.class",
                                     json::view(*annotation),
                                     "must match `ingressClassName` when both are specified"));
    }
    return out;
}

// allowInvalidSecretName and allowInvalidWildcardHostRule: what the stored
// ingress already has that today's rules would reject.
IngressOptions updateOptions(const json::Value& old) {
    IngressOptions opts;
    const json::Value* tls = json::at(old, {"spec", "tls"});
    for (rapidjson::SizeType i = 0; tls && tls->IsArray() && i < tls->Size(); i++) {
        std::string_view secret = json::stringMember((*tls)[i], "secretName");
        if (!secret.empty() && !validation::isDNS1123Subdomain(secret).empty()) {
            opts.allowInvalidSecretName = true;
        }
    }
    const json::Value* rules = json::at(old, {"spec", "rules"});
    for (rapidjson::SizeType i = 0; rules && rules->IsArray() && i < rules->Size(); i++) {
        const json::Value& rule = (*rules)[i];
        field::Causes ruleErrors;
        validateRuleValue(rule, "", ruleErrors);
        if (json::stringMember(rule, "host").find('*') != std::string_view::npos &&
            !ruleErrors.empty()) {
            opts.allowInvalidWildcardHostRule = true;
        }
    }
    return opts;
}

// Mirrors ValidateIngressUpdate: the spec as on create but what the stored
// ingress already had, and no check of the legacy class annotation.
field::Causes validateIngressUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out;
    validateSpec(obj, updateOptions(old), out);
    return out;
}

// Mirrors ingressStrategy.PrepareForCreate: the controller fills the status,
// whose loadBalancer struct Go always writes.
void prepareIngress(json::Value& obj, json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    status.AddMember("loadBalancer", json::Value(rapidjson::kObjectType), a);
    json::setMember(obj, "status", std::move(status), a);
}

// formatHosts: up to three hosts, then "+ N more..."; "*" when none is named.
std::string hosts(const json::Value& obj) {
    const json::Value* rules = json::at(obj, {"spec", "rules"});
    std::vector<std::string_view> list;
    bool more = false;
    size_t n = rules && rules->IsArray() ? rules->Size() : 0;
    for (size_t i = 0; i < n; i++) {
        if (list.size() == 3) {
            more = true;
        }
        std::string_view host =
            json::stringMember((*rules)[static_cast<rapidjson::SizeType>(i)], "host");
        if (!more && !host.empty()) {
            list.push_back(host);
        }
    }
    if (list.empty()) {
        return "*";
    }
    std::string out;
    for (std::string_view h : list) {
        out += (out.empty() ? "" : ",") + std::string(h);
    }
    return more ? out + " + " + std::to_string(n - 3) + " more..." : out;
}

}  // namespace

registry::KindInfo ingressKind() {
    registry::KindInfo k;
    k.group = "networking.k8s.io";
    k.version = "v1";
    k.kind = "Ingress";
    k.resource = "ingresses";
    k.singular = "ingress";
    k.shortNames = {"ing"};
    k.tracksGeneration = true;
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Class", "string", "The IngressClass that configures this ingress.",
                          [](const json::Value& obj, const TableContext&) {
                              const json::Value* c = json::at(obj, {"spec", "ingressClassName"});
                              return c && c->IsString() ? std::string(json::view(*c))
                                                        : std::string("<none>");
                          }),
        cells::textColumn("Hosts", "string", "The hosts the rules match requests against.",
                          [](const json::Value& obj, const TableContext&) { return hosts(obj); }),
        cells::textColumn("Address", "string",
                          "Where the load balancer of the ingress is reachable.",
                          [](const json::Value& obj, const TableContext&) {
                              return cells::loadBalancerIngress(obj);
                          }),
        cells::textColumn(
            "Ports", "string", "The ports the ingress opens: 80, and 443 with TLS.",
            [](const json::Value& obj, const TableContext&) {
                return std::string(cells::count(json::at(obj, {"spec", "tls"})) ? "80, 443" : "80");
            }),
        cells::ageColumn(),
    };
    k.prepareForCreate = prepareIngress;
    k.validate = validateIngress;
    k.validateUpdate = validateIngressUpdate;
    return k;
}

}  // namespace kube::apis::networking
