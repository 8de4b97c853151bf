#include "storage/cacher/metrics.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace kube::storage::cacher {

namespace {

struct Family {
    const char* name;
    const char* type;
    const char* help;
    std::function<uint64_t(const WatchCache::Stats&)> value;
};

const Family kFamilies[] = {
    {"apiserver_watch_cache_events_received_total", "counter",
     "Counter of events received in watch cache broken by resource type.",
     [](const WatchCache::Stats& s) { return s.eventsReceived; }},
    {"apiserver_watch_cache_initializations_total", "counter",
     "Counter of watch cache initializations broken by resource type.",
     [](const WatchCache::Stats& s) { return s.initializations; }},
    {"apiserver_watch_cache_events", "gauge",
     "Events held in the watch cache's history (for watches and lists from a past "
     "resourceVersion) broken by resource type.",
     [](const WatchCache::Stats& s) { return s.events; }},
    {"apiserver_watch_cache_bytes", "gauge",
     "Memory in bytes that the events of the watch cache's history alone keep alive, broken by "
     "resource type; limited by kube_watch_cache_size.",
     [](const WatchCache::Stats& s) { return s.eventBytes; }},
    {"apiserver_watch_cache_objects", "gauge",
     "Current objects held in the watch cache broken by resource type.",
     [](const WatchCache::Stats& s) { return s.objects; }},
    {"apiserver_watch_cache_objects_bytes", "gauge",
     "Stored bytes of the current objects held in the watch cache broken by resource type.",
     [](const WatchCache::Stats& s) { return s.objectBytes; }},
};

void appendHeader(std::string& out, const char* name, const char* type, const char* help) {
    out += "# HELP ";
    out += name;
    out += " [ALPHA] ";
    out += help;
    out += " In the worker that answered the scrape.\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
}

void appendValue(std::string& out, const char* name, uint64_t value) {
    out += name;
    out += ' ';
    out += std::to_string(value);
    out += '\n';
}

}  // namespace

std::string metricsText(const Cacher& cacher) {
    std::vector<std::pair<std::string, WatchCache::Stats>> caches;
    cacher.forEachCache(
        [&caches](const WatchCache& c) { caches.emplace_back(c.resource(), c.stats()); });
    std::sort(caches.begin(), caches.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out;
    // kube's etcd object counts (storage/etcd3/metrics): every worker's caches
    // follow the same store, so the answering worker's counts are the host's.
    out +=
        "# HELP apiserver_storage_objects [STABLE] Number of stored objects at the time of last "
        "check split by kind.\n# TYPE apiserver_storage_objects gauge\n";
    for (const auto& [resource, stats] : caches) {
        out += "apiserver_storage_objects{resource=\"";
        out += resource;
        out += "\"} ";
        out += std::to_string(stats.objects);
        out += '\n';
    }
    for (const Family& f : kFamilies) {
        appendHeader(out, f.name, f.type, f.help);
        for (const auto& [resource, stats] : caches) {
            out += f.name;
            out += "{resource=\"";
            out += resource;
            out += "\"} ";
            out += std::to_string(f.value(stats));
            out += '\n';
        }
    }
    appendHeader(out, "apiserver_watch_cache_history_bytes", "gauge",
                 "Memory in bytes that the events of every watch cache's history alone keep "
                 "alive.");
    appendValue(out, "apiserver_watch_cache_history_bytes", cacher.historyBytes());
    appendHeader(out, "apiserver_watch_cache_history_capacity_bytes", "gauge",
                 "The limit of apiserver_watch_cache_history_bytes (kube_watch_cache_size).");
    appendValue(out, "apiserver_watch_cache_history_capacity_bytes", cacher.limits().workerBytes);
    appendHeader(
        out, "apiserver_watch_cache_capacity_bytes", "gauge",
        "The limit of apiserver_watch_cache_bytes for each resource (kube_watch_cache_size "
        "resource=).");
    appendValue(out, "apiserver_watch_cache_capacity_bytes", cacher.limits().resourceBytes);
    return out;
}

}  // namespace kube::storage::cacher
