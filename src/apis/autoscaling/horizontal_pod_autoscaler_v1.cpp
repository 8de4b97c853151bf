// autoscaling/v1 HorizontalPodAutoscalers: the autoscaling/v2 objects in
// storage, converted on the way in and out as kube's
// pkg/apis/autoscaling/v1/conversion.go does. v1 says one thing, a CPU
// utilization target; the rest of a v2 object (other metrics, the current
// metrics, the conditions, the scaling behavior) rides in the
// autoscaling.alpha.kubernetes.io/ annotations, in v1's own metric shapes.

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "apis/autoscaling/kinds.hpp"
#include "registry/table_cells.hpp"
#include "util/quantity.hpp"

namespace kube::apis::autoscaling {

namespace {

namespace json = util::json;

// pkg/apis/autoscaling's round-trip annotations.
constexpr std::string_view kMetricSpecs = "autoscaling.alpha.kubernetes.io/metrics";
constexpr std::string_view kMetricStatuses = "autoscaling.alpha.kubernetes.io/current-metrics";
constexpr std::string_view kBehavior = "autoscaling.alpha.kubernetes.io/behavior";
constexpr std::string_view kConditions = "autoscaling.alpha.kubernetes.io/conditions";
constexpr int64_t kDefaultCPUUtilization = 80;

// How a field of a v1 metric source is written.
enum class Form {
    Text,            // a string, written even when empty
    Quantity,        // an optional quantity
    QuantityOrZero,  // a quantity that v1 always writes ("0" when unset)
    Integer,         // an optional int32
    Object,          // an optional object copied as it is (a label selector)
    Reference,       // a CrossVersionObjectReference, always written
};

// One field of a v1 metric source and where v2 keeps it: a member of the v2
// source (`parent` empty) or of one of its parts (`metric`, `target`, `current`).
struct Field {
    std::string_view v1;
    std::string_view parent;
    std::string_view v2;
    Form form;
};

// A metric source of both versions: its JSON member, its fields in v1's
// order, and the v2 source's member order.
struct Source {
    std::string_view member;
    std::vector<Field> fields;
    std::vector<std::string_view> v2Order;
};

const std::vector<Source>& specSources() {
    static const std::vector<Source> sources = {
        {"object",
         {{"target", "", "describedObject", Form::Reference},
          {"metricName", "metric", "name", Form::Text},
          {"targetValue", "target", "value", Form::QuantityOrZero},
          {"selector", "metric", "selector", Form::Object},
          {"averageValue", "target", "averageValue", Form::Quantity}},
         {"describedObject", "target", "metric"}},
        {"pods",
         {{"metricName", "metric", "name", Form::Text},
          {"targetAverageValue", "target", "averageValue", Form::QuantityOrZero},
          {"selector", "metric", "selector", Form::Object}},
         {"metric", "target"}},
        {"resource",
         {{"name", "", "name", Form::Text},
          {"targetAverageUtilization", "target", "averageUtilization", Form::Integer},
          {"targetAverageValue", "target", "averageValue", Form::Quantity}},
         {"name", "target"}},
        {"containerResource",
         {{"name", "", "name", Form::Text},
          {"targetAverageUtilization", "target", "averageUtilization", Form::Integer},
          {"targetAverageValue", "target", "averageValue", Form::Quantity},
          {"container", "", "container", Form::Text}},
         {"name", "target", "container"}},
        {"external",
         {{"metricName", "metric", "name", Form::Text},
          {"metricSelector", "metric", "selector", Form::Object},
          {"targetValue", "target", "value", Form::Quantity},
          {"targetAverageValue", "target", "averageValue", Form::Quantity}},
         {"metric", "target"}},
    };
    return sources;
}

const std::vector<Source>& statusSources() {
    static const std::vector<Source> sources = {
        {"object",
         {{"target", "", "describedObject", Form::Reference},
          {"metricName", "metric", "name", Form::Text},
          {"currentValue", "current", "value", Form::QuantityOrZero},
          {"selector", "metric", "selector", Form::Object},
          {"averageValue", "current", "averageValue", Form::Quantity}},
         {"metric", "current", "describedObject"}},
        {"pods",
         {{"metricName", "metric", "name", Form::Text},
          {"currentAverageValue", "current", "averageValue", Form::QuantityOrZero},
          {"selector", "metric", "selector", Form::Object}},
         {"metric", "current"}},
        {"resource",
         {{"name", "", "name", Form::Text},
          {"currentAverageUtilization", "current", "averageUtilization", Form::Integer},
          {"currentAverageValue", "current", "averageValue", Form::QuantityOrZero}},
         {"name", "current"}},
        {"containerResource",
         {{"name", "", "name", Form::Text},
          {"currentAverageUtilization", "current", "averageUtilization", Form::Integer},
          {"currentAverageValue", "current", "averageValue", Form::QuantityOrZero},
          {"container", "", "container", Form::Text}},
         {"name", "current", "container"}},
        {"external",
         {{"metricName", "metric", "name", Form::Text},
          {"metricSelector", "metric", "selector", Form::Object},
          {"currentValue", "current", "value", Form::QuantityOrZero},
          {"currentAverageValue", "current", "averageValue", Form::Quantity}},
         {"metric", "current"}},
    };
    return sources;
}

// MetricTarget's and MetricValueStatus's member order.
const std::vector<std::string_view> kValueOrder = {"type", "value", "averageValue",
                                                   "averageUtilization"};

const json::Value* present(const json::Value* obj, std::string_view name) {
    if (!obj || !obj->IsObject()) {
        return nullptr;
    }
    const json::Value* v = json::member(*obj, name);
    return v && !v->IsNull() ? v : nullptr;
}

// Moves the members named in `order` to the front of `obj`, in that order.
void reorder(json::Value& obj, const std::vector<std::string_view>& order, json::Allocator& a) {
    if (!obj.IsObject()) {
        return;
    }
    json::Value out(rapidjson::kObjectType);
    for (std::string_view name : order) {
        if (json::Value* v = json::member(obj, name)) {
            out.AddMember(json::stringValue(name, a), *v, a);
            obj.RemoveMember(json::ref(name));
        }
    }
    for (auto& m : obj.GetObject()) {
        out.AddMember(m.name, m.value, a);
    }
    obj = out;
}

json::Value reference(const json::Value* ref, json::Allocator& a) {
    json::Value out(rapidjson::kObjectType);
    out.AddMember("kind", json::stringValue(registry::cells::text(*ref, {"kind"}), a), a);
    out.AddMember("name", json::stringValue(registry::cells::text(*ref, {"name"}), a), a);
    std::string_view apiVersion = registry::cells::text(*ref, {"apiVersion"});
    if (!apiVersion.empty()) {
        out.AddMember("apiVersion", json::stringValue(apiVersion, a), a);
    }
    return out;
}

// Reads a value of `form` from an annotation as Go's decoder would: a value
// of the wrong type fails the whole annotation (`ok` false); a quantity is
// written back in its canonical form.
std::optional<json::Value> decoded(const json::Value* v, Form form, bool& ok, json::Allocator& a) {
    static const json::Value empty(rapidjson::kObjectType);
    bool null = !v || v->IsNull();
    switch (form) {
        case Form::Text:
            if (!null && !v->IsString()) {
                ok = false;
            }
            return json::stringValue(null || !v->IsString() ? "" : json::view(*v), a);
        case Form::Quantity:
        case Form::QuantityOrZero: {
            if (null) {
                return form == Form::Quantity ? std::nullopt : std::optional(json::Value("0", a));
            }
            std::optional<util::Quantity> q =
                v->IsString() ? util::Quantity::parse(json::view(*v)) : std::nullopt;
            if (!q) {
                ok = false;
                return std::nullopt;
            }
            return json::stringValue(q->string(), a);
        }
        case Form::Integer:
            if (null) {
                return std::nullopt;
            }
            if (!v->IsInt()) {
                ok = false;
                return std::nullopt;
            }
            return json::Value(v->GetInt());
        case Form::Object:
            if (null) {
                return std::nullopt;
            }
            if (!v->IsObject()) {
                ok = false;
                return std::nullopt;
            }
            return json::Value(*v, a);
        case Form::Reference:
            if (!null && !v->IsObject()) {
                ok = false;
            }
            return reference(null || !v->IsObject() ? &empty : v, a);
    }
    return std::nullopt;
}

// A v1 metric (a spec or a status, by `sources`) as v2 writes it; `ok`
// turns false when a field has a type Go's decoder refuses.
json::Value metricToV2(const json::Value& m, const std::vector<Source>& sources, bool status,
                       bool& ok, json::Allocator& a) {
    json::Value out(rapidjson::kObjectType);
    if (!m.IsObject()) {
        ok = false;
        return out;
    }
    const json::Value* type = present(&m, "type");
    if (type && !type->IsString()) {
        ok = false;
    }
    out.AddMember("type", json::stringValue(type && type->IsString() ? json::view(*type) : "", a),
                  a);
    for (const Source& s : sources) {
        const json::Value* src = present(&m, s.member);
        if (!src) {
            continue;
        }
        if (!src->IsObject()) {
            ok = false;
            continue;
        }
        json::Value v2(rapidjson::kObjectType);
        for (const Field& f : s.fields) {
            std::optional<json::Value> v = decoded(json::member(*src, f.v1), f.form, ok, a);
            if (!v) {
                continue;
            }
            json::Value* into = &v2;
            if (!f.parent.empty()) {
                if (!json::member(v2, f.parent)) {
                    v2.AddMember(json::stringValue(f.parent, a),
                                 json::Value(rapidjson::kObjectType), a);
                }
                into = json::member(v2, f.parent);
            }
            into->AddMember(json::stringValue(f.v2, a), std::move(*v), a);
        }
        if (!status) {
            // The target type v1 leaves implicit.
            json::Value& target =
                v2.HasMember("target")
                    ? v2["target"]
                    : (v2.AddMember("target", json::Value(rapidjson::kObjectType), a),
                       v2["target"]);
            std::string_view t = "AverageValue";
            if (s.member == "object") {
                t = present(&target, "averageValue") ? "AverageValue" : "Value";
            } else if (s.member == "resource" || s.member == "containerResource") {
                t = present(&target, "averageUtilization") ? "Utilization" : "AverageValue";
            } else if (s.member == "external") {
                t = present(&target, "value") ? "Value" : "AverageValue";
            }
            target.AddMember("type", json::stringValue(t, a), a);
            reorder(target, kValueOrder, a);
        } else if (!v2.HasMember("current")) {
            v2.AddMember("current", json::Value(rapidjson::kObjectType), a);
        } else {
            reorder(v2["current"], kValueOrder, a);
        }
        reorder(v2, s.v2Order, a);
        out.AddMember(json::stringValue(s.member, a), std::move(v2), a);
    }
    return out;
}

// A v2 metric (spec or status) in v1's shape.
json::Value metricToV1(const json::Value& m, const std::vector<Source>& sources,
                       json::Allocator& a) {
    json::Value out(rapidjson::kObjectType);
    out.AddMember("type", json::stringValue(registry::cells::text(m, {"type"}), a), a);
    for (const Source& s : sources) {
        const json::Value* src = present(&m, s.member);
        if (!src || !src->IsObject()) {
            continue;
        }
        json::Value v1(rapidjson::kObjectType);
        for (const Field& f : s.fields) {
            const json::Value* v =
                f.parent.empty() ? present(src, f.v2) : present(present(src, f.parent), f.v2);
            json::Value name = json::stringValue(f.v1, a);
            switch (f.form) {
                case Form::Text:
                    v1.AddMember(name,
                                 json::stringValue(v && v->IsString() ? json::view(*v) : "", a), a);
                    break;
                case Form::Reference: {
                    static const json::Value empty(rapidjson::kObjectType);
                    v1.AddMember(name, reference(v && v->IsObject() ? v : &empty, a), a);
                    break;
                }
                case Form::QuantityOrZero:
                    v1.AddMember(name, v ? json::Value(*v, a) : json::Value("0", a), a);
                    break;
                default:
                    if (v) {
                        v1.AddMember(name, json::Value(*v, a), a);
                    }
            }
        }
        out.AddMember(json::stringValue(s.member, a), std::move(v1), a);
    }
    return out;
}

bool isCPUUtilization(const json::Value& m, std::string_view part, std::string_view value) {
    return registry::cells::text(m, {"type"}) == "Resource" &&
           registry::cells::text(m, {"resource", "name"}) == "cpu" &&
           present(json::at(m, {"resource", part}), value) != nullptr;
}

json::Value cpuMetric(std::string_view part, std::string_view value, const json::Value& percent,
                      json::Allocator& a) {
    json::Value v(rapidjson::kObjectType);
    if (part == "target") {
        v.AddMember("type", "Utilization", a);
    }
    v.AddMember(json::stringValue(value, a), json::Value(percent, a), a);
    json::Value resource(rapidjson::kObjectType);
    resource.AddMember("name", "cpu", a);
    resource.AddMember(json::stringValue(part, a), std::move(v), a);
    json::Value m(rapidjson::kObjectType);
    m.AddMember("type", "Resource", a);
    m.AddMember("resource", std::move(resource), a);
    return m;
}

// The annotation `name` parsed as JSON of `type`, or null.
std::optional<json::Document> annotation(const json::Value* annotations, std::string_view name,
                                         rapidjson::Type type) {
    const json::Value* v = present(annotations, name);
    json::Document doc;
    if (!v || !v->IsString() || json::parse(json::view(*v), doc) || doc.GetType() != type) {
        return std::nullopt;
    }
    return doc;
}

// An annotation's list of v1 metrics in v2's shape; none when Go could not
// decode it.
std::optional<json::Value> metricsFromAnnotation(const json::Value* annotations,
                                                 std::string_view name,
                                                 const std::vector<Source>& sources, bool status,
                                                 json::Allocator& a) {
    std::optional<json::Document> doc = annotation(annotations, name, rapidjson::kArrayType);
    if (!doc) {
        return std::nullopt;
    }
    bool ok = true;
    json::Value out(rapidjson::kArrayType);
    for (const json::Value& m : doc->GetArray()) {
        out.PushBack(metricToV2(m, sources, status, ok, a), a);
    }
    return ok ? std::optional(std::move(out)) : std::nullopt;
}

// Member `name` of `obj` matched without case, as Go's decoder matches
// struct fields.
const json::Value* memberFold(const json::Value* obj, std::string_view name) {
    if (!obj || !obj->IsObject()) {
        return nullptr;
    }
    for (const auto& m : obj->GetObject()) {
        std::string_view key = json::view(m.name);
        if (key.size() == name.size() &&
            std::equal(key.begin(), key.end(), name.begin(), [](char x, char y) {
                return std::tolower(static_cast<unsigned char>(x)) ==
                       std::tolower(static_cast<unsigned char>(y));
            })) {
            return m.value.IsNull() ? nullptr : &m.value;
        }
    }
    return nullptr;
}

// The behavior annotation holds kube's internal HorizontalPodAutoscalerBehavior
// marshalled without JSON tags: Go's field names.
std::optional<json::Value> behaviorFromAnnotation(const json::Value* annotations,
                                                  json::Allocator& a) {
    std::optional<json::Document> doc = annotation(annotations, kBehavior, rapidjson::kObjectType);
    if (!doc) {
        return std::nullopt;
    }
    json::Value out(rapidjson::kObjectType);
    for (auto [goName, name] : {std::pair{"ScaleUp", "scaleUp"}, {"ScaleDown", "scaleDown"}}) {
        const json::Value* rules = memberFold(&*doc, goName);
        if (!rules) {
            continue;
        }
        if (!rules->IsObject()) {
            return std::nullopt;
        }
        json::Value r(rapidjson::kObjectType);
        const json::Value* window = memberFold(rules, "StabilizationWindowSeconds");
        const json::Value* select = memberFold(rules, "SelectPolicy");
        const json::Value* policies = memberFold(rules, "Policies");
        const json::Value* tolerance = memberFold(rules, "Tolerance");
        if ((window && !window->IsInt()) || (select && !select->IsString()) ||
            (policies && !policies->IsArray()) || (tolerance && !tolerance->IsString())) {
            return std::nullopt;
        }
        if (window) {
            r.AddMember("stabilizationWindowSeconds", window->GetInt(), a);
        }
        if (select) {
            r.AddMember("selectPolicy", json::Value(*select, a), a);
        }
        if (policies) {
            json::Value list(rapidjson::kArrayType);
            for (const json::Value& p : policies->GetArray()) {
                const json::Value* type = memberFold(&p, "Type");
                const json::Value* value = memberFold(&p, "Value");
                const json::Value* period = memberFold(&p, "PeriodSeconds");
                if (!p.IsObject() || (type && !type->IsString()) || (value && !value->IsInt()) ||
                    (period && !period->IsInt())) {
                    return std::nullopt;
                }
                json::Value policy(rapidjson::kObjectType);
                policy.AddMember("type", json::stringValue(type ? json::view(*type) : "", a), a);
                policy.AddMember("value", value ? value->GetInt() : 0, a);
                policy.AddMember("periodSeconds", period ? period->GetInt() : 0, a);
                list.PushBack(std::move(policy), a);
            }
            r.AddMember("policies", std::move(list), a);
        }
        if (tolerance) {
            std::optional<util::Quantity> q = util::Quantity::parse(json::view(*tolerance));
            if (!q) {
                return std::nullopt;
            }
            r.AddMember("tolerance", json::stringValue(q->string(), a), a);
        }
        out.AddMember(json::stringValue(name, a), std::move(r), a);
    }
    if (out.ObjectEmpty()) {
        return std::nullopt;
    }
    return out;
}

std::string behaviorAnnotation(const json::Value& behavior) {
    json::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    for (auto [name, goName] : {std::pair{"scaleUp", "ScaleUp"}, {"scaleDown", "ScaleDown"}}) {
        const json::Value* rules = present(&behavior, name);
        if (!rules || !rules->IsObject()) {
            doc.AddMember(json::stringValue(goName, a), json::Value(), a);
            continue;
        }
        json::Value r(rapidjson::kObjectType);
        for (auto [from, to] :
             {std::pair{"stabilizationWindowSeconds", "StabilizationWindowSeconds"},
              {"selectPolicy", "SelectPolicy"}}) {
            const json::Value* v = present(rules, from);
            r.AddMember(json::stringValue(to, a), v ? json::Value(*v, a) : json::Value(), a);
        }
        json::Value list;
        if (const json::Value* policies = present(rules, "policies");
            policies && policies->IsArray()) {
            list.SetArray();
            for (const json::Value& p : policies->GetArray()) {
                json::Value policy(rapidjson::kObjectType);
                policy.AddMember("Type", json::stringValue(registry::cells::text(p, {"type"}), a),
                                 a);
                policy.AddMember("Value", registry::cells::integer(p, {"value"}), a);
                policy.AddMember("PeriodSeconds", registry::cells::integer(p, {"periodSeconds"}),
                                 a);
                list.PushBack(std::move(policy), a);
            }
        }
        r.AddMember("Policies", std::move(list), a);
        // kube 1.33's internal rules carry a Tolerance (HPAConfigurableTolerance);
        // written only when set, so the annotation reads as 1.26's does.
        if (const json::Value* t = present(rules, "tolerance")) {
            r.AddMember("Tolerance", json::Value(*t, a), a);
        }
        doc.AddMember(json::stringValue(goName, a), std::move(r), a);
    }
    return json::serialize(doc);
}

// v1's HorizontalPodAutoscalerCondition, the same fields as v2's; its
// lastTransitionTime is written even when unset (null).
json::Value condition(const json::Value& c, bool& ok, json::Allocator& a) {
    json::Value out(rapidjson::kObjectType);
    if (!c.IsObject()) {
        ok = false;
        return out;
    }
    for (std::string_view name : {"type", "status", "lastTransitionTime", "reason", "message"}) {
        const json::Value* v = present(&c, name);
        if (v && !v->IsString()) {
            ok = false;
        }
        if (v) {
            out.AddMember(json::stringValue(name, a), json::Value(*v, a), a);
        } else if (name == "type" || name == "status") {
            out.AddMember(json::stringValue(name, a), json::Value("", a), a);
        } else if (name == "lastTransitionTime") {
            out.AddMember(json::stringValue(name, a), json::Value(), a);
        }
    }
    return out;
}

void dropRoundTripAnnotations(json::Value& metadata) {
    json::Value* annotations = json::member(metadata, "annotations");
    if (!annotations || !annotations->IsObject()) {
        return;
    }
    for (std::string_view name : {kMetricSpecs, kMetricStatuses, kBehavior, kConditions}) {
        json::removeMember(*annotations, name);
    }
    if (annotations->ObjectEmpty()) {
        json::removeMember(metadata, "annotations");
    }
}

void copyIfPresent(const json::Value* from, std::string_view name, json::Value& to,
                   json::Allocator& a) {
    if (const json::Value* v = present(from, name)) {
        to.AddMember(json::stringValue(name, a), json::Value(*v, a), a);
    }
}

void copyOrZero(const json::Value* from, std::string_view name, json::Value& to,
                json::Allocator& a) {
    const json::Value* v = present(from, name);
    to.AddMember(json::stringValue(name, a), v ? json::Value(*v, a) : json::Value(0), a);
}

// Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler.
void toStorage(json::Value& obj, json::Allocator& a) {
    json::Value out(rapidjson::kObjectType);
    out.AddMember("kind", "HorizontalPodAutoscaler", a);
    out.AddMember("apiVersion", "autoscaling/v2", a);
    const json::Value* annotations = json::at(obj, {"metadata", "annotations"});
    const json::Value* spec = present(&obj, "spec");
    const json::Value* status = present(&obj, "status");

    json::Value s(rapidjson::kObjectType);
    if (const json::Value* ref = present(spec, "scaleTargetRef")) {
        s.AddMember("scaleTargetRef", json::Value(*ref, a), a);
    }
    copyIfPresent(spec, "minReplicas", s, a);
    copyIfPresent(spec, "maxReplicas", s, a);
    json::Value metrics(rapidjson::kArrayType);
    if (std::optional<json::Value> others =
            metricsFromAnnotation(annotations, kMetricSpecs, specSources(), false, a)) {
        metrics = std::move(*others);
    }
    if (const json::Value* cpu = present(spec, "targetCPUUtilizationPercentage")) {
        metrics.PushBack(cpuMetric("target", "averageUtilization", *cpu, a), a);
    }
    if (metrics.Empty()) {
        // v1's implicit target, made explicit.
        metrics.PushBack(
            cpuMetric("target", "averageUtilization", json::Value(kDefaultCPUUtilization), a), a);
    }
    s.AddMember("metrics", std::move(metrics), a);
    if (std::optional<json::Value> behavior = behaviorFromAnnotation(annotations, a)) {
        s.AddMember("behavior", std::move(*behavior), a);
    }

    json::Value st(rapidjson::kObjectType);
    copyIfPresent(status, "observedGeneration", st, a);
    copyIfPresent(status, "lastScaleTime", st, a);
    // v2 leaves out a currentReplicas of 0.
    if (const json::Value* n = present(status, "currentReplicas");
        n && !(n->IsInt() && n->GetInt() == 0)) {
        st.AddMember("currentReplicas", json::Value(*n, a), a);
    }
    copyOrZero(status, "desiredReplicas", st, a);
    std::optional<json::Value> current =
        metricsFromAnnotation(annotations, kMetricStatuses, statusSources(), true, a);
    if (!current) {
        if (const json::Value* cpu = present(status, "currentCPUUtilizationPercentage")) {
            current.emplace(rapidjson::kArrayType);
            current->PushBack(cpuMetric("current", "averageUtilization", *cpu, a), a);
        }
    }
    if (current) {
        st.AddMember("currentMetrics", std::move(*current), a);
    }
    if (std::optional<json::Document> conditions =
            annotation(annotations, kConditions, rapidjson::kArrayType)) {
        bool ok = true;
        json::Value list(rapidjson::kArrayType);
        for (const json::Value& c : conditions->GetArray()) {
            list.PushBack(condition(c, ok, a), a);
        }
        if (ok) {
            st.AddMember("conditions", std::move(list), a);
        }
    }

    if (json::Value* m = json::member(obj, "metadata")) {
        json::Value metadata(*m, a);
        if (metadata.IsObject()) {
            dropRoundTripAnnotations(metadata);
        }
        out.AddMember("metadata", std::move(metadata), a);
    }
    out.AddMember("spec", std::move(s), a);
    if (status || !st.ObjectEmpty()) {
        out.AddMember("status", std::move(st), a);
    }
    obj = out;
}

// Adds annotation `name` in key order (Go writes maps sorted).
void addAnnotation(json::Value& metadata, std::string_view name, const std::string& value,
                   json::Allocator& a) {
    json::Value* annotations = json::member(metadata, "annotations");
    if (!annotations || !annotations->IsObject()) {
        json::setMember(metadata, "annotations", json::Value(rapidjson::kObjectType), a);
        annotations = json::member(metadata, "annotations");
    }
    json::setMember(*annotations, name, json::stringValue(value, a), a);
    std::vector<std::string> names;
    for (const auto& m : annotations->GetObject()) {
        names.emplace_back(json::view(m.name));
    }
    std::sort(names.begin(), names.end());
    reorder(*annotations, std::vector<std::string_view>(names.begin(), names.end()), a);
}

// Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler.
void fromStorage(json::Value& obj, json::Allocator& a) {
    json::Value out(rapidjson::kObjectType);
    out.AddMember("kind", "HorizontalPodAutoscaler", a);
    out.AddMember("apiVersion", "autoscaling/v1", a);
    const json::Value* spec = present(&obj, "spec");
    const json::Value* status = present(&obj, "status");
    const json::Value* metrics = present(spec, "metrics");
    const json::Value* currentMetrics = present(status, "currentMetrics");
    const json::Value* conditions = present(status, "conditions");

    json::Value s(rapidjson::kObjectType);
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* ref = present(spec, "scaleTargetRef");
    s.AddMember("scaleTargetRef", reference(ref && ref->IsObject() ? ref : &empty, a), a);
    copyIfPresent(spec, "minReplicas", s, a);
    copyOrZero(spec, "maxReplicas", s, a);
    json::Value others(rapidjson::kArrayType);
    bool cpuTarget = false;
    if (metrics && metrics->IsArray()) {
        for (const json::Value& m : metrics->GetArray()) {
            if (isCPUUtilization(m, "target", "averageUtilization")) {
                if (!cpuTarget) {
                    s.AddMember("targetCPUUtilizationPercentage",
                                json::Value(m["resource"]["target"]["averageUtilization"], a), a);
                    cpuTarget = true;
                }
                continue;
            }
            others.PushBack(metricToV1(m, specSources(), a), a);
        }
    }

    json::Value st(rapidjson::kObjectType);
    copyIfPresent(status, "observedGeneration", st, a);
    copyIfPresent(status, "lastScaleTime", st, a);
    copyOrZero(status, "currentReplicas", st, a);
    copyOrZero(status, "desiredReplicas", st, a);
    json::Value current(rapidjson::kArrayType);
    const json::Value* cpuCurrent = nullptr;
    if (currentMetrics && currentMetrics->IsArray()) {
        for (const json::Value& m : currentMetrics->GetArray()) {
            if (isCPUUtilization(m, "current", "averageUtilization")) {
                cpuCurrent = &m["resource"]["current"]["averageUtilization"];
            }
            current.PushBack(metricToV1(m, statusSources(), a), a);
        }
    }
    if (cpuCurrent) {
        st.AddMember("currentCPUUtilizationPercentage", json::Value(*cpuCurrent, a), a);
    }

    json::Value metadata(rapidjson::kObjectType);
    if (const json::Value* m = present(&obj, "metadata"); m && m->IsObject()) {
        metadata.CopyFrom(*m, a);
    }
    dropRoundTripAnnotations(metadata);
    if (!others.Empty()) {
        addAnnotation(metadata, kMetricSpecs, json::serialize(others), a);
    }
    if (!current.Empty()) {
        addAnnotation(metadata, kMetricStatuses, json::serialize(current), a);
    }
    if (const json::Value* behavior = present(spec, "behavior"); behavior && behavior->IsObject()) {
        addAnnotation(metadata, kBehavior, behaviorAnnotation(*behavior), a);
    }
    if (conditions && conditions->IsArray() && !conditions->Empty()) {
        bool ok = true;
        json::Value list(rapidjson::kArrayType);
        for (const json::Value& c : conditions->GetArray()) {
            list.PushBack(condition(c, ok, a), a);
        }
        addAnnotation(metadata, kConditions, json::serialize(list), a);
    }
    out.AddMember("metadata", std::move(metadata), a);
    out.AddMember("spec", std::move(s), a);
    out.AddMember("status", std::move(st), a);
    obj = out;
}

}  // namespace

registry::KindInfo horizontalPodAutoscalerV1Kind() {
    registry::KindInfo k = horizontalPodAutoscalerV2Kind();
    k.version = "v1";
    auto stored = std::make_shared<registry::StoredAs>();
    stored->apiVersion = "autoscaling/v2";
    stored->toStorage = toStorage;
    stored->fromStorage = fromStorage;
    k.storedAs = std::move(stored);
    return k;
}

}  // namespace kube::apis::autoscaling
