// events.k8s.io/v1 Events. kube stores them as core/v1 Events (the
// cohabitating "events" resource) and converts on the way in and out
// (Convert_v1_Event_To_core_Event and back); the table, the field selectors
// and the strategy are core's, with the events API's stricter validation.

#include <string>

#include "apis/core/event_validation.hpp"
#include "apis/core/kinds.hpp"
#include "apis/events/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::events {

namespace {

namespace json = util::json;
namespace field = core::field;
namespace cells = registry::cells;

// Member `fromName` of `from` copied into `to` as `name`; when it is unset
// (absent, null, "" or 0), `absent` is written instead, or nothing.
void copyMember(const json::Value& from, std::string_view fromName, json::Value& to,
                std::string_view name, json::Allocator& a, const json::Value* absent) {
    const json::Value* v = json::member(from, fromName);
    bool unset = !v || v->IsNull() || (v->IsString() && v->GetStringLength() == 0) ||
                 (v->IsNumber() && v->GetDouble() == 0);
    if (!unset) {
        to.AddMember(json::stringValue(name, a), json::Value(*v, a), a);
    } else if (absent) {
        to.AddMember(json::stringValue(name, a), json::Value(*absent, a), a);
    }
}

// The fields of both shapes, in Go's struct order: {core name, events name},
// and what an absent one is written as (null for none).
struct Mapping {
    std::string_view core, events;
    enum class Absent { Omit, Null, EmptyObject, EmptyString } absent;
};

// core/v1 Event order.
constexpr Mapping kCoreOrder[] = {
    {"involvedObject", "regarding", Mapping::Absent::EmptyObject},
    {"reason", "reason", Mapping::Absent::Omit},
    {"message", "note", Mapping::Absent::Omit},
    {"source", "deprecatedSource", Mapping::Absent::EmptyObject},
    {"firstTimestamp", "deprecatedFirstTimestamp", Mapping::Absent::Null},
    {"lastTimestamp", "deprecatedLastTimestamp", Mapping::Absent::Null},
    {"count", "deprecatedCount", Mapping::Absent::Omit},
    {"type", "type", Mapping::Absent::Omit},
    {"eventTime", "eventTime", Mapping::Absent::Null},
    {"series", "series", Mapping::Absent::Omit},
    {"action", "action", Mapping::Absent::Omit},
    {"related", "related", Mapping::Absent::Omit},
    {"reportingComponent", "reportingController", Mapping::Absent::EmptyString},
    {"reportingInstance", "reportingInstance", Mapping::Absent::EmptyString},
};

// events.k8s.io/v1 Event order.
constexpr Mapping kEventsOrder[] = {
    {"eventTime", "eventTime", Mapping::Absent::Null},
    {"series", "series", Mapping::Absent::Omit},
    {"reportingComponent", "reportingController", Mapping::Absent::Omit},
    {"reportingInstance", "reportingInstance", Mapping::Absent::Omit},
    {"action", "action", Mapping::Absent::Omit},
    {"reason", "reason", Mapping::Absent::Omit},
    {"involvedObject", "regarding", Mapping::Absent::EmptyObject},
    {"related", "related", Mapping::Absent::Omit},
    {"message", "note", Mapping::Absent::Omit},
    {"type", "type", Mapping::Absent::Omit},
    {"source", "deprecatedSource", Mapping::Absent::EmptyObject},
    {"firstTimestamp", "deprecatedFirstTimestamp", Mapping::Absent::Null},
    {"lastTimestamp", "deprecatedLastTimestamp", Mapping::Absent::Null},
    {"count", "deprecatedCount", Mapping::Absent::Omit},
};

json::Value absentValue(Mapping::Absent absent) {
    switch (absent) {
        case Mapping::Absent::Null:
            return json::Value(rapidjson::kNullType);
        case Mapping::Absent::EmptyObject:
            return json::Value(rapidjson::kObjectType);
        case Mapping::Absent::EmptyString:
            return json::Value(rapidjson::kStringType);
        case Mapping::Absent::Omit:
            break;
    }
    return json::Value();
}

// Rebuilds `obj` as kind Event of `apiVersion` with the fields of `order`,
// read under one shape's names and written under the other's.
template <size_t N>
void convert(json::Value& obj, json::Allocator& a, std::string_view apiVersion,
             const Mapping (&order)[N], bool toEvents) {
    json::Value out(rapidjson::kObjectType);
    out.AddMember("kind", "Event", a);
    out.AddMember("apiVersion", json::stringValue(apiVersion, a), a);
    if (json::Value* m = json::member(obj, "metadata")) {
        out.AddMember("metadata", json::Value(*m, a), a);
    }
    for (const Mapping& f : order) {
        std::string_view from = toEvents ? f.core : f.events;
        std::string_view to = toEvents ? f.events : f.core;
        json::Value absent = absentValue(f.absent);
        copyMember(obj, from, out, to, a, f.absent == Mapping::Absent::Omit ? nullptr : &absent);
    }
    obj = out;
}

void toStorage(json::Value& obj, json::Allocator& a) {
    convert(obj, a, "v1", kCoreOrder, false);
}

void fromStorage(json::Value& obj, json::Allocator& a) {
    convert(obj, a, "events.k8s.io/v1", kEventsOrder, true);
}

bool hasTime(const json::Value& obj, std::string_view name) {
    return !json::stringMember(obj, name).empty();
}

// validateV1EventSeries.
void validateSeries(const json::Value& obj, field::Causes& out) {
    const json::Value* series = json::member(obj, "series");
    if (!series || !series->IsObject()) {
        return;
    }
    if (cells::integer(*series, {"count"}) < 2) {
        out.push_back(field::invalid("series.count", "", "should be at least 2"));
    }
    if (!hasTime(*series, "lastObservedTime")) {
        out.push_back(field::required("series.lastObservedTime"));
    }
}

// Mirrors ValidateEventCreate for a request at events.k8s.io/v1 (the
// metadata checks are the store's).
field::Causes validateCreate(const json::Value& obj) {
    field::Causes out = core::legacyValidateEvent(obj, "reportingController");
    validateSeries(obj, out);
    if (!hasTime(obj, "eventTime")) {
        out.push_back(field::required("eventTime"));
    }
    std::string_view type = json::stringMember(obj, "type");
    if (type != "Normal" && type != "Warning") {
        out.push_back(field::invalid("type", "", "has invalid value: " + std::string(type)));
    }
    for (std::string_view f : {"firstTimestamp", "lastTimestamp"}) {
        if (hasTime(obj, f)) {
            out.push_back(field::invalid(std::string(f), "", "needs to be unset"));
        }
    }
    if (cells::integer(obj, {"count"}) != 0) {
        out.push_back(field::invalid("count", "", "needs to be unset"));
    }
    if (!cells::text(obj, {"source", "component"}).empty() ||
        !cells::text(obj, {"source", "host"}).empty()) {
        out.push_back(field::invalid("source", "", "needs to be unset"));
    }
    return out;
}

// Mirrors ValidateEventUpdate for a request at events.k8s.io/v1: what the
// event says may not change, a series may.
field::Causes validateUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out = core::legacyValidateEvent(obj, "reportingController");
    static const json::Value none;
    auto of = [](const json::Value& o, std::string_view name) -> const json::Value& {
        const json::Value* v = json::member(o, name);
        return v ? *v : none;
    };
    if (of(obj, "series") != of(old, "series")) {
        validateSeries(obj, out);
    }
    for (std::string_view f :
         {"involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp",
          "count", "reason", "type", "eventTime", "action", "related", "reportingComponent",
          "reportingInstance"}) {
        if (!field::sameMember(obj, old, f)) {
            std::string path = f == "reportingComponent" ? "reportingController" : std::string(f);
            out.push_back(field::invalid(path, of(obj, f), "field is immutable"));
        }
    }
    return out;
}

}  // namespace

registry::KindInfo eventKind() {
    registry::KindInfo k = core::eventKind();
    k.group = "events.k8s.io";
    auto stored = std::make_shared<registry::StoredAs>();
    stored->apiVersion = "v1";
    stored->toStorage = toStorage;
    stored->fromStorage = fromStorage;
    k.storedAs = std::move(stored);
    k.validate = validateCreate;
    k.validateUpdate = validateUpdate;
    // The events API's field labels, read from the stored fields.
    k.selectableFields = {{"metadata.name"},
                          {"metadata.namespace"},
                          {"reason"},
                          {"regarding.kind", "involvedObject.kind"},
                          {"regarding.namespace", "involvedObject.namespace"},
                          {"regarding.name", "involvedObject.name"},
                          {"regarding.uid", "involvedObject.uid"},
                          {"regarding.apiVersion", "involvedObject.apiVersion"},
                          {"regarding.resourceVersion", "involvedObject.resourceVersion"},
                          {"regarding.fieldPath", "involvedObject.fieldPath"},
                          {"reportingController", "reportingComponent"},
                          {"type"}};
    return k;
}

}  // namespace kube::apis::events
