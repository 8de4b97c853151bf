#include <string>

#include "apis/core/field_errors.hpp"
#include "apis/policy/kinds.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::policy {

namespace {

namespace cells = registry::cells;
namespace field = core::field;
namespace json = util::json;
using registry::TableContext;
using registry::validation::BadValue;
using registry::validation::goQuote;

// Go's %#v of an intstr.IntOrString, how field errors show one (it has no
// value-receiver String method).
BadValue intOrStringGoString(const json::Value& v) {
    if (v.IsString()) {
        return BadValue::raw(
            "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + goQuote(json::view(v)) + "}");
    }
    int64_t n = v.IsInt64() ? v.GetInt64() : 0;
    return BadValue::raw("intstr.IntOrString{Type:0, IntVal:" + std::to_string(n) +
                         ", StrVal:\"\"}");
}

// validation.IsValidPercent: digits then '%'.
bool isPercent(std::string_view s) {
    return s.size() >= 2 && s.back() == '%' &&
           s.substr(0, s.size() - 1).find_first_not_of("0123456789") == std::string_view::npos;
}

// Mirrors ValidatePositiveIntOrPercent and IsNotMoreThan100Percent.
void validateIntOrPercent(const json::Value* v, const std::string& path, field::Causes& out) {
    if (!v || v->IsNull()) {
        return;
    }
    if (v->IsString()) {
        std::string_view s = json::view(*v);
        if (!isPercent(s)) {
            out.push_back(field::invalid(
                path, intOrStringGoString(*v),
                "a valid percent string must be a numeric string followed by an ending '%' "
                "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"));
        } else if (std::stoll(std::string(s.substr(0, std::min<size_t>(s.size() - 1, 18)))) > 100) {
            out.push_back(
                field::invalid(path, intOrStringGoString(*v), "must not be greater than 100%"));
        }
        return;
    }
    field::validateNonnegative(v, path, out);
}

// Mirrors ValidatePodDisruptionBudget: kube checks no name rule beyond the
// store's path-segment one. `allowInvalidLabelValues` relaxes the selector
// as PodDisruptionBudgetValidationOptions does.
field::Causes validateBudget(const json::Value& obj, bool allowInvalidLabelValues) {
    field::Causes out;
    const json::Value* min = json::at(obj, {"spec", "minAvailable"});
    const json::Value* max = json::at(obj, {"spec", "maxUnavailable"});
    bool hasMin = min && !min->IsNull();
    bool hasMax = max && !max->IsNull();
    if (hasMin && hasMax) {
        // kube shows the whole spec struct; its JSON says the same.
        out.push_back(field::invalid("spec", *json::member(obj, "spec"),
                                     "minAvailable and maxUnavailable cannot be both set"));
    }
    validateIntOrPercent(min, "spec.minAvailable", out);
    validateIntOrPercent(max, "spec.maxUnavailable", out);
    field::validateLabelSelector(json::at(obj, {"spec", "selector"}), "spec.selector",
                                 allowInvalidLabelValues, out);
    field::validateEnum(json::at(obj, {"spec", "unhealthyPodEvictionPolicy"}),
                        "spec.unhealthyPodEvictionPolicy", {"AlwaysAllow", "IfHealthyBudget"}, out);
    return out;
}

field::Causes validatePodDisruptionBudget(const json::Value& obj) {
    return validateBudget(obj, false);
}

// Mirrors podDisruptionBudgetStrategy.ValidateUpdate: as on create, but a
// selector whose stored form already had invalid label values may keep them.
field::Causes validatePodDisruptionBudgetUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes oldSelectorErrors;
    field::validateLabelSelector(json::at(old, {"spec", "selector"}), "spec.selector", false,
                                 oldSelectorErrors);
    return validateBudget(obj, !oldSelectorErrors.empty());
}

// Mirrors podDisruptionBudgetStrategy.PrepareForCreate: the disruption
// controller owns the status, whose counters Go always writes.
void preparePodDisruptionBudget(json::Value& obj, json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    for (const char* counter :
         {"disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"}) {
        status.AddMember(rapidjson::StringRef(counter), json::Value(0), a);
    }
    json::setMember(obj, "status", std::move(status), a);
}

// IntOrString.String() of a budget bound, "N/A" when unset.
std::string bound(const json::Value& obj, std::string_view name) {
    const json::Value* v = json::at(obj, {"spec", name});
    if (!v || v->IsNull()) {
        return "N/A";
    }
    return v->IsString() ? std::string(json::view(*v))
                         : std::to_string(v->IsInt64() ? v->GetInt64() : 0);
}

}  // namespace

registry::KindInfo podDisruptionBudgetKind() {
    registry::KindInfo k;
    k.group = "policy";
    k.version = "v1";
    k.kind = "PodDisruptionBudget";
    k.resource = "poddisruptionbudgets";
    k.singular = "poddisruptionbudget";
    k.shortNames = {"pdb"};
    k.nameRule = registry::NameRule::PathSegment;
    k.tracksGeneration = true;
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn(
            "Min Available", "string", "The minimum number of pods that must be available.",
            [](const json::Value& obj, const TableContext&) { return bound(obj, "minAvailable"); }),
        cells::textColumn("Max Unavailable", "string",
                          "The maximum number of pods that may be unavailable.",
                          [](const json::Value& obj, const TableContext&) {
                              return bound(obj, "maxUnavailable");
                          }),
        cells::countColumn("Allowed Disruptions", "integer",
                           "How many pods may be disrupted now, as the controller computed.",
                           [](const json::Value& obj) {
                               return cells::integer(obj, {"status", "disruptionsAllowed"});
                           }),
        cells::ageColumn(),
    };
    k.prepareForCreate = preparePodDisruptionBudget;
    k.validate = validatePodDisruptionBudget;
    k.validateUpdate = validatePodDisruptionBudgetUpdate;
    return k;
}

}  // namespace kube::apis::policy
