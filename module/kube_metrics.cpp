/*
 * kube-apiserver's metrics, counted by every worker into a shared memory
 * zone and reported by /metrics from any of them: the counts are the whole
 * host's, and survive a worker's respawn and a reload.
 *
 * The zone holds fixed counters (streams, audit), one record per live
 * worker (its pid, its in-flight requests) and two SeriesTables
 * (src/util/metrics/series_table.hpp) for the families whose label sets are
 * open-ended: one of single values (counters, gauges), one of histograms.
 * A request costs a label string built on the stack, two table look-ups and
 * about eight atomic adds, all in the LOG phase; nothing locks or allocates.
 *
 * Gauges that a worker adds to and takes from (long-running requests,
 * flow control's queued and executing requests) are kept per worker record
 * (the family's high bits), so that a worker that dies holding requests
 * leaves no count behind: a dead worker's share is not reported, and is
 * zeroed when a new worker takes its record.
 */

#include <dirent.h>
#include <sys/resource.h>

#include <fstream>
#include <unordered_map>

#include "kube_module.hpp"

#include "endpoints/metrics.hpp"
#include "util/metrics/series_table.hpp"
#include "util/metrics/text_format.hpp"

namespace {

using kube::util::metrics::Buckets;
using kube::util::metrics::LabelBuffer;
using kube::util::metrics::SeriesTable;

namespace km = kube::endpoints::metrics;
namespace um = kube::util::metrics;

/* records of live workers; more workers than this are counted, but their
 * gauges are not */
#define NGX_HTTP_KUBE_METRICS_WORKERS  64

/* the tables' capacities (series), from kube-apiserver's own counts: a busy
 * cluster has ~3,000 apiserver_request_total series and ~1,500 of each
 * request histogram */
#define NGX_HTTP_KUBE_METRICS_SCALARS     8192
#define NGX_HTTP_KUBE_METRICS_HISTOGRAMS  4096

/* families of the scalar table; per-worker gauges add (record + 1) << 8 */
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

const uint32_t  kFamilyMask = 0xff;

/* kube-apiserver 1.26's buckets */
const Buckets kRequestDuration{
    {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5,
     6, 8, 10, 15, 20, 30, 45, 60}, 1e-9};
const Buckets kResponseSizes{
    {1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}, 1};
const Buckets kWatchEventSizes{
    {1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}, 1};
const Buckets kFlowDurations{
    {0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30}, 1e-9};

const unsigned kHistogramValues = 25;   /* the most buckets above, +Inf, sum */

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
    ngx_http_kube_metrics_worker_t  workers[NGX_HTTP_KUBE_METRICS_WORKERS];
    SeriesTable  *scalars;
    SeriesTable  *histograms;
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

ngx_shm_zone_t  *ngx_http_kube_metrics_zone;

/* this worker's record, or NULL */
ngx_http_kube_metrics_worker_t  *ngx_http_kube_metrics_self;
uint32_t                         ngx_http_kube_metrics_self_family;


ngx_int_t
ngx_http_kube_metrics_init_zone(ngx_shm_zone_t *zone, void *data)
{
    size_t                    scalars, histograms;
    ngx_time_t               *tp;
    ngx_slab_pool_t          *shpool;
    ngx_http_kube_metrics_t  *m;

    if (data) {
        /* a reload keeps the counts */
        zone->data = data;
        return NGX_OK;
    }

    shpool = reinterpret_cast<ngx_slab_pool_t *>(zone->shm.addr);

    if (zone->shm.exists) {
        zone->data = shpool->data;
        return NGX_OK;
    }

    m = static_cast<ngx_http_kube_metrics_t *>(
        ngx_slab_calloc(shpool, sizeof(ngx_http_kube_metrics_t)));
    if (m == NULL) {
        return NGX_ERROR;
    }

    scalars = SeriesTable::bytesFor(NGX_HTTP_KUBE_METRICS_SCALARS, 1);
    histograms = SeriesTable::bytesFor(NGX_HTTP_KUBE_METRICS_HISTOGRAMS,
                                       kHistogramValues);

    /* slab allocations of pages are page-aligned, and zeroed here */
    void *s = ngx_slab_calloc(shpool, scalars);
    void *h = ngx_slab_calloc(shpool, histograms);
    if (s == NULL || h == NULL) {
        return NGX_ERROR;
    }

    m->scalars = SeriesTable::create(s, NGX_HTTP_KUBE_METRICS_SCALARS, 1);
    m->histograms = SeriesTable::create(h, NGX_HTTP_KUBE_METRICS_HISTOGRAMS,
                                        kHistogramValues);

    tp = ngx_timeofday();
    m->start_time = tp->sec + tp->msec / 1000.0;

    shpool->data = m;
    zone->data = m;

    return NGX_OK;
}

}  // namespace


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

    ngx_http_kube_metrics_zone = ngx_shared_memory_add(cf, &name, size,
        &ngx_http_kube_apiserver_module);
    if (ngx_http_kube_metrics_zone == NULL) {
        return NGX_ERROR;
    }

    ngx_http_kube_metrics_zone->init = ngx_http_kube_metrics_init_zone;

    return NGX_OK;
}


namespace {

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


uint64_t
ngx_http_kube_metrics_now_ns()
{
    struct timespec  ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}


void
ngx_http_kube_metrics_add(std::atomic<uint64_t> *v, int64_t delta)
{
    if (v) {
        v->fetch_add(static_cast<uint64_t>(delta), std::memory_order_relaxed);
    }
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


/* The request's labels shared by its families, up to the ones that differ:
 * apiserver_request_total's are written in the order Go's client sorts
 * them (by name). */
struct ngx_http_kube_request_labels_t {
    std::string_view  verb;
    std::string_view  dry_run;
    std::string_view  group;
    std::string_view  version;
    std::string_view  resource;
    std::string_view  subresource;
    std::string_view  scope;
    std::string_view  component;
};


void
ngx_http_kube_metrics_labels(ngx_http_request_t *r, ngx_http_kube_ctx_t *ctx,
    ngx_http_kube_request_labels_t *l)
{
    if (ctx->metrics_labels) {
        /* a stream let go of the request info (kube_stream.cpp) */
        *l = *static_cast<ngx_http_kube_request_labels_t *>(
            ctx->metrics_labels);
        return;
    }

    const kube::endpoints::RequestInfo  &info = ctx->info;
    std::string_view method = ngx_http_kube_view(r->method_name);
    std::string_view type = r->headers_in.content_type
                            ? ngx_http_kube_view(r->headers_in.content_type->value)
                            : std::string_view();

    l->verb = km::reportedVerb(info, method, type);
    l->dry_run = km::dryRun(ngx_http_kube_view(r->args));
    l->scope = km::scope(info, method);

    if (info.isResourceRequest) {
        l->group = info.apiGroup;
        l->version = info.apiVersion;
        l->resource = info.resource;
        l->subresource = info.subresource;
        l->component = "apiserver";

    } else {
        l->group = l->version = l->resource = {};
        l->subresource = info.path;
        l->component = {};
    }
}


/* labels of apiserver_longrunning_requests */
void
ngx_http_kube_metrics_longrunning_labels(LabelBuffer &b,
    const ngx_http_kube_request_labels_t &l)
{
    b.add("component", l.component);
    b.add("group", l.group);
    b.add("resource", l.resource);
    b.add("scope", l.scope);
    b.add("subresource", l.subresource);
    b.add("verb", l.verb);
    b.add("version", l.version);
}


class ngx_http_kube_watch_events_t : public km::WatchEventSink {
public:
    void *series(std::string_view group, std::string_view version,
                 std::string_view kind) override
    {
        ngx_http_kube_metrics_t *m = ngx_http_kube_metrics();
        if (m == NULL) {
            return NULL;
        }

        LabelBuffer b;
        b.add("group", group);
        b.add("kind", kind);
        b.add("version", version);
        if (!b.ok()) {
            return NULL;
        }

        auto *s = new (std::nothrow) Series;
        if (s == NULL) {
            return NULL;
        }
        s->total = m->scalars->find(F_WATCH_EVENTS, b.view());
        s->sizes = m->histograms->find(H_WATCH_EVENT_SIZES, b.view());
        if (s->total == NULL || s->sizes == NULL) {
            delete s;
            return NULL;
        }

        /* shared by every watch of the kind; lives as long as the worker */
        return intern(s);
    }

    void event(void *series, size_t bytes) override
    {
        Series *s = static_cast<Series *>(series);
        s->total->fetch_add(1, std::memory_order_relaxed);
        kWatchEventSizes.observe(s->sizes, static_cast<double>(bytes), bytes);
    }

private:
    struct Series {
        std::atomic<uint64_t>  *total;
        std::atomic<uint64_t>  *sizes;
    };

    /* one Series per slot pair, kept for the worker's life */
    void *intern(Series *s)
    {
        auto [it, inserted] = interned_.emplace(s->total, *s);
        delete s;
        return &it->second;
    }

    std::map<std::atomic<uint64_t> *, Series>  interned_;
};

ngx_http_kube_watch_events_t  *ngx_http_kube_metrics_watch_events;


/*
 * The series a request ends in, remembered by this worker: most requests
 * repeat a few label sets, so the hot path builds a short key (the labels'
 * values, ~40 bytes), finds it in a direct-mapped cache and adds; only a
 * label set the worker has not seen lately builds the three label texts
 * and looks them up in the shared tables.
 */
#define NGX_HTTP_KUBE_METRICS_CACHE  1024

struct ngx_http_kube_metrics_cached_t {
    uint64_t                hash;
    uint16_t                len;
    char                    key[118];
    std::atomic<uint64_t>  *total;
    std::atomic<uint64_t>  *duration;
    std::atomic<uint64_t>  *sizes;
};

ngx_http_kube_metrics_cached_t  *ngx_http_kube_metrics_cache;


struct ngx_http_kube_metrics_key_t {
    char    buf[sizeof(ngx_http_kube_metrics_cached_t::key)];
    size_t  len = 0;
    bool    ok = true;

    void add(std::string_view v)
    {
        if (!ok || v.size() + 1 > sizeof(buf) - len) {
            ok = false;
            return;
        }
        if (!v.empty()) {   /* an empty view's data() may be NULL */
            ngx_memcpy(buf + len, v.data(), v.size());
            len += v.size();
        }
        buf[len++] = '\0';
    }
};


uint64_t
ngx_http_kube_metrics_key_hash(const char *p, size_t len)
{
    uint64_t  h = 1469598103934665603ull;

    for (size_t i = 0; i < len; i++) {
        h = (h ^ static_cast<u_char>(p[i])) * 1099511628211ull;
    }

    return h;
}


/* The three series of a request, by its labels (slow path: texts built) */
void
ngx_http_kube_metrics_find(ngx_http_kube_metrics_t *m,
    const ngx_http_kube_request_labels_t &l, std::string_view code,
    std::string_view client, ngx_http_kube_metrics_cached_t *e)
{
    LabelBuffer  total, duration, sizes;

    total.add("code", code);
    total.add("component", l.component);
    total.add("dry_run", l.dry_run);
    total.add("group", l.group);
    total.add("resource", l.resource);
    total.add("scope", l.scope);
    total.add("subresource", l.subresource);
    total.add("system_client", client);
    total.add("verb", l.verb);
    total.add("version", l.version);

    duration.add("component", l.component);
    duration.add("dry_run", l.dry_run);
    duration.add("group", l.group);
    duration.add("resource", l.resource);
    duration.add("scope", l.scope);
    duration.add("subresource", l.subresource);
    duration.add("verb", l.verb);
    duration.add("version", l.version);

    ngx_http_kube_metrics_longrunning_labels(sizes, l);

    e->total = total.ok() ? m->scalars->find(F_REQUEST_TOTAL, total.view())
                          : NULL;
    e->duration = duration.ok()
        ? m->histograms->find(H_REQUEST_DURATION, duration.view()) : NULL;

    /* apiserver_response_sizes: reads only, as kube */
    e->sizes = (l.verb == "GET" || l.verb == "LIST" || l.verb == "WATCH")
               && sizes.ok()
        ? m->histograms->find(H_RESPONSE_SIZES, sizes.view()) : NULL;
}


/* the LOG phase: what the request did, once it is over */
ngx_int_t
ngx_http_kube_metrics_log_handler(ngx_http_request_t *r)
{
    off_t                            sent;
    u_char                           code[NGX_INT_T_LEN];
    uint64_t                         ns, start, h;
    ngx_uint_t                       status;
    ngx_http_kube_ctx_t             *ctx;
    ngx_http_kube_metrics_t         *m;
    ngx_http_kube_metrics_key_t      key;
    ngx_http_kube_request_labels_t   l;
    ngx_http_kube_metrics_cached_t   slow, *e;

    ctx = static_cast<ngx_http_kube_ctx_t *>(
        ngx_http_get_module_ctx(r, ngx_http_kube_apiserver_module));

    if (ctx == NULL || !ctx->metrics_counted || r != r->main) {
        return NGX_DECLINED;
    }

    ctx->metrics_counted = false;

    m = ngx_http_kube_metrics();
    if (m == NULL) {
        return NGX_DECLINED;
    }

    /* the in-flight and long-running counts the request started */
    if (ctx->metrics_inflight >= 0 && ngx_http_kube_metrics_self) {
        (void) ngx_atomic_fetch_add(
            &ngx_http_kube_metrics_self->inflight[ctx->metrics_inflight], -1);
    }
    ngx_http_kube_metrics_add(ctx->metrics_longrunning, -1);

    ngx_http_kube_metrics_labels(r, ctx, &l);

    status = r->err_status ? r->err_status : r->headers_out.status;
    std::string_view code_text(reinterpret_cast<char *>(code),
                               ngx_sprintf(code, "%ui", status) - code);
    std::string_view client = km::systemClient(
        r->headers_in.user_agent
            ? ngx_http_kube_view(r->headers_in.user_agent->value)
            : std::string_view());

    for (std::string_view v : {l.verb, l.dry_run, l.group, l.version,
                               l.resource, l.subresource, l.scope,
                               l.component, code_text, client})
    {
        key.add(v);
    }

    e = NULL;

    if (key.ok && ngx_http_kube_metrics_cache) {
        h = ngx_http_kube_metrics_key_hash(key.buf, key.len);
        e = &ngx_http_kube_metrics_cache[h % NGX_HTTP_KUBE_METRICS_CACHE];

        if (e->hash != h || e->len != key.len
            || ngx_memcmp(e->key, key.buf, key.len) != 0)
        {
            ngx_http_kube_metrics_find(m, l, code_text, client, e);
            e->hash = h;
            e->len = static_cast<uint16_t>(key.len);
            ngx_memcpy(e->key, key.buf, key.len);
        }

    } else {
        ngx_http_kube_metrics_find(m, l, code_text, client, &slow);
        e = &slow;
    }

    start = static_cast<uint64_t>(r->start_sec) * 1000000000
            + r->start_msec * 1000000;
    ns = ngx_http_kube_metrics_now_ns();
    ns = ns > start ? ns - start : 0;

    ngx_http_kube_metrics_add(e->total, 1);

    if (e->duration) {
        kRequestDuration.observe(e->duration, ns * 1e-9, ns);
    }

    if (e->sizes) {
        sent = r->connection->sent - static_cast<off_t>(r->header_size);
        if (sent < 0) {
            sent = 0;
        }
        kResponseSizes.observe(e->sizes, static_cast<double>(sent), sent);
    }

    return NGX_DECLINED;
}

}  // namespace


ngx_int_t
ngx_http_kube_metrics_add_handlers(ngx_conf_t *cf)
{
    ngx_http_handler_pt        *h;
    ngx_http_core_main_conf_t  *cmcf;

    cmcf = static_cast<ngx_http_core_main_conf_t *>(
        ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module));

    h = static_cast<ngx_http_handler_pt *>(
        ngx_array_push(&cmcf->phases[NGX_HTTP_LOG_PHASE].handlers));
    if (h == NULL) {
        return NGX_ERROR;
    }

    *h = ngx_http_kube_metrics_log_handler;

    return NGX_OK;
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

    ngx_http_kube_metrics_cache = new (std::nothrow)
        ngx_http_kube_metrics_cached_t[NGX_HTTP_KUBE_METRICS_CACHE]();

    ngx_http_kube_metrics_watch_events =
        new (std::nothrow) ngx_http_kube_watch_events_t;
    km::setWatchEventSink(ngx_http_kube_metrics_watch_events);
}


void
ngx_http_kube_metrics_exit_worker()
{
    km::setWatchEventSink(nullptr);
    delete ngx_http_kube_metrics_watch_events;
    ngx_http_kube_metrics_watch_events = NULL;
    delete[] ngx_http_kube_metrics_cache;
    ngx_http_kube_metrics_cache = NULL;

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


/* The content handler took the request: it is counted when it ends, and is
 * in flight (or long-running) until then. */
void
ngx_http_kube_metrics_start(ngx_http_request_t *r, ngx_http_kube_ctx_t *ctx)
{
    ngx_http_kube_metrics_t  *m;

    m = ngx_http_kube_metrics();
    if (m == NULL || ctx->metrics_counted) {
        return;
    }

    ngx_http_kube_loc_conf_t *klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));
    if (!klcf->metrics) {
        return;
    }

    kube::server::Server *server = ngx_http_kube_server();
    if (server == NULL || !km::instrumented(server->scheme(), ctx->info)) {
        return;
    }

    ctx->metrics_counted = true;

    if (km::longRunning(ctx->info)) {
        ngx_http_kube_request_labels_t  l;
        LabelBuffer                     b;

        ngx_http_kube_metrics_labels(r, ctx, &l);
        ngx_http_kube_metrics_longrunning_labels(b, l);

        if (b.ok()) {
            ctx->metrics_longrunning = ngx_http_kube_metrics_gauge(m,
                F_LONGRUNNING, b.view());
            ngx_http_kube_metrics_add(ctx->metrics_longrunning, 1);
        }

        return;
    }

    ngx_http_kube_metrics_worker_t *w = ngx_http_kube_metrics_self;
    if (w == NULL) {
        return;
    }

    int k = km::mutating(ctx->info) ? 1 : 0;
    ngx_atomic_uint_t n = ngx_atomic_fetch_add(&w->inflight[k], 1) + 1;
    ngx_atomic_uint_t sec = ngx_time();

    /* only this worker writes its record */
    if (w->inflight_sec[k] != sec) {
        w->inflight_sec[k] = sec;
        w->inflight_max[k] = n;

    } else if (n > w->inflight_max[k]) {
        w->inflight_max[k] = n;
    }

    ctx->metrics_inflight = k;
}


/* A streamed answer is about to let go of the request info: its labels are
 * kept in the request pool until the request is counted. */
void
ngx_http_kube_metrics_keep_labels(ngx_http_request_t *r,
    ngx_http_kube_ctx_t *ctx)
{
    ngx_http_kube_request_labels_t  *l;

    if (!ctx->metrics_counted || ctx->metrics_labels) {
        return;
    }

    l = static_cast<ngx_http_kube_request_labels_t *>(
        ngx_palloc(r->pool, sizeof(ngx_http_kube_request_labels_t)));
    if (l == NULL) {
        return;
    }

    ngx_http_kube_metrics_labels(r, ctx, l);

    for (std::string_view *v : {&l->group, &l->version, &l->resource,
                                &l->subresource})
    {
        u_char *p = static_cast<u_char *>(ngx_pnalloc(r->pool, v->size() + 1));
        if (p == NULL) {
            return;
        }
        ngx_memcpy(p, v->data(), v->size());
        *v = std::string_view(reinterpret_cast<char *>(p), v->size());
    }

    ctx->metrics_labels = l;
}


/* A request flow control refused (429) is counted as kube's
 * RecordDroppedRequest does, without having been in flight. */
void
ngx_http_kube_metrics_rejected(ngx_http_request_t *r)
{
    ngx_http_kube_ctx_t   *ctx = ngx_http_kube_find_ctx(r);
    kube::server::Server  *server = ngx_http_kube_server();

    ngx_http_kube_loc_conf_t *klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));

    if (ctx && server && klcf->metrics && ngx_http_kube_metrics()
        && km::instrumented(server->scheme(), ctx->info))
    {
        ctx->metrics_counted = true;
    }
}


void
ngx_http_kube_metrics_stream_end(ngx_uint_t reason)
{
    ngx_http_kube_metrics_t  *m = ngx_http_kube_metrics();

    if (m == NULL || reason >= NGX_HTTP_KUBE_STREAM_END_REASONS) {
        return;
    }

    (void) ngx_atomic_fetch_add(&m->stream_ends[reason], 1);
}


/* apiserver_terminated_watchers_total: a watch cut for not reading */
void
ngx_http_kube_metrics_watcher_terminated(ngx_http_request_t *r)
{
    ngx_http_kube_ctx_t             *ctx = ngx_http_kube_find_ctx(r);
    ngx_http_kube_metrics_t         *m = ngx_http_kube_metrics();
    LabelBuffer                      b;
    ngx_http_kube_request_labels_t   l;

    /* a counted stream kept its labels */
    if (ctx == NULL || m == NULL || ctx->metrics_labels == NULL) {
        return;
    }

    ngx_http_kube_metrics_labels(r, ctx, &l);

    if (l.verb != "WATCH") {
        return;
    }

    /* named as kube's cacher names it: "configmaps", "deployments.apps" */
    std::string resource(l.resource);
    if (!l.group.empty()) {
        resource += '.';
        resource += l.group;
    }

    b.add("resource", resource);
    if (b.ok()) {
        ngx_http_kube_metrics_add(m->scalars->find(F_TERMINATED_WATCHERS,
                                                   b.view()), 1);
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


/* ---- API Priority and Fairness (apiserver_flowcontrol_*) ---------------- */

/*
 * A request under APF touches up to eight series of its (flow schema,
 * priority level): this worker keeps them, found once by their label texts
 * and then by pointer; a request holds its pair's entry from classification
 * to its end. Entries are never dropped: there are no more pairs than the
 * series the shared table keeps for them anyway. A series is found on its
 * first use only, so that /metrics shows the same series as before.
 */
struct ngx_http_kube_flow_series_t {
    enum : unsigned {
        INQUEUE = 0,        /* the per-worker gauges first, by their index */
        EXECUTING,
        SEATS_IN_USE,
        DISPATCHED,
        WAIT_REJECTED,      /* execute="false" */
        WAIT_EXECUTED,      /* execute="true" */
        EXECUTION_REGULAR,
        EXECUTION_WATCH,
        SERIES
    };

    std::string             fs;
    std::string             pl;
    unsigned                found = 0;   /* bit per series looked up */
    std::atomic<uint64_t>  *series[SERIES] = {};
};

namespace {

struct ngx_http_kube_flow_key_hash_t {
    using is_transparent = void;

    size_t operator()(std::string_view key) const
    {
        return std::hash<std::string_view>()(key);
    }
};

using ngx_http_kube_flow_cache_t = std::unordered_map<std::string,
    ngx_http_kube_flow_series_t, ngx_http_kube_flow_key_hash_t,
    std::equal_to<>>;


bool
ngx_http_kube_metrics_flow_labels(LabelBuffer &b, std::string_view fs,
    std::string_view pl)
{
    b.add("flow_schema", fs);
    b.add("priority_level", pl);
    return b.ok();
}


/* The series `which` of the pair: looked up in the shared tables once. */
std::atomic<uint64_t> *
ngx_http_kube_metrics_flow_find(ngx_http_kube_flow_series_t *s,
    unsigned which)
{
    using S = ngx_http_kube_flow_series_t;

    static const uint32_t  gauges[] = {
        F_FC_INQUEUE, F_FC_EXECUTING, F_FC_SEATS_IN_USE
    };

    ngx_http_kube_metrics_t  *m = ngx_http_kube_metrics();
    LabelBuffer               b;

    if (s->found & (1u << which)) {
        return s->series[which];
    }

    if (m == NULL) {
        return NULL;
    }

    switch (which) {
    case S::WAIT_REJECTED:
    case S::WAIT_EXECUTED:
        b.add("execute", which == S::WAIT_EXECUTED ? "true" : "false");
        ngx_http_kube_metrics_flow_labels(b, s->fs, s->pl);
        s->series[which] = b.ok() ? m->histograms->find(H_FC_WAIT, b.view())
                                  : NULL;
        break;

    case S::EXECUTION_REGULAR:
    case S::EXECUTION_WATCH:
        ngx_http_kube_metrics_flow_labels(b, s->fs, s->pl);
        b.add("type", which == S::EXECUTION_WATCH ? "watch" : "regular");
        s->series[which] = b.ok()
            ? m->histograms->find(H_FC_EXECUTION, b.view()) : NULL;
        break;

    case S::DISPATCHED:
        s->series[which] = ngx_http_kube_metrics_flow_labels(b, s->fs, s->pl)
            ? m->scalars->find(F_FC_DISPATCHED, b.view()) : NULL;
        break;

    default:
        s->series[which] = ngx_http_kube_metrics_flow_labels(b, s->fs, s->pl)
            ? ngx_http_kube_metrics_gauge(m, gauges[which], b.view()) : NULL;
        break;
    }

    s->found |= 1u << which;
    return s->series[which];
}

}  // namespace


ngx_http_kube_flow_series_t *
ngx_http_kube_metrics_flow_series(std::string_view fs, std::string_view pl)
{
    /* destroyed at the process's exit, after every request */
    static ngx_http_kube_flow_cache_t  cache;

    char  buf[2 * 256 + 1];

    if (ngx_http_kube_metrics() == NULL || fs.size() > 256 || pl.size() > 256) {
        return NULL;
    }

    /* the key: both names, a zero byte apart */
    ngx_memcpy(buf, fs.data(), fs.size());
    buf[fs.size()] = '\0';
    ngx_memcpy(buf + fs.size() + 1, pl.data(), pl.size());
    std::string_view key(buf, fs.size() + 1 + pl.size());

    auto it = cache.find(key);
    if (it == cache.end()) {
        it = cache.emplace(std::string(key), ngx_http_kube_flow_series_t())
                 .first;
        it->second.fs = fs;
        it->second.pl = pl;
    }

    return &it->second;
}


void
ngx_http_kube_metrics_flow_add(ngx_http_kube_flow_series_t *s,
    ngx_uint_t gauge, ngx_int_t delta)
{
    if (s && gauge < NGX_HTTP_KUBE_FLOW_GAUGES) {
        ngx_http_kube_metrics_add(
            ngx_http_kube_metrics_flow_find(s, static_cast<unsigned>(gauge)),
            delta);
    }
}


/* rare: looked up every time */
void
ngx_http_kube_metrics_flow_rejected(ngx_http_kube_flow_series_t *s,
    std::string_view reason)
{
    ngx_http_kube_metrics_t  *m = ngx_http_kube_metrics();
    LabelBuffer               b;

    if (s && m && ngx_http_kube_metrics_flow_labels(b, s->fs, s->pl)) {
        b.add("reason", reason);
        if (b.ok()) {
            ngx_http_kube_metrics_add(m->scalars->find(F_FC_REJECTED,
                                                       b.view()), 1);
        }
    }
}


void
ngx_http_kube_metrics_flow_dispatched(ngx_http_kube_flow_series_t *s)
{
    if (s) {
        ngx_http_kube_metrics_add(ngx_http_kube_metrics_flow_find(
            s, ngx_http_kube_flow_series_t::DISPATCHED), 1);
    }
}


void
ngx_http_kube_metrics_flow_wait(ngx_http_kube_flow_series_t *s, bool execute,
    uint64_t ns)
{
    std::atomic<uint64_t> *h = s ? ngx_http_kube_metrics_flow_find(s,
        execute ? ngx_http_kube_flow_series_t::WAIT_EXECUTED
                : ngx_http_kube_flow_series_t::WAIT_REJECTED) : NULL;
    if (h) {
        kFlowDurations.observe(h, ns * 1e-9, ns);
    }
}


void
ngx_http_kube_metrics_flow_execution(ngx_http_kube_flow_series_t *s,
    bool watch, uint64_t ns)
{
    std::atomic<uint64_t> *h = s ? ngx_http_kube_metrics_flow_find(s,
        watch ? ngx_http_kube_flow_series_t::EXECUTION_WATCH
              : ngx_http_kube_flow_series_t::EXECUTION_REGULAR) : NULL;
    if (h) {
        kFlowDurations.observe(h, ns * 1e-9, ns);
    }
}


void
ngx_http_kube_metrics_flow_level(std::string_view pl, ngx_int_t concurrency,
    ngx_int_t nominal, ngx_int_t current)
{
    ngx_http_kube_metrics_t  *m = ngx_http_kube_metrics();
    LabelBuffer               b;

    b.add("priority_level", pl);

    if (m == NULL || !b.ok()) {
        return;
    }

    const std::pair<uint32_t, ngx_int_t>  values[] = {
        {F_FC_CONCURRENCY_LIMIT, concurrency},
        {F_FC_NOMINAL_SEATS, nominal},
        {F_FC_CURRENT_SEATS, current},
    };

    for (const auto &[family, value] : values) {
        std::atomic<uint64_t> *v = m->scalars->find(family, b.view());
        if (v) {
            v->store(static_cast<uint64_t>(value), std::memory_order_relaxed);
        }
    }
}


/* ---- /metrics ------------------------------------------------------------ */

namespace {

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

    um::appendHeader(out, "process_cpu_seconds_total", "counter",
        "Total user and system CPU time spent in seconds.");
    um::appendSample(out, "process_cpu_seconds_total", "",
                     um::formatFloat(p.cpu_seconds));

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        um::appendHeader(out, "process_max_fds", "gauge",
                         "Maximum number of open file descriptors.");
        um::appendSample(out, "process_max_fds", "",
                         std::to_string(rl.rlim_cur));
    }

    um::appendHeader(out, "process_open_fds", "gauge",
                     "Number of open file descriptors.");
    um::appendSample(out, "process_open_fds", "", std::to_string(p.fds));

    um::appendHeader(out, "process_resident_memory_bytes", "gauge",
                     "Resident memory size in bytes.");
    um::appendSample(out, "process_resident_memory_bytes", "",
                     std::to_string(p.rss));

    um::appendHeader(out, "process_start_time_seconds", "gauge",
        "Start time of the process since unix epoch in seconds.");
    um::appendSample(out, "process_start_time_seconds", "",
                     um::formatFloat(m->start_time));

    um::appendHeader(out, "process_virtual_memory_bytes", "gauge",
                     "Virtual memory size in bytes.");
    um::appendSample(out, "process_virtual_memory_bytes", "",
                     std::to_string(p.vsize));
}


void
ngx_http_kube_metrics_counter(std::string &out, const char *name,
    const char *label, const char *value, ngx_atomic_uint_t n)
{
    std::string labels;

    if (label) {
        um::appendLabel(labels, label, value);
    }

    um::appendSample(out, name, labels, std::to_string(n));
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

}  // namespace


std::string
ngx_http_kube_metrics_text()
{
    ngx_uint_t                i;
    ngx_http_kube_metrics_t  *m;

    m = ngx_http_kube_metrics();
    if (m == NULL) {
        return {};
    }

    const SeriesTable &s = *m->scalars;
    const SeriesTable &h = *m->histograms;
    std::string out;

    /* kube-apiserver's request metrics (endpoints/metrics/metrics.go) */

    um::appendHeader(out, "apiserver_current_inflight_requests", "gauge",
        "[STABLE] Maximal number of currently used inflight request limit of "
        "this apiserver per request kind in last second.");
    ngx_http_kube_metrics_inflight(out, m);

    um::appendHeader(out, "apiserver_longrunning_requests", "gauge",
        "[STABLE] Gauge of all active long-running apiserver requests broken "
        "out by verb, group, version, resource, scope and component. Not all "
        "requests are tracked this way.");
    ngx_http_kube_metrics_gauges(out, "apiserver_longrunning_requests", m,
                                 F_LONGRUNNING);

    um::appendHeader(out, "apiserver_request_duration_seconds", "histogram",
        "[STABLE] Response latency distribution in seconds for each verb, dry "
        "run value, group, version, resource, subresource, scope and "
        "component.");
    um::appendHistograms(out, "apiserver_request_duration_seconds",
                         kRequestDuration, h, H_REQUEST_DURATION);

    um::appendHeader(out, "apiserver_request_total", "counter",
        "[STABLE] Counter of apiserver requests broken out for each verb, dry "
        "run value, group, version, resource, scope, component, and HTTP "
        "response code.");
    um::appendScalars(out, "apiserver_request_total", s, F_REQUEST_TOTAL,
                      false);

    um::appendHeader(out, "apiserver_response_sizes", "histogram",
        "[STABLE] Response size distribution in bytes for each group, "
        "version, verb, resource, subresource, scope and component.");
    um::appendHistograms(out, "apiserver_response_sizes", kResponseSizes, h,
                         H_RESPONSE_SIZES);

    um::appendHeader(out, "apiserver_terminated_watchers_total", "counter",
        "[ALPHA] Counter of watchers closed due to unresponsiveness broken by "
        "resource type.");
    um::appendScalars(out, "apiserver_terminated_watchers_total", s,
                      F_TERMINATED_WATCHERS, false);

    um::appendHeader(out, "apiserver_watch_events_sizes", "histogram",
        "[ALPHA] Watch event size distribution in bytes");
    um::appendHistograms(out, "apiserver_watch_events_sizes",
                         kWatchEventSizes, h, H_WATCH_EVENT_SIZES);

    um::appendHeader(out, "apiserver_watch_events_total", "counter",
        "[ALPHA] Number of events sent in watch clients");
    um::appendScalars(out, "apiserver_watch_events_total", s, F_WATCH_EVENTS,
                      false);

    /* API Priority and Fairness (util/flowcontrol/metrics/metrics.go) */

    um::appendHeader(out, "apiserver_flowcontrol_current_executing_requests",
        "gauge", "[ALPHA] Number of requests in initial (for a WATCH) or any "
        "(for a non-WATCH) execution stage in the API Priority and Fairness "
        "subsystem");
    ngx_http_kube_metrics_gauges(out,
        "apiserver_flowcontrol_current_executing_requests", m, F_FC_EXECUTING);

    um::appendHeader(out, "apiserver_flowcontrol_current_inqueue_requests",
        "gauge", "[ALPHA] Number of requests currently pending in queues of "
        "the API Priority and Fairness subsystem");
    ngx_http_kube_metrics_gauges(out,
        "apiserver_flowcontrol_current_inqueue_requests", m, F_FC_INQUEUE);

    um::appendHeader(out, "apiserver_flowcontrol_current_limit_seats", "gauge",
        "[ALPHA] current derived number of execution seats available to each "
        "priority level");
    um::appendScalars(out, "apiserver_flowcontrol_current_limit_seats", s,
                      F_FC_CURRENT_SEATS, true);

    um::appendHeader(out, "apiserver_flowcontrol_dispatched_requests_total",
        "counter", "[ALPHA] Number of requests executed by API Priority and "
        "Fairness subsystem");
    um::appendScalars(out, "apiserver_flowcontrol_dispatched_requests_total",
                      s, F_FC_DISPATCHED, false);

    um::appendHeader(out, "apiserver_flowcontrol_nominal_limit_seats", "gauge",
        "[ALPHA] Nominal number of execution seats configured for each "
        "priority level");
    um::appendScalars(out, "apiserver_flowcontrol_nominal_limit_seats", s,
                      F_FC_NOMINAL_SEATS, true);

    um::appendHeader(out, "apiserver_flowcontrol_rejected_requests_total",
        "counter", "[ALPHA] Number of requests rejected by API Priority and "
        "Fairness subsystem");
    um::appendScalars(out, "apiserver_flowcontrol_rejected_requests_total", s,
                      F_FC_REJECTED, false);

    um::appendHeader(out, "apiserver_flowcontrol_request_concurrency_in_use",
        "gauge", "[ALPHA] Concurrency (number of seats) occupied by the "
        "currently executing (initial stage for a WATCH, any stage otherwise) "
        "requests in the API Priority and Fairness subsystem");
    ngx_http_kube_metrics_gauges(out,
        "apiserver_flowcontrol_request_concurrency_in_use", m,
        F_FC_SEATS_IN_USE);

    um::appendHeader(out, "apiserver_flowcontrol_request_concurrency_limit",
        "gauge", "[ALPHA] Shared concurrency limit in the API Priority and "
        "Fairness subsystem");
    um::appendScalars(out, "apiserver_flowcontrol_request_concurrency_limit",
                      s, F_FC_CONCURRENCY_LIMIT, true);

    um::appendHeader(out, "apiserver_flowcontrol_request_execution_seconds",
        "histogram", "[ALPHA] Duration of initial stage (for a WATCH) or any "
        "(for a non-WATCH) stage of request execution in the API Priority and "
        "Fairness subsystem");
    um::appendHistograms(out, "apiserver_flowcontrol_request_execution_seconds",
                         kFlowDurations, h, H_FC_EXECUTION);

    um::appendHeader(out, "apiserver_flowcontrol_request_wait_duration_seconds",
        "histogram", "[ALPHA] Length of time a request spent waiting in its "
        "queue");
    um::appendHistograms(out,
        "apiserver_flowcontrol_request_wait_duration_seconds", kFlowDurations,
        h, H_FC_WAIT);

    /* kube-apiserver's audit metrics (k8s.io/apiserver/pkg/audit/metrics.go) */

    um::appendHeader(out, "apiserver_audit_event_total", "counter",
        "[ALPHA] Counter of audit events generated and sent to the audit "
        "backend.");
    ngx_http_kube_metrics_counter(out, "apiserver_audit_event_total", NULL,
                                  NULL, m->audit_events);

    um::appendHeader(out, "apiserver_audit_error_total", "counter",
        "[ALPHA] Counter of audit events that failed to be audited properly. "
        "Plugin identifies the plugin affected by the error.");
    for (i = 0; i < NGX_HTTP_KUBE_AUDIT_PLUGINS; i++) {
        ngx_http_kube_metrics_counter(out, "apiserver_audit_error_total",
                                      "plugin",
                                      ngx_http_kube_audit_plugin_names[i],
                                      m->audit_errors[i]);
    }

    um::appendHeader(out, "apiserver_audit_level_total", "counter",
        "[ALPHA] Counter of policy levels for audit events (1 per request).");
    for (i = 0; i < NGX_HTTP_KUBE_AUDIT_LEVELS; i++) {
        ngx_http_kube_metrics_counter(out, "apiserver_audit_level_total",
                                      "level",
                                      ngx_http_kube_audit_level_names[i],
                                      m->audit_levels[i]);
    }

    /* ours */

    um::appendHeader(out, "kube_apiserver_stream_ends_total", "counter",
        "Streamed responses (watches, lists over 128 KiB) that ended, by "
        "reason: finished, cut (more than kube_stream_max_buffered unread), "
        "timed_out (nothing read for send_timeout), gone (the client went "
        "away).");
    for (i = 0; i < NGX_HTTP_KUBE_STREAM_END_REASONS; i++) {
        ngx_http_kube_metrics_counter(out, "kube_apiserver_stream_ends_total",
                                      "reason",
                                      ngx_http_kube_stream_end_names[i],
                                      m->stream_ends[i]);
    }

    const std::pair<const char *, const SeriesTable *>  tables[] = {
        {"scalar", &s}, {"histogram", &h}
    };

    um::appendHeader(out, "kube_apiserver_metrics_series", "gauge",
        "Series held in the metrics zone's tables, by table (scalar: "
        "counters and gauges; histogram).");
    for (const auto &[name, t] : tables) {
        ngx_http_kube_metrics_counter(out, "kube_apiserver_metrics_series",
                                      "table", name, t->used());
    }

    um::appendHeader(out, "kube_apiserver_metrics_series_capacity", "gauge",
        "Series the metrics zone's tables can hold, by table.");
    for (const auto &[name, t] : tables) {
        ngx_http_kube_metrics_counter(out,
                                      "kube_apiserver_metrics_series_capacity",
                                      "table", name, t->capacity());
    }

    um::appendHeader(out, "kube_apiserver_metrics_dropped_total", "counter",
        "Observations not recorded because their table was full or their "
        "labels too long, by table.");
    for (const auto &[name, t] : tables) {
        ngx_http_kube_metrics_counter(out,
                                      "kube_apiserver_metrics_dropped_total",
                                      "table", name, t->overflow());
    }

    ngx_http_kube_metrics_process_text(out, m);

    return out;
}
