#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "registry/store.hpp"
#include "util/event_loop.hpp"
#include "util/json.hpp"

// client-go's record.EventRecorder as kube-apiserver's own controllers use
// it: each event is a core/v1 Event written once, never aggregated,
//   metadata.name   "<object's name>.<the time in nanoseconds, hex>"
//   namespace       the object's, or "default" for a cluster-scoped one
//   involvedObject  the object's reference (reference.GetReference)
//   source          {component}; reportingComponent the same
//   first/lastTimestamp the time, count 1
// written by the server (no user, field manager "kube-apiserver") and
// forgotten: a failed write is not retried, as client-go drops it after
// its sink's tries. Loop thread only.
namespace kube::controller::events {

// The object an event is about (v1.ObjectReference).
struct ObjectReference {
    std::string apiVersion;
    std::string kind;
    std::string ns;
    std::string name;
    std::string uid;
    std::string resourceVersion;
};

// The reference to `obj`, of `apiVersion` ("networking.k8s.io/v1") and `kind`.
ObjectReference referenceTo(const util::json::Value& obj, std::string_view apiVersion,
                            std::string_view kind);

class EventRecorder {
  public:
    // The store of a group's resource; null when not served.
    using StoreFor =
        std::function<registry::Store*(std::string_view group, std::string_view resource)>;

    EventRecorder(util::EventLoop& loop, StoreFor stores, std::string component);

    // v1.EventTypeWarning and v1.EventTypeNormal.
    void warning(const ObjectReference& about, std::string_view reason, std::string_view message);
    void normal(const ObjectReference& about, std::string_view reason, std::string_view message);

  private:
    void record(const ObjectReference& about, std::string_view type, std::string_view reason,
                std::string_view message);

    util::EventLoop& loop_;
    StoreFor stores_;
    std::string component_;
};

}  // namespace kube::controller::events
