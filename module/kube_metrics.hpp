/*
 * The metrics zone as the kube_metrics_*.cpp files share it: kube-apiserver's
 * metrics, counted by every worker into one shared memory zone and reported
 * by /metrics from any of them, so that the counts are the whole host's and
 * survive a worker's respawn and a reload.
 *
 *   kube_metrics_zone.cpp     the zone, the worker records, fixed counters
 *   kube_metrics_request.cpp  apiserver_request_* and the watch families
 *   kube_metrics_flow.cpp     apiserver_flowcontrol_*
 *   kube_metrics_text.cpp     the /metrics text, process_* included
 *
 * The zone holds fixed counters (streams, audit), one record per live
 * worker (its pid, its in-flight requests) and two SeriesTables
 * (src/util/metrics/series_table.hpp) for the families whose label sets are
 * open-ended: one of single values (counters, gauges), one of histograms.
 *
 * Gauges that a worker adds to and takes from (long-running requests,
 * flow control's queued and executing requests) are kept per worker record
 * (the family's high bits), so that a worker that dies holding requests
 * leaves no count behind: a dead worker's share is not reported, and is
 * zeroed when a new worker takes its record. The counters and histograms
 * every request adds to (apiserver_request_*, apiserver_response_sizes,
 * the flow control's dispatches, waits and executions) are per worker
 * record too, so that workers on different cores never write the same
 * cache line; /metrics sums every record's, a gone worker's included, and
 * a worker that takes a record adds to what it holds.
 */

#pragma once

#include "kube_module.hpp"

#include "util/metrics/series_table.hpp"
#include "util/metrics/text_format.hpp"

/* records of live workers; more workers than this are counted, but their
 * gauges are not */
#define NGX_HTTP_KUBE_METRICS_WORKERS  64

/* the tables' capacities (series), from kube-apiserver's own counts: a busy
 * cluster has ~3,000 apiserver_request_total series and ~1,500 of each
 * request histogram; each worker keeps its own, so room for two workers'
 * (more share what is left, and what finds no room is counted) */
#define NGX_HTTP_KUBE_METRICS_SCALARS     16384
#define NGX_HTTP_KUBE_METRICS_HISTOGRAMS  8192

/* families of the scalar table; per-worker series (gauges, and the counters
 * and histograms every request adds to) add (record + 1) << 8 */
#define NGX_HTTP_KUBE_METRICS_FAMILY_MASK  0xffu

enum : uint32_t {
    F_REQUEST_TOTAL = 1,
    F_LONGRUNNING,
    F_WATCH_EVENTS,
    F_TERMINATED_WATCHERS,
    F_FC_INQUEUE,
    F_FC_EXECUTING,
    F_FC_SEATS_IN_USE,
    F_FC_REJECTED,
    F_FC_DISPATCHED,
    F_FC_CONCURRENCY_LIMIT,
    F_FC_NOMINAL_SEATS,
    F_FC_CURRENT_SEATS,
};

/* families of the histogram table */
enum : uint32_t {
    H_REQUEST_DURATION = 1,
    H_RESPONSE_SIZES,
    H_WATCH_EVENT_SIZES,
    H_FC_WAIT,
    H_FC_EXECUTION,
};

/* kube-apiserver 1.26's buckets */
inline const kube::util::metrics::Buckets  kRequestDuration{
    {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5,
     6, 8, 10, 15, 20, 30, 45, 60}, 1e-9};
inline const kube::util::metrics::Buckets  kResponseSizes{
    {1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}, 1};
inline const kube::util::metrics::Buckets  kWatchEventSizes{
    {1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}, 1};
inline const kube::util::metrics::Buckets  kFlowDurations{
    {0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30}, 1e-9};

inline const unsigned  kHistogramValues = 25;  /* the most buckets, +Inf, sum */

struct ngx_http_kube_metrics_worker_t {
    ngx_atomic_t  pid;                 /* 0: free */
    ngx_atomic_t  inflight[2];         /* readOnly, mutating */
    /* the most in flight during second inflight_sec[k] */
    ngx_atomic_t  inflight_max[2];
    ngx_atomic_t  inflight_sec[2];
};

/* what the zone holds: plain data only (spec/nginx-module.md §6) */
struct ngx_http_kube_metrics_t {
    ngx_atomic_t  stream_ends[NGX_HTTP_KUBE_STREAM_END_REASONS];
    ngx_atomic_t  audit_events;
    ngx_atomic_t  audit_errors[NGX_HTTP_KUBE_AUDIT_PLUGINS];
    ngx_atomic_t  audit_levels[NGX_HTTP_KUBE_AUDIT_LEVELS];
    /* when the zone was made: the server's start (reloads keep it) */
    double        start_time;
    /* CPU seconds of workers that exited cleanly */
    ngx_atomic_t  exited_cpu_ticks;
    ngx_http_kube_metrics_worker_t     workers[NGX_HTTP_KUBE_METRICS_WORKERS];
    kube::util::metrics::SeriesTable  *scalars;
    kube::util::metrics::SeriesTable  *histograms;
};

/* this worker's record and its gauges' family bits, or NULL */
extern ngx_http_kube_metrics_worker_t  *ngx_http_kube_metrics_self;
extern uint32_t                         ngx_http_kube_metrics_self_family;

/* kube_metrics_zone.cpp */
ngx_http_kube_metrics_t *ngx_http_kube_metrics();
bool ngx_http_kube_metrics_alive(ngx_atomic_uint_t pid);
void ngx_http_kube_metrics_add(std::atomic<uint64_t> *v, int64_t delta);
/* this worker's own series of a per-worker family (the shared one without
 * a worker record) */
std::atomic<uint64_t> *ngx_http_kube_metrics_own(
    kube::util::metrics::SeriesTable *table, uint32_t family,
    std::string_view labels);
std::atomic<uint64_t> *ngx_http_kube_metrics_gauge(ngx_http_kube_metrics_t *m,
    uint32_t family, std::string_view labels);

/* kube_metrics_request.cpp: this worker's series cache and watch sink */
void ngx_http_kube_metrics_request_init_worker();
void ngx_http_kube_metrics_request_exit_worker();
