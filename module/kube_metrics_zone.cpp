/*
 * The metrics zone (kube_metrics.hpp): made once and kept across reloads;
 * each worker claims a record in it for its in-flight requests and its
 * share of the per-worker gauges, and gives it back when it exits. The
 * fixed counters (streams, audit) are added to here.
 */

#include <sys/resource.h>

#include "kube_metrics.hpp"

using kube::util::metrics::SeriesTable;

namespace {

ngx_shm_zone_t  *ngx_http_kube_metrics_zone;


/* The zone's data, zeroed: the counts start at 0 */
void *
ngx_http_kube_metrics_make(ngx_slab_pool_t *shpool)
{
    ngx_time_t               *tp;
    ngx_http_kube_metrics_t  *m;

    m = static_cast<ngx_http_kube_metrics_t *>(
        ngx_slab_calloc(shpool, sizeof(ngx_http_kube_metrics_t)));
    if (m == NULL) {
        return NULL;
    }

    /* slab allocations of pages are page-aligned, and zeroed here */
    void *s = ngx_slab_calloc(shpool,
        SeriesTable::bytesFor(NGX_HTTP_KUBE_METRICS_SCALARS, 1));
    void *h = ngx_slab_calloc(shpool,
        SeriesTable::bytesFor(NGX_HTTP_KUBE_METRICS_HISTOGRAMS,
                              kHistogramValues));
    if (s == NULL || h == NULL) {
        return NULL;
    }

    m->scalars = SeriesTable::create(s, NGX_HTTP_KUBE_METRICS_SCALARS, 1);
    m->histograms = SeriesTable::create(h, NGX_HTTP_KUBE_METRICS_HISTOGRAMS,
                                        kHistogramValues);

    tp = ngx_timeofday();
    m->start_time = tp->sec + tp->msec / 1000.0;

    return m;
}


}  // namespace


ngx_http_kube_metrics_worker_t  *ngx_http_kube_metrics_self;
uint32_t                         ngx_http_kube_metrics_self_family;


ngx_int_t
ngx_http_kube_metrics_add_zone(ngx_conf_t *cf)
{
    size_t     size;
    ngx_str_t  name = ngx_string("kube_apiserver_metrics");

    size = sizeof(ngx_http_kube_metrics_t)
           + SeriesTable::bytesFor(NGX_HTTP_KUBE_METRICS_SCALARS, 1)
           + SeriesTable::bytesFor(NGX_HTTP_KUBE_METRICS_HISTOGRAMS,
                                   kHistogramValues)
           + 64 * ngx_pagesize;   /* the slab pool's own pages */

    /* a reload keeps the counts */
    ngx_http_kube_metrics_zone =
        ngx_http_kube_shm_zone_add<ngx_http_kube_metrics_make>(
            cf, &name, size, &ngx_http_kube_apiserver_module);

    return ngx_http_kube_metrics_zone ? NGX_OK : NGX_ERROR;
}


ngx_http_kube_metrics_t *
ngx_http_kube_metrics()
{
    if (ngx_http_kube_metrics_zone == NULL) {
        return NULL;
    }

    return static_cast<ngx_http_kube_metrics_t *>(
        ngx_http_kube_metrics_zone->data);
}


bool
ngx_http_kube_metrics_alive(ngx_atomic_uint_t pid)
{
    return pid != 0
           && (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH);
}


void
ngx_http_kube_metrics_add(std::atomic<uint64_t> *v, int64_t delta)
{
    if (v) {
        v->fetch_add(static_cast<uint64_t>(delta), std::memory_order_relaxed);
    }
}


std::atomic<uint64_t> *
ngx_http_kube_metrics_own(SeriesTable *table, uint32_t family,
    std::string_view labels)
{
    return table->find(family | ngx_http_kube_metrics_self_family, labels);
}


/* A per-worker gauge's series; NULL without a worker record. */
std::atomic<uint64_t> *
ngx_http_kube_metrics_gauge(ngx_http_kube_metrics_t *m, uint32_t family,
    std::string_view labels)
{
    if (ngx_http_kube_metrics_self == NULL) {
        return NULL;
    }

    return m->scalars->find(family | ngx_http_kube_metrics_self_family,
                            labels);
}


void
ngx_http_kube_metrics_init_worker(ngx_cycle_t *cycle)
{
    ngx_uint_t                       i;
    ngx_atomic_uint_t                pid;
    ngx_http_kube_metrics_t         *m;
    ngx_http_kube_metrics_worker_t  *w;

    m = ngx_http_kube_metrics();
    if (m == NULL) {
        return;
    }

    /* a free record, or one whose worker is gone */
    for (i = 0; i < NGX_HTTP_KUBE_METRICS_WORKERS; i++) {
        w = &m->workers[i];
        pid = w->pid;

        if (ngx_http_kube_metrics_alive(pid)) {
            continue;
        }

        if (!ngx_atomic_cmp_set(&w->pid, pid, ngx_pid)) {
            continue;
        }

        ngx_http_kube_metrics_self = w;
        ngx_http_kube_metrics_self_family = static_cast<uint32_t>(i + 1) << 8;

        /* what the previous holder left */
        w->inflight[0] = 0;
        w->inflight[1] = 0;
        w->inflight_max[0] = 0;
        w->inflight_max[1] = 0;
        for (uint32_t f : {F_LONGRUNNING, F_FC_INQUEUE, F_FC_EXECUTING,
                           F_FC_SEATS_IN_USE})
        {
            m->scalars->reset(f | ngx_http_kube_metrics_self_family);
        }

        break;
    }

    if (ngx_http_kube_metrics_self == NULL) {
        ngx_log_error(NGX_LOG_WARN, cycle->log, 0,
                      "kube-apiserver: more than %d workers: this one's "
                      "in-flight requests are not in /metrics",
                      NGX_HTTP_KUBE_METRICS_WORKERS);
    }

    ngx_http_kube_metrics_request_init_worker();
}


void
ngx_http_kube_metrics_exit_worker()
{
    ngx_http_kube_metrics_request_exit_worker();

    if (ngx_http_kube_metrics_self) {
        ngx_http_kube_metrics_t *m = ngx_http_kube_metrics();
        struct rusage ru;

        if (m && getrusage(RUSAGE_SELF, &ru) == 0) {
            (void) ngx_atomic_fetch_add(&m->exited_cpu_ticks,
                (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 100
                + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 10000);
        }

        ngx_http_kube_metrics_self->pid = 0;
        ngx_http_kube_metrics_self = NULL;
    }
}


/* The fixed counters: one slot of a fixed array each, out-of-range
 * indexes ignored. */

void
ngx_http_kube_metrics_stream_end(ngx_uint_t reason)
{
    ngx_http_kube_metrics_t  *m = ngx_http_kube_metrics();

    if (m && reason < NGX_HTTP_KUBE_STREAM_END_REASONS) {
        (void) ngx_atomic_fetch_add(&m->stream_ends[reason], 1);
    }
}


void
ngx_http_kube_metrics_audit_event()
{
    ngx_http_kube_metrics_t  *m = ngx_http_kube_metrics();

    if (m) {
        (void) ngx_atomic_fetch_add(&m->audit_events, 1);
    }
}


void
ngx_http_kube_metrics_audit_errors(ngx_uint_t plugin, ngx_atomic_int_t n)
{
    ngx_http_kube_metrics_t  *m = ngx_http_kube_metrics();

    if (m && plugin < NGX_HTTP_KUBE_AUDIT_PLUGINS && n > 0) {
        (void) ngx_atomic_fetch_add(&m->audit_errors[plugin], n);
    }
}


void
ngx_http_kube_metrics_audit_level(ngx_uint_t level)
{
    ngx_http_kube_metrics_t  *m = ngx_http_kube_metrics();

    if (m && level < NGX_HTTP_KUBE_AUDIT_LEVELS) {
        (void) ngx_atomic_fetch_add(&m->audit_levels[level], 1);
    }
}
