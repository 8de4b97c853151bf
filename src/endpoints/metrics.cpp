#include "endpoints/metrics.hpp"

namespace kube::endpoints::metrics {

namespace {

WatchEventSink* gWatchEventSink = nullptr;

}  // namespace

bool instrumented(const registry::Scheme& scheme, const RequestInfo& info) {
    if (!info.isResourceRequest) {
        return info.path == "/healthz" || info.path == "/livez" || info.path == "/readyz";
    }
    const registry::KindInfo* kind = scheme.find(info.apiGroup, info.apiVersion, info.resource);
    return kind && (info.subresource.empty() || kind->subresource(info.subresource));
}

std::string_view reportedVerb(const RequestInfo& info, std::string_view method,
                              std::string_view contentType) {
    if (!info.isResourceRequest) {
        return method;
    }
    // string_view: each comparison looks at the length first
    std::string_view v = info.verb;
    if (v == "get") {
        return "GET";
    }
    if (v == "list") {
        return "LIST";
    }
    if (v == "watch" || v == "watchlist") {
        return "WATCH";
    }
    if (v == "create") {
        return "POST";
    }
    if (v == "update") {
        return "PUT";
    }
    if (v == "patch") {
        return contentType.starts_with("application/apply-patch") ? "APPLY" : "PATCH";
    }
    if (v == "delete" || v == "deletecollection") {
        return "DELETE";
    }
    return method;
}

std::string_view scope(const RequestInfo& info, std::string_view method) {
    if (!info.isResourceRequest) {
        return "";
    }
    if (!info.name.empty() || method == "POST") {
        return "resource";
    }
    if (!info.namespace_.empty()) {
        return "namespace";
    }
    return "cluster";
}

std::string_view dryRun(std::string_view rawQuery) {
    if (rawQuery.find("dryRun") == std::string_view::npos) {
        return "";
    }
    bool seen = false;
    while (!rawQuery.empty()) {
        size_t amp = rawQuery.find('&');
        std::string_view pair = rawQuery.substr(0, amp);
        rawQuery = amp == std::string_view::npos ? std::string_view() : rawQuery.substr(amp + 1);
        size_t eq = pair.find('=');
        if (pair.substr(0, eq) != "dryRun") {
            continue;
        }
        seen = true;
        if (eq == std::string_view::npos || pair.substr(eq + 1) != "All") {
            return "invalid";
        }
    }
    return seen ? "All" : "";
}

std::string_view systemClient(std::string_view userAgent) {
    size_t slash = userAgent.find('/');
    if (slash == std::string_view::npos) {
        return "";
    }
    std::string_view product = userAgent.substr(0, slash);
    for (std::string_view known : {"kube-apiserver", "kube-controller-manager", "kube-scheduler"}) {
        if (product == known) {
            return known;
        }
    }
    return "";
}

bool longRunning(const RequestInfo& info) {
    if (!info.isResourceRequest) {
        return false;
    }
    std::string_view v = info.verb;
    if (v == "watch" || v == "watchlist" || v == "proxy") {
        return true;
    }
    std::string_view s = info.subresource;
    return !s.empty() &&
           (s == "attach" || s == "exec" || s == "log" || s == "portforward" || s == "proxy");
}

bool mutating(const RequestInfo& info) {
    std::string_view v = info.verb;
    return !(v == "get" || v == "list" || v == "watch" || v == "watchlist" || v == "head" ||
             v == "options");
}

void setWatchEventSink(WatchEventSink* sink) { gWatchEventSink = sink; }

WatchEventSink* watchEventSink() { return gWatchEventSink; }

}  // namespace kube::endpoints::metrics
