/*
 * /metrics: the zone's families in the Prometheus text format, as
 * kube-apiserver 1.26 names and describes them, then ours, then process_*
 * for the master and the live workers together.
 */

#include <dirent.h>
#include <sys/resource.h>

#include <fstream>

#include "kube_metrics.hpp"

namespace {

using kube::util::metrics::Buckets;
using kube::util::metrics::SeriesTable;

namespace um = kube::util::metrics;

/* how a family's series are read from the zone */
enum ngx_http_kube_metrics_read_e {
    NGX_HTTP_KUBE_READ_COUNTERS = 0,    /* the scalar table */
    NGX_HTTP_KUBE_READ_GAUGES,          /* the scalar table, read signed */
    NGX_HTTP_KUBE_READ_WORKER_GAUGES,   /* live workers' shares, summed */
    NGX_HTTP_KUBE_READ_HISTOGRAMS,
    NGX_HTTP_KUBE_READ_INFLIGHT         /* the worker records */
};

const char  *ngx_http_kube_metrics_types[] = {
    "counter", "gauge", "gauge", "histogram", "gauge"
};

struct ngx_http_kube_metrics_family_t {
    const char     *name;
    ngx_uint_t      read;
    uint32_t        family;
    const Buckets  *buckets;
    const char     *help;
};

/* the open-ended families, in the order /metrics writes them */
const ngx_http_kube_metrics_family_t  ngx_http_kube_metrics_families[] = {
    /* kube-apiserver's request metrics (endpoints/metrics/metrics.go) */
    { "apiserver_current_inflight_requests",
      NGX_HTTP_KUBE_READ_INFLIGHT, 0, NULL,
      "[STABLE] Maximal number of currently used inflight request limit of "
      "this apiserver per request kind in last second." },
    { "apiserver_longrunning_requests",
      NGX_HTTP_KUBE_READ_WORKER_GAUGES, F_LONGRUNNING, NULL,
      "[STABLE] Gauge of all active long-running apiserver requests broken "
      "out by verb, group, version, resource, scope and component. Not all "
      "requests are tracked this way." },
    { "apiserver_request_duration_seconds",
      NGX_HTTP_KUBE_READ_HISTOGRAMS, H_REQUEST_DURATION, &kRequestDuration,
      "[STABLE] Response latency distribution in seconds for each verb, dry "
      "run value, group, version, resource, subresource, scope and "
      "component." },
    { "apiserver_request_total",
      NGX_HTTP_KUBE_READ_COUNTERS, F_REQUEST_TOTAL, NULL,
      "[STABLE] Counter of apiserver requests broken out for each verb, dry "
      "run value, group, version, resource, scope, component, and HTTP "
      "response code." },
    { "apiserver_response_sizes",
      NGX_HTTP_KUBE_READ_HISTOGRAMS, H_RESPONSE_SIZES, &kResponseSizes,
      "[STABLE] Response size distribution in bytes for each group, version, "
      "verb, resource, subresource, scope and component." },
    { "apiserver_terminated_watchers_total",
      NGX_HTTP_KUBE_READ_COUNTERS, F_TERMINATED_WATCHERS, NULL,
      "[ALPHA] Counter of watchers closed due to unresponsiveness broken by "
      "resource type." },
    { "apiserver_watch_events_sizes",
      NGX_HTTP_KUBE_READ_HISTOGRAMS, H_WATCH_EVENT_SIZES, &kWatchEventSizes,
      "[ALPHA] Watch event size distribution in bytes" },
    { "apiserver_watch_events_total",
      NGX_HTTP_KUBE_READ_COUNTERS, F_WATCH_EVENTS, NULL,
      "[ALPHA] Number of events sent in watch clients" },

    /* API Priority and Fairness (util/flowcontrol/metrics/metrics.go) */
    { "apiserver_flowcontrol_current_executing_requests",
      NGX_HTTP_KUBE_READ_WORKER_GAUGES, F_FC_EXECUTING, NULL,
      "[ALPHA] Number of requests in initial (for a WATCH) or any (for a "
      "non-WATCH) execution stage in the API Priority and Fairness subsystem" },
    { "apiserver_flowcontrol_current_inqueue_requests",
      NGX_HTTP_KUBE_READ_WORKER_GAUGES, F_FC_INQUEUE, NULL,
      "[ALPHA] Number of requests currently pending in queues of the API "
      "Priority and Fairness subsystem" },
    { "apiserver_flowcontrol_current_limit_seats",
      NGX_HTTP_KUBE_READ_GAUGES, F_FC_CURRENT_SEATS, NULL,
      "[ALPHA] current derived number of execution seats available to each "
      "priority level" },
    { "apiserver_flowcontrol_dispatched_requests_total",
      NGX_HTTP_KUBE_READ_COUNTERS, F_FC_DISPATCHED, NULL,
      "[ALPHA] Number of requests executed by API Priority and Fairness "
      "subsystem" },
    { "apiserver_flowcontrol_nominal_limit_seats",
      NGX_HTTP_KUBE_READ_GAUGES, F_FC_NOMINAL_SEATS, NULL,
      "[ALPHA] Nominal number of execution seats configured for each priority "
      "level" },
    { "apiserver_flowcontrol_rejected_requests_total",
      NGX_HTTP_KUBE_READ_COUNTERS, F_FC_REJECTED, NULL,
      "[ALPHA] Number of requests rejected by API Priority and Fairness "
      "subsystem" },
    { "apiserver_flowcontrol_request_concurrency_in_use",
      NGX_HTTP_KUBE_READ_WORKER_GAUGES, F_FC_SEATS_IN_USE, NULL,
      "[ALPHA] Concurrency (number of seats) occupied by the currently "
      "executing (initial stage for a WATCH, any stage otherwise) requests in "
      "the API Priority and Fairness subsystem" },
    { "apiserver_flowcontrol_request_concurrency_limit",
      NGX_HTTP_KUBE_READ_GAUGES, F_FC_CONCURRENCY_LIMIT, NULL,
      "[ALPHA] Shared concurrency limit in the API Priority and Fairness "
      "subsystem" },
    { "apiserver_flowcontrol_request_execution_seconds",
      NGX_HTTP_KUBE_READ_HISTOGRAMS, H_FC_EXECUTION, &kFlowDurations,
      "[ALPHA] Duration of initial stage (for a WATCH) or any (for a "
      "non-WATCH) stage of request execution in the API Priority and Fairness "
      "subsystem" },
    { "apiserver_flowcontrol_request_wait_duration_seconds",
      NGX_HTTP_KUBE_READ_HISTOGRAMS, H_FC_WAIT, &kFlowDurations,
      "[ALPHA] Length of time a request spent waiting in its queue" },
};

const char *ngx_http_kube_audit_plugin_names[NGX_HTTP_KUBE_AUDIT_PLUGINS] = {
    "log", "buffered"
};

const char *ngx_http_kube_audit_level_names[NGX_HTTP_KUBE_AUDIT_LEVELS] = {
    "None", "Metadata", "Request", "RequestResponse"
};

const char *ngx_http_kube_stream_end_names[NGX_HTTP_KUBE_STREAM_END_REASONS] = {
    "finished", "cut", "timed_out", "gone"
};


struct ngx_http_kube_process_t {
    double    cpu_seconds = 0;
    uint64_t  rss = 0;
    uint64_t  vsize = 0;
    uint64_t  fds = 0;
};


/* Adds /proc/<pid>'s figures to `p`. */
void
ngx_http_kube_metrics_process(pid_t pid, ngx_http_kube_process_t &p)
{
    std::string    dir = "/proc/" + std::to_string(pid);
    std::ifstream  stat(dir + "/stat");
    std::string    line;

    if (!std::getline(stat, line)) {
        return;
    }

    /* the fields after the command, which may hold spaces: "(...)" */
    size_t close = line.rfind(')');
    if (close == std::string::npos) {
        return;
    }

    std::vector<std::string> f;
    size_t i = close + 2;
    while (i < line.size()) {
        size_t sp = line.find(' ', i);
        if (sp == std::string::npos) {
            sp = line.size();
        }
        f.push_back(line.substr(i, sp - i));
        i = sp + 1;
    }

    /* f[0] is field 3 (state): utime 14, stime 15, vsize 23, rss 24 */
    if (f.size() < 22) {
        return;
    }

    double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    p.cpu_seconds += (std::stod(f[11]) + std::stod(f[12])) / tick;
    p.vsize += std::stoull(f[20]);
    p.rss += std::stoull(f[21]) * ngx_pagesize;

    DIR *d = opendir((dir + "/fd").c_str());
    if (d) {
        while (struct dirent *e = readdir(d)) {
            if (e->d_name[0] != '.') {
                p.fds++;
            }
        }
        closedir(d);
    }
}


/* process_*: the master and every live worker together (memory shared
 * between them is counted in each) */
void
ngx_http_kube_metrics_process_text(std::string &out,
    ngx_http_kube_metrics_t *m)
{
    ngx_http_kube_process_t  p;
    struct rlimit            rl;

    ngx_http_kube_metrics_process(getppid(), p);

    for (auto &w : m->workers) {
        if (ngx_http_kube_metrics_alive(w.pid)) {
            ngx_http_kube_metrics_process(static_cast<pid_t>(w.pid), p);
        }
    }

    p.cpu_seconds += m->exited_cpu_ticks / 100.0;

    /* an empty value is not written (no limit read) */
    const struct {
        const char   *name;
        const char   *type;
        const char   *help;
        std::string   value;
    } figures[] = {
        { "process_cpu_seconds_total", "counter",
          "Total user and system CPU time spent in seconds.",
          um::formatFloat(p.cpu_seconds) },
        { "process_max_fds", "gauge",
          "Maximum number of open file descriptors.",
          getrlimit(RLIMIT_NOFILE, &rl) == 0 ? std::to_string(rl.rlim_cur)
                                             : std::string() },
        { "process_open_fds", "gauge",
          "Number of open file descriptors.", std::to_string(p.fds) },
        { "process_resident_memory_bytes", "gauge",
          "Resident memory size in bytes.", std::to_string(p.rss) },
        { "process_start_time_seconds", "gauge",
          "Start time of the process since unix epoch in seconds.",
          um::formatFloat(m->start_time) },
        { "process_virtual_memory_bytes", "gauge",
          "Virtual memory size in bytes.", std::to_string(p.vsize) },
    };

    for (const auto &f : figures) {
        if (!f.value.empty()) {
            um::appendHeader(out, f.name, f.type, f.help);
            um::appendSample(out, f.name, "", f.value);
        }
    }
}


/* A fixed counter family: `n` values, told apart by `label` (NULL: one
 * value, no label). */
void
ngx_http_kube_metrics_counters(std::string &out, const char *name,
    const char *help, const char *label, const char *const *values,
    const ngx_atomic_t *counts, ngx_uint_t n)
{
    um::appendHeader(out, name, "counter", help);

    for (ngx_uint_t i = 0; i < n; i++) {
        std::string labels;

        if (label) {
            um::appendLabel(labels, label, values[i]);
        }

        um::appendSample(out, name, labels, std::to_string(counts[i]));
    }
}


/* the per-worker gauges of live workers only */
void
ngx_http_kube_metrics_gauges(std::string &out, const char *name,
    ngx_http_kube_metrics_t *m, uint32_t family)
{
    std::map<std::string, int64_t, std::less<>>  sum;

    for (ngx_uint_t i = 0; i < NGX_HTTP_KUBE_METRICS_WORKERS; i++) {
        uint32_t f = family | static_cast<uint32_t>(i + 1) << 8;
        bool alive = ngx_http_kube_metrics_alive(m->workers[i].pid);

        for (const auto &[labels, values] : um::collect(*m->scalars, f)) {
            sum[labels] += alive ? static_cast<int64_t>(values[0]) : 0;
        }
    }

    for (const auto &[labels, value] : sum) {
        um::appendSample(out, name, labels, std::to_string(value));
    }
}


void
ngx_http_kube_metrics_inflight(std::string &out, ngx_http_kube_metrics_t *m)
{
    static const char *kinds[] = { "readOnly", "mutating" };

    ngx_atomic_uint_t now = ngx_time();

    for (int k : {1, 0}) {
        int64_t n = 0;

        for (auto &w : m->workers) {
            if (!ngx_http_kube_metrics_alive(w.pid)) {
                continue;
            }

            int64_t cur = static_cast<ngx_atomic_int_t>(w.inflight[k]);
            int64_t max = static_cast<ngx_atomic_int_t>(w.inflight_max[k]);
            ngx_atomic_uint_t sec = w.inflight_sec[k];

            n += (sec + 1 >= now && max > cur) ? max : cur;
        }

        std::string labels;
        um::appendLabel(labels, "request_kind", kinds[k]);
        um::appendSample(out, "apiserver_current_inflight_requests", labels,
                         std::to_string(n));
    }
}

/* kube_apiserver_metrics_*: how full the zone's tables are */
void
ngx_http_kube_metrics_tables(std::string &out, ngx_http_kube_metrics_t *m)
{
    using Read = uint64_t (*)(const SeriesTable &);

    static const struct {
        const char  *name;
        const char  *type;
        Read         read;
        const char  *help;
    } stats[] = {
        { "kube_apiserver_metrics_series", "gauge",
          [](const SeriesTable &t) -> uint64_t { return t.used(); },
          "Series held in the metrics zone's tables, by table (scalar: "
          "counters and gauges; histogram)." },
        { "kube_apiserver_metrics_series_capacity", "gauge",
          [](const SeriesTable &t) -> uint64_t { return t.capacity(); },
          "Series the metrics zone's tables can hold, by table." },
        { "kube_apiserver_metrics_dropped_total", "counter",
          [](const SeriesTable &t) -> uint64_t { return t.overflow(); },
          "Observations not recorded because their table was full or their "
          "labels too long, by table." },
    };

    const std::pair<const char *, const SeriesTable *>  tables[] = {
        {"scalar", m->scalars}, {"histogram", m->histograms}
    };

    for (const auto &s : stats) {
        um::appendHeader(out, s.name, s.type, s.help);

        for (const auto &[name, t] : tables) {
            std::string labels;

            um::appendLabel(labels, "table", name);
            um::appendSample(out, s.name, labels, std::to_string(s.read(*t)));
        }
    }
}

}  // namespace


std::string
ngx_http_kube_metrics_text()
{
    ngx_http_kube_metrics_t  *m;

    m = ngx_http_kube_metrics();
    if (m == NULL) {
        return {};
    }

    std::string out;

    for (const auto &f : ngx_http_kube_metrics_families) {
        um::appendHeader(out, f.name, ngx_http_kube_metrics_types[f.read],
                         f.help);

        switch (f.read) {
        case NGX_HTTP_KUBE_READ_COUNTERS:
            /* every worker's own series, the gone ones' too */
            um::appendScalars(out, f.name, *m->scalars, f.family, false,
                              NGX_HTTP_KUBE_METRICS_FAMILY_MASK);
            break;
        case NGX_HTTP_KUBE_READ_GAUGES:
            um::appendScalars(out, f.name, *m->scalars, f.family, true);
            break;
        case NGX_HTTP_KUBE_READ_WORKER_GAUGES:
            ngx_http_kube_metrics_gauges(out, f.name, m, f.family);
            break;
        case NGX_HTTP_KUBE_READ_HISTOGRAMS:
            um::appendHistograms(out, f.name, *f.buckets, *m->histograms,
                                 f.family, NGX_HTTP_KUBE_METRICS_FAMILY_MASK);
            break;
        default:
            ngx_http_kube_metrics_inflight(out, m);
            break;
        }
    }

    /* kube-apiserver's audit metrics (k8s.io/apiserver/pkg/audit/metrics.go) */

    ngx_http_kube_metrics_counters(out, "apiserver_audit_event_total",
        "[ALPHA] Counter of audit events generated and sent to the audit "
        "backend.",
        NULL, NULL, &m->audit_events, 1);

    ngx_http_kube_metrics_counters(out, "apiserver_audit_error_total",
        "[ALPHA] Counter of audit events that failed to be audited properly. "
        "Plugin identifies the plugin affected by the error.",
        "plugin", ngx_http_kube_audit_plugin_names, m->audit_errors,
        NGX_HTTP_KUBE_AUDIT_PLUGINS);

    ngx_http_kube_metrics_counters(out, "apiserver_audit_level_total",
        "[ALPHA] Counter of policy levels for audit events (1 per request).",
        "level", ngx_http_kube_audit_level_names, m->audit_levels,
        NGX_HTTP_KUBE_AUDIT_LEVELS);

    /* ours */

    ngx_http_kube_metrics_counters(out, "kube_apiserver_stream_ends_total",
        "Streamed responses (watches, lists over 128 KiB) that ended, by "
        "reason: finished, cut (more than kube_stream_max_buffered unread), "
        "timed_out (nothing read for send_timeout), gone (the client went "
        "away).",
        "reason", ngx_http_kube_stream_end_names, m->stream_ends,
        NGX_HTTP_KUBE_STREAM_END_REASONS);

    ngx_http_kube_metrics_tables(out, m);

    ngx_http_kube_metrics_process_text(out, m);

    return out;
}
