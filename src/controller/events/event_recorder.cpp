#include "controller/events/event_recorder.hpp"

#include <chrono>
#include <cstdio>
#include <memory>

#include "util/time.hpp"

namespace kube::controller::events {

namespace json = util::json;

ObjectReference referenceTo(const json::Value& obj, std::string_view apiVersion,
                            std::string_view kind) {
    static const json::Value kNone(rapidjson::kObjectType);
    const json::Value* metadata = json::member(obj, "metadata");
    const json::Value& m = metadata && metadata->IsObject() ? *metadata : kNone;
    ObjectReference ref;
    ref.apiVersion = apiVersion;
    ref.kind = kind;
    ref.ns = json::stringMember(m, "namespace");
    ref.name = json::stringMember(m, "name");
    ref.uid = json::stringMember(m, "uid");
    ref.resourceVersion = json::stringMember(m, "resourceVersion");
    return ref;
}

EventRecorder::EventRecorder(util::EventLoop& loop, StoreFor stores, std::string component)
    : loop_(loop), stores_(std::move(stores)), component_(std::move(component)) {}

void EventRecorder::warning(const ObjectReference& about, std::string_view reason,
                            std::string_view message) {
    record(about, "Warning", reason, message);
}

void EventRecorder::normal(const ObjectReference& about, std::string_view reason,
                           std::string_view message) {
    record(about, "Normal", reason, message);
}

void EventRecorder::record(const ObjectReference& about, std::string_view type,
                           std::string_view reason, std::string_view message) {
    registry::Store* store = stores_("", "events");
    if (!store) {
        return;
    }
    auto now = loop_.now();
    auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch());
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, ".%llx", static_cast<unsigned long long>(nanos.count()));
    std::string ns = about.ns.empty() ? "default" : about.ns;
    std::string timestamp = util::time::formatRFC3339(now);

    auto doc = std::make_shared<json::Document>(rapidjson::kObjectType);
    json::Allocator& a = doc->GetAllocator();
    auto text = [&a](std::string_view s) { return json::stringValue(s, a); };

    json::Value metadata(rapidjson::kObjectType);
    metadata.AddMember("name", text(about.name + suffix), a);
    metadata.AddMember("namespace", text(ns), a);
    doc->AddMember("metadata", metadata, a);

    // v1.ObjectReference's members that are set, in its order
    json::Value involved(rapidjson::kObjectType);
    for (auto [name, value] : {std::pair<const char*, const std::string*>{"kind", &about.kind},
                               {"namespace", &about.ns},
                               {"name", &about.name},
                               {"uid", &about.uid},
                               {"apiVersion", &about.apiVersion},
                               {"resourceVersion", &about.resourceVersion}}) {
        if (!value->empty()) {
            involved.AddMember(json::Value(name, a), text(*value), a);
        }
    }
    doc->AddMember("involvedObject", involved, a);
    doc->AddMember("reason", text(reason), a);
    doc->AddMember("message", text(message), a);
    json::Value source(rapidjson::kObjectType);
    source.AddMember("component", text(component_), a);
    doc->AddMember("source", source, a);
    doc->AddMember("firstTimestamp", text(timestamp), a);
    doc->AddMember("lastTimestamp", text(timestamp), a);
    doc->AddMember("count", 1, a);
    doc->AddMember("type", text(type), a);
    doc->AddMember("reportingComponent", text(component_), a);
    doc->AddMember("reportingInstance", "", a);

    registry::CreateOptions opts;
    opts.manager = "kube-apiserver";
    store->create(ns, doc, opts, [](const meta::Status*, std::string_view) {});
}

}  // namespace kube::controller::events
