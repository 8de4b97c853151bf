#include <string>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/networking/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::networking {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
namespace field = core::field;
namespace json = util::json;
namespace validation = registry::validation;
using registry::TableContext;

// maxLenIngressClassController.
constexpr size_t kMaxControllerLength = 250;

// Mirrors SetDefaults_IngressClass: parameters without a scope are the
// cluster's.
void defaultIngressClass(json::Value& obj, json::Allocator& a) {
    json::Value* spec = json::member(obj, "spec");
    json::Value* params = spec && spec->IsObject() ? json::member(*spec, "parameters") : nullptr;
    if (params && params->IsObject()) {
        defaulting::setString(*params, "scope", "Cluster", a);
    }
}

// Mirrors validation.IsDomainPrefixedPath: <DNS subdomain>/<HTTP path>.
void validateDomainPrefixedPath(std::string_view value, const std::string& path,
                                field::Causes& out) {
    if (value.empty()) {
        out.push_back(field::required(path));
        return;
    }
    size_t slash = value.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == value.size()) {
        out.push_back(field::invalid(path, value,
                                     "must be a domain-prefixed path (such as \"acme.io/foo\")"));
        return;
    }
    std::string_view host = value.substr(0, slash);
    for (const std::string& msg : validation::isDNS1123Subdomain(host)) {
        out.push_back(field::invalid(path, host, msg));
    }
    std::string_view rest = value.substr(slash + 1);
    // httpPathFmt: one or more of these characters.
    constexpr std::string_view kPathChars =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~%!$&'()*+,;=:";
    if (rest.find_first_not_of(kPathChars) != std::string_view::npos) {
        out.push_back(field::invalid(
            path, rest,
            "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"));
    }
}

// Mirrors validateIngressClassParametersReference with
// validateIngressTypedLocalObjectReference.
void validateParameters(const json::Value& params, field::Causes& out) {
    const std::string path = "spec.parameters";
    if (const json::Value* group = json::member(params, "apiGroup"); group && group->IsString()) {
        for (const std::string& msg : validation::isDNS1123Subdomain(json::view(*group))) {
            out.push_back(field::invalid(path + ".apiGroup", json::view(*group), msg));
        }
    }
    for (std::string_view member : {"kind", "name"}) {
        std::string_view v = cells::text(params, {member});
        std::string p = field::child(path, member);
        if (v.empty()) {
            out.push_back(field::required(p, std::string(member) + " is required"));
            continue;
        }
        for (const std::string& msg : validation::isValidPathSegmentName(v)) {
            out.push_back(field::invalid(p, v, msg));
        }
    }
    std::string_view scope = cells::text(params, {"scope"});
    if (scope != "Cluster" && scope != "Namespace") {
        out.push_back(field::notSupported(path + ".scope", scope, {"Cluster", "Namespace"}));
        return;
    }
    const json::Value* ns = json::member(params, "namespace");
    bool hasNamespace = ns && ns->IsString();
    if (scope == "Namespace") {
        if (!hasNamespace) {
            out.push_back(
                field::required(path + ".namespace", "`parameters.scope` is set to 'Namespace'"));
        } else {
            for (const std::string& msg : validation::isDNS1123Label(json::view(*ns))) {
                out.push_back(field::invalid(path + ".namespace", json::view(*ns), msg));
            }
        }
    } else if (hasNamespace) {
        out.push_back(
            field::forbidden(path + ".namespace", "`parameters.scope` is set to 'Cluster'"));
    }
}

// Mirrors ValidateIngressClass (the metadata checks are the store's).
field::Causes validateIngressClass(const json::Value& obj) {
    field::Causes out;
    std::string_view controller = cells::text(obj, {"spec", "controller"});
    if (controller.size() > kMaxControllerLength) {
        out.push_back(field::tooLong("spec.controller", kMaxControllerLength));
    }
    validateDomainPrefixedPath(controller, "spec.controller", out);
    if (const json::Value* params = json::at(obj, {"spec", "parameters"});
        params && params->IsObject()) {
        validateParameters(*params, out);
    }
    return out;
}

// Mirrors ValidateIngressClassUpdate: the controller may not change, then
// the object's checks.
field::Causes validateIngressClassUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out;
    std::string_view controller = cells::text(obj, {"spec", "controller"});
    if (controller != cells::text(old, {"spec", "controller"})) {
        out.push_back(field::invalid("spec.controller", controller, "field is immutable"));
    }
    for (meta::StatusCause& c : validateIngressClass(obj)) {
        out.push_back(std::move(c));
    }
    return out;
}

// printIngressClass's Parameters cell: <kind>.<apiGroup>/<name>, "<none>"
// without parameters.
std::string parametersCell(const json::Value& obj) {
    const json::Value* params = json::at(obj, {"spec", "parameters"});
    if (!params || !params->IsObject()) {
        return "<none>";
    }
    std::string out(cells::text(*params, {"kind"}));
    if (const json::Value* group = json::member(*params, "apiGroup"); group && group->IsString()) {
        out += "." + std::string(json::view(*group));
    }
    return out + "/" + std::string(cells::text(*params, {"name"}));
}

}  // namespace

// The class whose ingressclass.kubernetes.io/is-default-class annotation is
// "true" is given to new ingresses by admission/default_ingress_class.
registry::KindInfo ingressClassKind() {
    registry::KindInfo k;
    k.group = "networking.k8s.io";
    k.version = "v1";
    k.kind = "IngressClass";
    k.resource = "ingressclasses";
    k.singular = "ingressclass";
    k.namespaced = false;
    k.tracksGeneration = true;
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Controller", "string",
                          "Controller that is responsible for handling this class",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"spec", "controller"}));
                          }),
        cells::textColumn(
            "Parameters", "string", "A reference to a resource with additional parameters",
            [](const json::Value& obj, const TableContext&) { return parametersCell(obj); }),
        cells::ageColumn(),
    };
    k.defaults = defaultIngressClass;
    k.validate = validateIngressClass;
    k.validateUpdate = validateIngressClassUpdate;
    return k;
}

}  // namespace kube::apis::networking
