#pragma once

#include <cstddef>
#include <string_view>

#include "endpoints/request_info.hpp"
#include "registry/scheme.hpp"

namespace kube::endpoints::metrics {

// The request labels of kube's k8s.io/apiserver/pkg/endpoints/metrics, as
// kube-apiserver 1.26 writes them (checked against one: see t/041-metrics.t).
// Views into the request and static strings: nothing is allocated.

// Whether kube counts the request in apiserver_request_total: resource
// requests its installer has a route for (a served group/version/resource,
// and the subresource when one is named), and the three health roots, which
// kube instruments by hand. Discovery, /version, /openapi, /metrics and
// unknown resources are not counted.
bool instrumented(const registry::Scheme& scheme, const RequestInfo& info);

// The verb label: GET, LIST, WATCH, POST, PUT, PATCH, APPLY (a server-side
// apply patch), DELETE (an item or a collection), as the installer names its
// routes; non-resource requests: the HTTP method.
std::string_view reportedVerb(const RequestInfo& info, std::string_view method,
                              std::string_view contentType);

// The scope label: "resource" for a named item and every POST, "namespace"
// within one, "cluster" for other resource requests, "" for non-resource.
std::string_view scope(const RequestInfo& info, std::string_view method);

// The dry_run label from the raw query: "" without dryRun, "All", or
// "invalid" for any other value (cleanDryRun).
std::string_view dryRun(std::string_view rawQuery);

// The system_client label: the User-Agent's product when it is one of the
// control plane's own clients (kube-apiserver, kube-controller-manager,
// kube-scheduler) followed by "/", else "".
std::string_view systemClient(std::string_view userAgent);

// Long-running requests (apiserver_longrunning_requests, exempt from the
// in-flight counts): watches, and the proxy/attach/exec/log/portforward
// subresources, as kube's BasicLongRunningRequestCheck.
bool longRunning(const RequestInfo& info);

// Mutating for apiserver_current_inflight_requests: not get, list or watch.
bool mutating(const RequestInfo& info);

// Where watches report the events they send (apiserver_watch_events_total
// and apiserver_watch_events_sizes); one per process, set by the module
// before serving. Without one, nothing is recorded. Loop thread only.
class WatchEventSink {
  public:
    virtual ~WatchEventSink() = default;
    // The series of one kind's events, looked up once per watch; null when
    // it cannot be recorded.
    virtual void* series(std::string_view group, std::string_view version,
                         std::string_view kind) = 0;
    // One event of `bytes` sent on `series` (not null).
    virtual void event(void* series, size_t bytes) = 0;
};

void setWatchEventSink(WatchEventSink* sink);
WatchEventSink* watchEventSink();

}  // namespace kube::endpoints::metrics
