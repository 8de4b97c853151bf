#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "apis/autoscaling/kinds.hpp"
#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/core/resource_names.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"
#include "util/quantity.hpp"

namespace kube::apis::autoscaling {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
namespace field = core::field;
namespace json = util::json;
namespace validation = registry::validation;
using registry::TableContext;

// DefaultCPUUtilization, MaxStabilizationWindowSeconds, MaxPeriodSeconds.
constexpr int64_t kDefaultCPUUtilization = 80;
constexpr int64_t kMaxStabilizationWindowSeconds = 3600;
constexpr int64_t kMaxPeriodSeconds = 1800;

json::Value policy(std::string_view type, int64_t value, json::Allocator& a) {
    json::Value p(rapidjson::kObjectType);
    p.AddMember("type", json::stringValue(type, a), a);
    p.AddMember("value", value, a);
    p.AddMember("periodSeconds", 15, a);
    return p;
}

// GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: what the rules
// leave unset comes from kube's defaults for the direction.
void defaultScalingRules(json::Value& behavior, std::string_view direction, json::Allocator& a) {
    bool up = direction == "scaleUp";
    json::Value& rules = defaulting::ensureObject(behavior, direction, a);
    if (!rules.IsObject()) {
        return;
    }
    if (up) {
        defaulting::setInt(rules, "stabilizationWindowSeconds", 0, a);
    }
    defaulting::setString(rules, "selectPolicy", "Max", a);
    const json::Value* policies = json::member(rules, "policies");
    if (!policies || policies->IsNull()) {
        json::Value list(rapidjson::kArrayType);
        if (up) {
            list.PushBack(policy("Pods", 4, a), a);
        }
        list.PushBack(policy("Percent", 100, a), a);
        json::setMember(rules, "policies", std::move(list), a);
    }
}

// Mirrors SetDefaults_HorizontalPodAutoscaler (autoscaling/v2): one
// replica at least, 80% average CPU when no metric is named, and the
// default scaling rules for a direction a behavior leaves out.
void defaultHorizontalPodAutoscaler(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    defaulting::setInt(spec, "minReplicas", 1, a);
    if (cells::count(json::member(spec, "metrics")) == 0) {
        json::Value target(rapidjson::kObjectType);
        target.AddMember("type", "Utilization", a);
        target.AddMember("averageUtilization", kDefaultCPUUtilization, a);
        json::Value resource(rapidjson::kObjectType);
        resource.AddMember("name", "cpu", a);
        resource.AddMember("target", std::move(target), a);
        json::Value metric(rapidjson::kObjectType);
        metric.AddMember("type", "Resource", a);
        metric.AddMember("resource", std::move(resource), a);
        json::Value metrics(rapidjson::kArrayType);
        metrics.PushBack(std::move(metric), a);
        json::setMember(spec, "metrics", std::move(metrics), a);
    }
    json::Value* behavior = json::member(spec, "behavior");
    if (behavior && behavior->IsObject()) {
        defaultScalingRules(*behavior, "scaleUp", a);
        defaultScalingRules(*behavior, "scaleDown", a);
    }
}

// Whether any scaling rule sets a tolerance (alpha: HPAConfigurableTolerance).
bool usesTolerance(const json::Value& obj) {
    for (std::string_view direction : {"scaleUp", "scaleDown"}) {
        const json::Value* t = json::at(obj, {"spec", "behavior", direction, "tolerance"});
        if (t && !t->IsNull()) {
            return true;
        }
    }
    return false;
}

// dropDisabledFields: without the HPAConfigurableTolerance feature gate a
// tolerance is dropped unless the stored object already had one.
void dropTolerance(json::Value& obj) {
    json::Value* spec = json::member(obj, "spec");
    json::Value* behavior = spec && spec->IsObject() ? json::member(*spec, "behavior") : nullptr;
    if (!behavior || !behavior->IsObject()) {
        return;
    }
    for (std::string_view direction : {"scaleUp", "scaleDown"}) {
        if (json::Value* rules = json::member(*behavior, direction); rules && rules->IsObject()) {
            json::removeMember(*rules, "tolerance");
        }
    }
}

// Mirrors hpaStrategy.PrepareForCreate: the status starts empty (its
// desiredReplicas is always written).
void prepareHorizontalPodAutoscaler(json::Value& obj, json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    status.AddMember("desiredReplicas", 0, a);
    json::setMember(obj, "status", std::move(status), a);
    dropTolerance(obj);
}

void prepareHorizontalPodAutoscalerUpdate(json::Value& obj, const json::Value& old,
                                          json::Allocator&) {
    if (!usesTolerance(old)) {
        dropTolerance(obj);
    }
}

void validateCrossVersionObjectReference(const json::Value* ref, const std::string& path,
                                         field::Causes& out) {
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value& r = ref && ref->IsObject() ? *ref : empty;
    for (std::string_view member : {"kind", "name"}) {
        std::string_view v = cells::text(r, {member});
        std::string p = field::child(path, member);
        if (v.empty()) {
            out.push_back(field::required(p));
            continue;
        }
        for (const std::string& msg : validation::isValidPathSegmentName(v)) {
            out.push_back(field::invalid(p, v, msg));
        }
    }
}

void validateMetricIdentifier(const json::Value& source, const std::string& path,
                              field::Causes& out) {
    std::string_view name = cells::text(source, {"metric", "name"});
    std::string p = path + ".metric.name";
    if (name.empty()) {
        out.push_back(field::required(p, "must specify a metric name"));
        return;
    }
    for (const std::string& msg : validation::isValidPathSegmentName(name)) {
        out.push_back(field::invalid(p, name, msg));
    }
}

const json::Value* present(const json::Value& obj, std::string_view member) {
    const json::Value* v = json::member(obj, member);
    return v && !v->IsNull() ? v : nullptr;
}

// Mirrors validateMetricTarget.
void validateMetricTarget(const json::Value& target, const std::string& path, field::Causes& out) {
    std::string_view type = cells::text(target, {"type"});
    if (type.empty()) {
        out.push_back(field::required(path + ".type", "must specify a metric target type"));
    }
    if (type != "Utilization" && type != "Value" && type != "AverageValue") {
        out.push_back(field::invalid(path + ".type", type,
                                     "must be either Utilization, Value, or AverageValue"));
    }
    for (std::string_view member : {"value", "averageValue"}) {
        const json::Value* v = present(target, member);
        if (!v || !v->IsString()) {
            continue;
        }
        std::optional<util::Quantity> q = util::Quantity::parse(json::view(*v));
        if (q && q->compare(util::Quantity()) <= 0) {
            out.push_back(field::invalid(field::child(path, member),
                                         field::BadValue::raw(q->goString()), "must be positive"));
        }
    }
    if (const json::Value* u = present(target, "averageUtilization"); u && u->IsInt64()) {
        if (u->GetInt64() < 1) {
            out.push_back(field::invalid(path + ".averageUtilization", u->GetInt64(),
                                         "must be greater than 0"));
        }
    }
}

// The checks of one metric source, by the JSON member that holds it
// (validateObjectSource, validatePodsSource, ...).
void validateSource(std::string_view member, const json::Value& src, const std::string& path,
                    field::Causes& out) {
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* t = json::member(src, "target");
    const json::Value& target = t && t->IsObject() ? *t : empty;
    std::string targetPath = path + ".target";
    bool value = present(target, "value") != nullptr;
    bool averageValue = present(target, "averageValue") != nullptr;
    bool utilization = present(target, "averageUtilization") != nullptr;
    if (member == "object") {
        validateCrossVersionObjectReference(json::member(src, "describedObject"),
                                            path + ".describedObject", out);
        validateMetricIdentifier(src, path, out);
        validateMetricTarget(target, targetPath, out);
        if (!value && !averageValue) {
            out.push_back(field::required(targetPath + ".averageValue",
                                          "must set either a target value or averageValue"));
        }
    } else if (member == "external") {
        validateMetricIdentifier(src, path, out);
        validateMetricTarget(target, targetPath, out);
        if (!value && !averageValue) {
            out.push_back(
                field::required(targetPath + ".averageValue",
                                "must set either a target value for metric or a per-pod target"));
        }
        if (value && averageValue) {
            out.push_back(field::forbidden(
                targetPath + ".value",
                "may not set both a target value for metric and a per-pod target"));
        }
    } else if (member == "pods") {
        validateMetricIdentifier(src, path, out);
        validateMetricTarget(target, targetPath, out);
        if (!averageValue) {
            out.push_back(field::required(targetPath + ".averageValue",
                                          "must specify a positive target averageValue"));
        }
    } else {  // resource, containerResource
        std::string_view name = cells::text(src, {"name"});
        if (name.empty()) {
            out.push_back(field::required(path + ".name", "must specify a resource name"));
        } else {
            core::validateContainerResourceName(name, path + ".name", out);
        }
        if (member == "containerResource") {
            std::string_view container = cells::text(src, {"container"});
            if (container.empty()) {
                out.push_back(field::required(path + ".container", "must specify a container"));
            } else {
                for (const std::string& msg : validation::isDNS1123Label(container)) {
                    out.push_back(field::invalid(path + ".container", container, msg));
                }
            }
        }
        validateMetricTarget(target, targetPath, out);
        if (!utilization && !averageValue) {
            out.push_back(field::required(targetPath + ".averageUtilization",
                                          "must set either a target raw value or a target "
                                          "utilization"));
        }
        if (utilization && averageValue) {
            out.push_back(field::forbidden(targetPath + ".averageValue",
                                           "may not set both a target raw value and a target "
                                           "utilization"));
        }
    }
}

// The metric source types and the member each one's source is in.
struct SourceType {
    std::string_view type;
    std::string_view member;
};
constexpr SourceType kSourceTypes[] = {
    {"Object", "object"},
    {"External", "external"},
    {"Pods", "pods"},
    {"Resource", "resource"},
    {"ContainerResource", "containerResource"},
};
const std::vector<std::string> kSourceTypeNames = {"ContainerResource", "External", "Object",
                                                   "Pods", "Resource"};

// Mirrors validateMetricSpec: a known type, its source set, only the first
// source present checked, and no other source beside it.
void validateMetricSpec(const json::Value& spec, const std::string& path, field::Causes& out) {
    std::string_view type = cells::text(spec, {"type"});
    bool known = false;
    std::string_view expected;
    for (const SourceType& t : kSourceTypes) {
        if (t.type == type) {
            known = true;
            expected = t.member;
        }
    }
    if (type.empty()) {
        out.push_back(field::required(path + ".type", "must specify a metric source type"));
    }
    if (!known) {
        out.push_back(field::notSupported(path + ".type", type, kSourceTypeNames));
    }
    std::vector<std::string_view> presentSources;
    for (const SourceType& t : kSourceTypes) {
        const json::Value* src = present(spec, t.member);
        if (!src) {
            continue;
        }
        presentSources.push_back(t.member);
        if (presentSources.size() == 1 && src->IsObject()) {
            validateSource(t.member, *src, field::child(path, t.member), out);
        }
    }
    if (!known) {
        out.push_back(field::notSupported(path + ".type", type, kSourceTypeNames));
    } else if (!present(spec, expected)) {
        out.push_back(field::required(field::child(path, expected),
                                      "must populate information for the given metric source"));
    }
    if (presentSources.size() > 1) {
        // Go ranges over a set: the order is its own; name order here.
        std::sort(presentSources.begin(), presentSources.end());
        for (std::string_view m : presentSources) {
            if (m != expected) {
                out.push_back(field::forbidden(field::child(path, m),
                                               "must populate the given metric source only"));
            }
        }
    }
}

// Mirrors validateScalingRules.
void validateScalingRules(const json::Value& rules, const std::string& path, field::Causes& out) {
    if (const json::Value* w = present(rules, "stabilizationWindowSeconds"); w && w->IsInt64()) {
        if (w->GetInt64() < 0) {
            out.push_back(field::invalid(path + ".stabilizationWindowSeconds", w->GetInt64(),
                                         "must be greater than or equal to zero"));
        }
        if (w->GetInt64() > kMaxStabilizationWindowSeconds) {
            out.push_back(field::invalid(path + ".stabilizationWindowSeconds", w->GetInt64(),
                                         "must be less than or equal to 3600"));
        }
    }
    if (const json::Value* p = present(rules, "selectPolicy"); p && p->IsString()) {
        field::validateEnum(p, path + ".selectPolicy", {"Disabled", "Max", "Min"}, out);
    }
    const json::Value* policies = json::member(rules, "policies");
    std::string policiesPath = path + ".policies";
    if (cells::count(policies) == 0) {
        out.push_back(field::required(policiesPath, "must specify at least one Policy"));
        return;
    }
    if (!policies->IsArray()) {
        return;
    }
    for (size_t i = 0; i < policies->Size(); i++) {
        const json::Value& p = (*policies)[static_cast<rapidjson::SizeType>(i)];
        std::string idx = field::index(policiesPath, i);
        std::string_view type = cells::text(p, {"type"});
        if (type != "Pods" && type != "Percent") {
            out.push_back(field::notSupported(idx + ".type", type, {"Percent", "Pods"}));
        }
        int64_t value = cells::integer(p, {"value"});
        if (value <= 0) {
            out.push_back(field::invalid(idx + ".value", value, "must be greater than zero"));
        }
        int64_t period = cells::integer(p, {"periodSeconds"});
        if (period <= 0) {
            out.push_back(
                field::invalid(idx + ".periodSeconds", period, "must be greater than zero"));
        }
        if (period > kMaxPeriodSeconds) {
            out.push_back(field::invalid(idx + ".periodSeconds", period,
                                         "must be less than or equal to 1800"));
        }
    }
}

// Mirrors validateHorizontalPodAutoscalerSpec with the feature gates of
// 1.33's defaults (no scale to zero: minReplicas is at least 1).
field::Causes validateHorizontalPodAutoscaler(const json::Value& obj) {
    field::Causes out;
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* specp = json::member(obj, "spec");
    const json::Value& spec = specp && specp->IsObject() ? *specp : empty;
    const json::Value* min = present(spec, "minReplicas");
    int64_t maxReplicas = cells::integer(spec, {"maxReplicas"});
    if (min && min->IsInt64() && min->GetInt64() < 1) {
        out.push_back(field::invalid("spec.minReplicas", min->GetInt64(),
                                     "must be greater than or equal to 1"));
    }
    if (maxReplicas < 1) {
        out.push_back(field::invalid("spec.maxReplicas", maxReplicas, "must be greater than 0"));
    }
    if (min && min->IsInt64() && maxReplicas < min->GetInt64()) {
        out.push_back(field::invalid("spec.maxReplicas", maxReplicas,
                                     "must be greater than or equal to `minReplicas`"));
    }
    validateCrossVersionObjectReference(json::member(spec, "scaleTargetRef"), "spec.scaleTargetRef",
                                        out);
    bool objectOrExternal = false;
    if (const json::Value* metrics = json::member(spec, "metrics"); metrics && metrics->IsArray()) {
        for (size_t i = 0; i < metrics->Size(); i++) {
            const json::Value& m = (*metrics)[static_cast<rapidjson::SizeType>(i)];
            validateMetricSpec(m, field::index("spec.metrics", i), out);
            std::string_view type = cells::text(m, {"type"});
            objectOrExternal = objectOrExternal || type == "Object" || type == "External";
        }
    }
    if (min && min->IsInt64() && min->GetInt64() == 0 && !objectOrExternal) {
        out.push_back(field::forbidden("spec.metrics",
                                       "must specify at least one Object or External metric to "
                                       "support scaling to zero replicas"));
    }
    for (std::string_view direction : {"scaleUp", "scaleDown"}) {
        const json::Value* rules = json::at(spec, {"behavior", direction});
        if (rules && rules->IsObject()) {
            validateScalingRules(*rules, "spec.behavior." + std::string(direction), out);
        }
    }
    return out;
}

// Mirrors ValidateHorizontalPodAutoscalerStatusUpdate, whose second path
// kube spells "desiredReplicasa".
field::Causes validateHorizontalPodAutoscalerStatus(const json::Value& obj, const json::Value&) {
    field::Causes out;
    field::validateNonnegative(json::at(obj, {"status", "currentReplicas"}),
                               "status.currentReplicas", out);
    field::validateNonnegative(json::at(obj, {"status", "desiredReplicas"}),
                               "status.desiredReplicasa", out);
    return out;
}

std::string quantityText(const json::Value* v) {
    if (!v || !v->IsString()) {
        return "0";
    }
    std::optional<util::Quantity> q = util::Quantity::parse(json::view(*v));
    return q ? q->string() : std::string(json::view(*v));
}

// One metric of formatHPAMetrics: "<current>/<target>", resources prefixed
// with their name (kube 1.27 on).
std::string formatMetric(const json::Value& spec, const json::Value* status) {
    std::string_view type = cells::text(spec, {"type"});
    auto specAt = [&spec](std::initializer_list<std::string_view> path) {
        const json::Value* v = json::at(spec, path);
        return v && !v->IsNull() ? v : nullptr;
    };
    auto statusAt = [status](std::initializer_list<std::string_view> path) {
        const json::Value* v = status ? json::at(*status, path) : nullptr;
        return v && !v->IsNull() ? v : nullptr;
    };
    if (type == "External" || type == "Object") {
        std::string_view m = type == "External" ? "external" : "object";
        if (const json::Value* avg = specAt({m, "target", "averageValue"})) {
            const json::Value* cur = statusAt({m, "current", "averageValue"});
            return (cur ? quantityText(cur) : "<unknown>") + "/" + quantityText(avg) + " (avg)";
        }
        std::string current =
            statusAt({m}) ? quantityText(statusAt({m, "current", "value"})) : "<unknown>";
        return current + "/" + quantityText(specAt({m, "target", "value"}));
    }
    if (type == "Pods") {
        std::string current = statusAt({"pods"})
                                  ? quantityText(statusAt({"pods", "current", "averageValue"}))
                                  : "<unknown>";
        return current + "/" + quantityText(specAt({"pods", "target", "averageValue"}));
    }
    if (type == "Resource" || type == "ContainerResource") {
        std::string_view m = type == "Resource" ? "resource" : "containerResource";
        std::string name(cells::text(spec, {m, "name"}));
        if (const json::Value* avg = specAt({m, "target", "averageValue"})) {
            std::string current = statusAt({m})
                                      ? quantityText(statusAt({m, "current", "averageValue"}))
                                      : "<unknown>";
            return name + ": " + current + "/" + quantityText(avg);
        }
        std::string current = "<unknown>";
        if (const json::Value* u = statusAt({m, "current", "averageUtilization"});
            u && u->IsInt64()) {
            current = std::to_string(u->GetInt64()) + "%";
        }
        std::string target = "<auto>";
        if (const json::Value* u = specAt({m, "target", "averageUtilization"}); u && u->IsInt64()) {
            target = std::to_string(u->GetInt64()) + "%";
        }
        return name + ": " + current + "/" + target;
    }
    return "<unknown type>";
}

// formatHPAMetrics: the first two metrics, then how many more.
std::string targetsCell(const json::Value& obj) {
    const json::Value* specs = json::at(obj, {"spec", "metrics"});
    if (!specs || !specs->IsArray() || specs->Empty()) {
        return "<none>";
    }
    const json::Value* statuses = json::at(obj, {"status", "currentMetrics"});
    size_t statusCount = statuses && statuses->IsArray() ? statuses->Size() : 0;
    std::string out;
    size_t n = specs->Size();
    for (size_t i = 0; i < n && i < 2; i++) {
        const json::Value* status =
            i < statusCount ? &(*statuses)[static_cast<rapidjson::SizeType>(i)] : nullptr;
        out +=
            (i ? ", " : "") + formatMetric((*specs)[static_cast<rapidjson::SizeType>(i)], status);
    }
    if (n > 2) {
        out += " + " + std::to_string(n - 2) + " more...";
    }
    return out;
}

}  // namespace

// mirrors pkg/registry/autoscaling/horizontalpodautoscaler and
// printHorizontalPodAutoscaler.
registry::KindInfo horizontalPodAutoscalerV2Kind() {
    registry::KindInfo k;
    k.group = "autoscaling";
    k.version = "v2";
    k.kind = "HorizontalPodAutoscaler";
    k.resource = "horizontalpodautoscalers";
    k.singular = "horizontalpodautoscaler";
    k.shortNames = {"hpa"};
    k.categories = {"all"};
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn(
            "Reference", "string",
            "scaleTargetRef points to the target resource to scale, and is used to the pods for "
            "which metrics should be collected, as well as to actually change the replica count.",
            [](const json::Value& obj, const TableContext&) {
                return std::string(cells::text(obj, {"spec", "scaleTargetRef", "kind"})) + "/" +
                       std::string(cells::text(obj, {"spec", "scaleTargetRef", "name"}));
            }),
        cells::textColumn(
            "Targets", "string",
            "metrics contains the specifications for which to use to calculate the desired "
            "replica count (the maximum replica count across all metrics will be used).  The "
            "desired replica count is calculated multiplying the ratio between the target value "
            "and the current value by the current number of pods.  Ergo, metrics used must "
            "decrease as the pod count is increased, and vice-versa.  See the individual metric "
            "source types for more information about how each type of metric must respond.",
            [](const json::Value& obj, const TableContext&) { return targetsCell(obj); }),
        cells::textColumn(
            "MinPods", "string",
            "minReplicas is the lower limit for the number of replicas to which the autoscaler "
            "can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha "
            "feature gate HPAScaleToZero is enabled and at least one Object or External metric "
            "is configured.  Scaling is active as long as at least one metric value is "
            "available.",
            [](const json::Value& obj, const TableContext&) {
                const json::Value* min = json::at(obj, {"spec", "minReplicas"});
                return min && min->IsInt64() ? std::to_string(min->GetInt64())
                                             : std::string("<unset>");
            }),
        cells::countColumn("MaxPods", "string",
                           "maxReplicas is the upper limit for the number of replicas to which "
                           "the autoscaler can scale up. It cannot be less that minReplicas.",
                           [](const json::Value& obj) {
                               return cells::integer(obj, {"spec", "maxReplicas"});
                           }),
        cells::countColumn("Replicas", "string",
                           "currentReplicas is current number of replicas of pods managed by "
                           "this autoscaler, as last seen by the autoscaler.",
                           [](const json::Value& obj) {
                               return cells::integer(obj, {"status", "currentReplicas"});
                           }),
        cells::ageColumn(),
    };
    k.defaults = defaultHorizontalPodAutoscaler;
    k.prepareForCreate = prepareHorizontalPodAutoscaler;
    k.prepareForUpdate = prepareHorizontalPodAutoscalerUpdate;
    k.validate = validateHorizontalPodAutoscaler;
    k.validateStatusUpdate = validateHorizontalPodAutoscalerStatus;
    return k;
}

}  // namespace kube::apis::autoscaling
