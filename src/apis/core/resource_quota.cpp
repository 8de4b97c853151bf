#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "apis/core/resource_names.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"
#include "util/quantity.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;
using registry::TableContext;
using registry::validation::goQuote;

// Mirrors ValidateResourceQuotaResourceName.
void validateQuotaResourceName(std::string_view name, const std::string& path, field::Causes& out) {
    validateResourceName(name, path, out);
    if (name.find('/') == std::string_view::npos && !isStandardQuotaResourceName(name)) {
        out.push_back(field::invalid(path, name, "must be a standard resource for quota"));
    }
}

// Mirrors ValidateResourceQuantityValue.
void validateQuantity(std::string_view resource, const json::Value& value, const std::string& path,
                      field::Causes& out) {
    if (!value.IsString()) {
        return;
    }
    std::string_view q = json::view(value);
    std::optional<util::Quantity> amount = util::Quantity::parse(q);
    if (!amount) {
        return;  // decoding refuses what does not parse
    }
    if (amount->compare(util::Quantity()) < 0) {
        out.push_back(field::invalid(path, q, "must be greater than or equal to 0"));
    }
    if (isIntegerResourceName(resource) && amount->milliValue() % 1000 != 0) {
        out.push_back(field::invalid(path, q, "must be an integer"));
    }
}

// Scopes kube 1.32 accepts with its default feature gates.
bool isStandardScope(std::string_view scope) {
    return scope == "Terminating" || scope == "NotTerminating" || scope == "BestEffort" ||
           scope == "NotBestEffort" || scope == "PriorityClass" ||
           scope == "CrossNamespacePodAffinity";
}

// helper.IsResourceQuotaScopeValidForResource.
bool scopeFitsResource(std::string_view scope, std::string_view resource) {
    static const std::set<std::string_view> compute = {
        "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"};
    if (scope == "BestEffort") {
        return resource == "pods";
    }
    if (scope == "Terminating" || scope == "NotTerminating" || scope == "NotBestEffort" ||
        scope == "PriorityClass" || scope == "CrossNamespacePodAffinity") {
        return resource == "pods" || compute.contains(resource);
    }
    return true;
}

// Go's %#v of the scopes slice, the bad value of every scope error.
registry::validation::BadValue scopesGoString(const json::Value* scopes) {
    if (!scopes || scopes->IsNull()) {
        return registry::validation::BadValue::raw("[]core.ResourceQuotaScope(nil)");
    }
    std::string out = "[]core.ResourceQuotaScope{";
    if (scopes->IsArray()) {
        for (rapidjson::SizeType i = 0; i < scopes->Size(); i++) {
            out += (i ? ", " : "") + goQuote(json::view((*scopes)[i]));
        }
    }
    return registry::validation::BadValue::raw(out + "}");
}

// The standard hard resource names, sorted (sets.List order).
std::vector<std::string_view> standardHardNames(const json::Value* hard) {
    std::vector<std::string_view> out;
    if (hard && hard->IsObject()) {
        for (const auto& m : hard->GetObject()) {
            if (isStandardQuotaResourceName(json::view(m.name))) {
                out.push_back(json::view(m.name));
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Mirrors validateResourceQuotaScopes.
void validateScopes(const json::Value& spec, field::Causes& out) {
    const json::Value* scopes = json::member(spec, "scopes");
    if (!scopes || !scopes->IsArray() || scopes->Empty()) {
        return;
    }
    std::vector<std::string_view> hard = standardHardNames(json::member(spec, "hard"));
    std::set<std::string_view> seen;
    for (const auto& s : scopes->GetArray()) {
        std::string_view scope = json::view(s);
        if (!isStandardScope(scope)) {
            out.push_back(
                field::invalid("spec.scopes", scopesGoString(scopes), "unsupported scope"));
        }
        for (std::string_view r : hard) {
            if (!scopeFitsResource(scope, r)) {
                out.push_back(field::invalid("spec.scopes", scopesGoString(scopes),
                                             "unsupported scope applied to resource"));
            }
        }
        seen.insert(scope);
    }
    if ((seen.contains("BestEffort") && seen.contains("NotBestEffort")) ||
        (seen.contains("Terminating") && seen.contains("NotTerminating"))) {
        out.push_back(field::invalid("spec.scopes", scopesGoString(scopes), "conflicting scopes"));
    }
}

// Mirrors validateScopedResourceSelectorRequirement: operators and values of
// spec.scopeSelector.matchExpressions.
void validateScopeSelector(const json::Value& spec, field::Causes& out) {
    const json::Value* exprs = json::at(spec, {"scopeSelector", "matchExpressions"});
    if (!exprs || !exprs->IsArray()) {
        return;
    }
    const std::string path = "spec.scopeSelector.matchExpressions";
    std::vector<std::string_view> hard = standardHardNames(json::member(spec, "hard"));
    std::set<std::string_view> seen;
    for (const auto& req : exprs->GetArray()) {
        std::string_view scope = json::stringMember(req, "scopeName");
        std::string_view op = json::stringMember(req, "operator");
        size_t values = static_cast<size_t>(cells::count(json::member(req, "values")));
        if (!isStandardScope(scope)) {
            out.push_back(field::invalid(path + ".scopeName", scope, "unsupported scope"));
        }
        for (std::string_view r : hard) {
            if (!scopeFitsResource(scope, r)) {
                out.push_back(field::invalid(path, *json::member(spec, "scopeSelector"),
                                             "unsupported scope applied to resource"));
            }
        }
        if ((scope == "BestEffort" || scope == "NotBestEffort" || scope == "Terminating" ||
             scope == "NotTerminating") &&
            op != "Exists") {
            out.push_back(
                field::invalid(path + ".operator", op,
                               "must be 'Exist' only operator when scope is any of "
                               "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
                               "ResourceQuotaScopeBestEffort and ResourceQuotaScopeNotBestEffort"));
        }
        if (op == "In" || op == "NotIn") {
            if (values == 0) {
                out.push_back(field::required(
                    path + ".values",
                    "must be at least one value when `operator` is 'In' or 'NotIn' for scope "
                    "selector"));
            }
        } else if (op == "Exists" || op == "DoesNotExist") {
            if (values != 0) {
                out.push_back(field::invalid(
                    path + ".values", *json::member(req, "values"),
                    "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope "
                    "selector"));
            }
        } else {
            out.push_back(field::invalid(path + ".operator", op, "not a valid selector operator"));
        }
        seen.insert(scope);
    }
    if ((seen.contains("BestEffort") && seen.contains("NotBestEffort")) ||
        (seen.contains("Terminating") && seen.contains("NotTerminating"))) {
        out.push_back(field::invalid(path, scopesGoString(json::member(spec, "scopes")),
                                     "conflicting scopes"));
    }
}

// Names and amounts of a resource list ("spec.hard", "status.used").
void validateResourceList(const json::Value* list, const std::string& path, field::Causes& out) {
    if (!list || !list->IsObject()) {
        return;
    }
    for (const auto& m : list->GetObject()) {
        std::string p = field::key(path, json::view(m.name));
        validateQuotaResourceName(json::view(m.name), p, out);
        validateQuantity(json::view(m.name), m.value, p, out);
    }
}

// Mirrors ValidateResourceQuotaSpec: spec.hard names and amounts, scopes and
// the scope selector.
void validateResourceQuotaSpec(const json::Value& obj, field::Causes& out) {
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* specp = json::member(obj, "spec");
    const json::Value& spec = specp && specp->IsObject() ? *specp : empty;
    validateResourceList(json::member(spec, "hard"), "spec.hard", out);
    validateScopes(spec, out);
    validateScopeSelector(spec, out);
}

// Mirrors ValidateResourceQuota: the spec, and the same name and amount
// checks on status.
field::Causes validateResourceQuota(const json::Value& obj) {
    field::Causes out;
    validateResourceQuotaSpec(obj, out);
    validateResourceList(json::at(obj, {"status", "hard"}), "status.hard", out);
    validateResourceList(json::at(obj, {"status", "used"}), "status.used", out);
    return out;
}

std::set<std::string_view> scopeSet(const json::Value& obj) {
    std::set<std::string_view> out;
    const json::Value* scopes = json::at(obj, {"spec", "scopes"});
    if (scopes && scopes->IsArray()) {
        for (const auto& s : scopes->GetArray()) {
            out.insert(json::view(s));
        }
    }
    return out;
}

// Mirrors ValidateResourceQuotaUpdate: the spec as on create, and the set of
// scopes may not change (the status is the stored one, not checked again).
field::Causes validateResourceQuotaUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out;
    validateResourceQuotaSpec(obj, out);
    if (scopeSet(obj) != scopeSet(old)) {
        out.push_back(field::invalid("spec.scopes",
                                     scopesGoString(json::at(obj, {"spec", "scopes"})),
                                     "field is immutable"));
    }
    return out;
}

// Mirrors resourcequotaStrategy.PrepareForCreate: the quota controller owns
// the status.
void prepareResourceQuota(json::Value& obj, json::Allocator& a) {
    json::setMember(obj, "status", json::Value(rapidjson::kObjectType), a);
}

// printResourceQuota's Request and Limit cells: "name: used/hard" for every
// resource in status.hard, sorted, the "limits." ones in the second column.
std::string usage(const json::Value& obj, bool limits) {
    const json::Value* hard = json::at(obj, {"status", "hard"});
    if (!hard || !hard->IsObject()) {
        return "";
    }
    std::vector<std::string_view> names;
    for (const auto& m : hard->GetObject()) {
        names.push_back(json::view(m.name));
    }
    std::sort(names.begin(), names.end());
    const json::Value* used = json::at(obj, {"status", "used"});
    std::string out;
    for (std::string_view name : names) {
        size_t dot = name.find('.');
        bool isLimit = dot != std::string_view::npos && name.substr(0, dot) == "limits";
        if (isLimit != limits) {
            continue;
        }
        const json::Value* u = used ? json::member(*used, name) : nullptr;
        std::string_view usedText = u ? json::view(*u) : "0";
        std::string_view hardText = json::view(*json::member(*hard, name));
        out += (out.empty() ? "" : ", ") + std::string(name) + ": " +
               std::string(usedText.empty() ? "0" : usedText) + "/" +
               std::string(hardText.empty() ? "0" : hardText);
    }
    return out;
}

}  // namespace

registry::KindInfo resourceQuotaKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "ResourceQuota";
    k.resource = "resourcequotas";
    k.singular = "resourcequota";
    k.shortNames = {"quota"};
    k.subresources = {registry::statusSubresource()};
    // kube 1.32 order: Age before the usage columns.
    k.columns = {
        cells::nameColumn(),
        cells::ageColumn(),
        cells::textColumn(
            "Request", "string", "The used and hard amounts of the requests a quota limits.",
            [](const json::Value& obj, const TableContext&) { return usage(obj, false); }),
        cells::textColumn(
            "Limit", "string", "The used and hard amounts of the limits a quota limits.",
            [](const json::Value& obj, const TableContext&) { return usage(obj, true); }),
    };
    k.prepareForCreate = prepareResourceQuota;
    k.validate = validateResourceQuota;
    k.validateUpdate = validateResourceQuotaUpdate;
    return k;
}

}  // namespace kube::apis::core
