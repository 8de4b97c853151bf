#include <string>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/scheduling/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::scheduling {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
namespace field = core::field;
namespace json = util::json;
using registry::TableContext;

// scheduling.HighestUserDefinablePriority: values above belong to the
// system classes.
constexpr int64_t kHighestUserDefinablePriority = 1000000000;

struct SystemClass {
    std::string_view name;
    int64_t value;
};

// scheduling.systemPriorityClasses; neither is a global default.
constexpr SystemClass kSystemClasses[] = {
    {"system-node-critical", 2000001000},
    {"system-cluster-critical", 2000000000},
};

// Mirrors SetDefaults_PriorityClass.
void defaultPriorityClass(json::Value& obj, json::Allocator& a) {
    defaulting::setString(obj, "preemptionPolicy", "PreemptLowerPriority", a);
}

// Why a "system-" name is refused (IsKnownSystemPriorityClass), "" if it is
// one of the system classes exactly.
std::string systemClassError(std::string_view name, int64_t value, bool globalDefault) {
    for (const SystemClass& c : kSystemClasses) {
        if (c.name != name) {
            continue;
        }
        if (c.value != value) {
            return "value of " + std::string(name) + " PriorityClass must be " +
                   std::to_string(c.value);
        }
        if (globalDefault) {
            return "globalDefault of " + std::string(name) + " PriorityClass must be false";
        }
        return "";
    }
    return std::string(name) + " is not a known system priority class";
}

// Mirrors ValidatePriorityClass (the metadata checks are the store's).
field::Causes validatePriorityClass(const json::Value& obj) {
    field::Causes out;
    std::string_view name = cells::text(obj, {"metadata", "name"});
    int64_t value = cells::integer(obj, {"value"});
    if (name.starts_with("system-")) {
        std::string why = systemClassError(name, value, cells::isTrue(obj, {"globalDefault"}));
        if (!why.empty()) {
            out.push_back(field::forbidden(
                "metadata.name",
                "priority class names with 'system-' prefix are reserved for system use only. "
                "error: " +
                    why));
        }
    } else if (value > kHighestUserDefinablePriority) {
        out.push_back(field::forbidden("value",
                                       "maximum allowed value of a user defined priority "
                                       "is " +
                                           std::to_string(kHighestUserDefinablePriority)));
    }
    // ValidatePreemptionPolicy; defaulting has filled an unset policy.
    const json::Value* policy = json::member(obj, "preemptionPolicy");
    if (policy && policy->IsString()) {
        if (policy->GetStringLength() == 0) {
            out.push_back(field::required("preemptionPolicy"));
        } else {
            field::validateEnum(policy, "preemptionPolicy", {"PreemptLowerPriority", "Never"}, out);
        }
    }
    return out;
}

// Mirrors ValidatePriorityClassUpdate: only what may not change is checked
// again, the value and the preemption policy.
field::Causes validatePriorityClassUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out;
    if (cells::integer(obj, {"value"}) != cells::integer(old, {"value"})) {
        out.push_back(field::forbidden("value", "may not be changed in an update."));
    }
    const json::Value* policy = json::member(obj, "preemptionPolicy");
    const json::Value* oldPolicy = json::member(old, "preemptionPolicy");
    bool set = policy && !policy->IsNull();
    bool oldSet = oldPolicy && !oldPolicy->IsNull();
    if (set != oldSet || (set && *policy != *oldPolicy)) {
        out.push_back(field::invalid("preemptionPolicy",
                                     set ? field::BadValue(*policy) : field::BadValue::null(),
                                     "field is immutable"));
    }
    return out;
}

}  // namespace

registry::KindInfo priorityClassKind() {
    registry::KindInfo k;
    k.group = "scheduling.k8s.io";
    k.version = "v1";
    k.kind = "PriorityClass";
    k.resource = "priorityclasses";
    k.singular = "priorityclass";
    k.namespaced = false;
    k.shortNames = {"pc"};
    // priorityClassStrategy.PrepareForCreate starts the generation at 1.
    k.tracksGeneration = true;
    k.columns = {
        cells::nameColumn(),
        cells::countColumn(
            "Value", "integer",
            "The priority pods of this class get; higher values are scheduled first.",
            [](const json::Value& obj) { return cells::integer(obj, {"value"}); }),
        registry::TableColumn{"Global-Default", "boolean", "",
                              "Whether pods without a priority class name get this class.", 0,
                              [](const json::Value& obj, const TableContext&, json::Allocator&) {
                                  return json::Value(cells::isTrue(obj, {"globalDefault"}));
                              }},
        cells::ageColumn(),
        cells::textColumn("PreemptionPolicy", "string",
                          "Whether pods of this class may preempt pods of lower priority.",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"preemptionPolicy"}));
                          }),
    };
    k.defaults = defaultPriorityClass;
    k.validate = validatePriorityClass;
    k.validateUpdate = validatePriorityClassUpdate;
    return k;
}

}  // namespace kube::apis::scheduling
