/*
 * kube-apiserver's request metrics (endpoints/metrics/metrics.go):
 * apiserver_request_total, the request duration and response size
 * histograms, the in-flight and long-running gauges, and the watch
 * families. A request costs a label string built on the stack, two table
 * look-ups and about eight atomic adds, all in the LOG phase; nothing locks
 * or allocates.
 */

#include "kube_metrics.hpp"

#include "endpoints/metrics.hpp"

namespace {

using kube::util::metrics::LabelBuffer;

namespace km = kube::endpoints::metrics;

uint64_t
ngx_http_kube_metrics_now_ns()
{
    struct timespec  ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
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


/* Which of a request's families labels are written for: they share the
 * request's labels, apiserver_request_total adds its code and client, and
 * the gauges and sizes leave out dry_run. */
enum ngx_http_kube_request_family_e {
    NGX_HTTP_KUBE_REQUEST_TOTAL,
    NGX_HTTP_KUBE_REQUEST_DURATION,
    NGX_HTTP_KUBE_REQUEST_GAUGE     /* longrunning, response sizes */
};


/* the family's labels, in name order, as Go's client writes them */
void
ngx_http_kube_metrics_request_labels(LabelBuffer &b,
    const ngx_http_kube_request_labels_t &l,
    ngx_http_kube_request_family_e family, std::string_view code = {},
    std::string_view client = {})
{
    if (family == NGX_HTTP_KUBE_REQUEST_TOTAL) {
        b.add("code", code);
    }

    b.add("component", l.component);

    if (family != NGX_HTTP_KUBE_REQUEST_GAUGE) {
        b.add("dry_run", l.dry_run);
    }

    b.add("group", l.group);
    b.add("resource", l.resource);
    b.add("scope", l.scope);
    b.add("subresource", l.subresource);

    if (family == NGX_HTTP_KUBE_REQUEST_TOTAL) {
        b.add("system_client", client);
    }

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
    /* room for the hash's last eight-byte step */
    char    buf[sizeof(ngx_http_kube_metrics_cached_t::key) + 8] = {};
    size_t  len = 0;
    bool    ok = true;

    void add(std::string_view v)
    {
        if (!ok || v.size() + 1 > sizeof(ngx_http_kube_metrics_cached_t::key) - len) {
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


/* The key's hash, eight bytes a step (the key is in a zeroed buffer, so the
 * last step reads past its end only into zeros of the same buffer). */
uint64_t
ngx_http_kube_metrics_key_hash(const ngx_http_kube_metrics_key_t &key)
{
    uint64_t  h, w;

    h = 1469598103934665603ull ^ key.len;

    for (size_t i = 0; i < key.len; i += sizeof(w)) {
        ngx_memcpy(&w, key.buf + i, sizeof(w));
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }

    return h;
}


/* The status code's digits, as ngx_sprintf's "%ui" writes them. */
std::string_view
ngx_http_kube_metrics_code(ngx_uint_t status, u_char *buf)
{
    if (status >= 100 && status <= 999) {
        buf[0] = static_cast<u_char>('0' + status / 100);
        buf[1] = static_cast<u_char>('0' + status / 10 % 10);
        buf[2] = static_cast<u_char>('0' + status % 10);
        return std::string_view(reinterpret_cast<char *>(buf), 3);
    }

    return std::string_view(reinterpret_cast<char *>(buf),
                            ngx_sprintf(buf, "%ui", status) - buf);
}


/* The three series of a request, by its labels (slow path: texts built) */
void
ngx_http_kube_metrics_find(ngx_http_kube_metrics_t *m,
    const ngx_http_kube_request_labels_t &l, std::string_view code,
    std::string_view client, ngx_http_kube_metrics_cached_t *e)
{
    LabelBuffer  total, duration, sizes;

    ngx_http_kube_metrics_request_labels(total, l, NGX_HTTP_KUBE_REQUEST_TOTAL,
                                         code, client);
    ngx_http_kube_metrics_request_labels(duration, l,
                                         NGX_HTTP_KUBE_REQUEST_DURATION);
    ngx_http_kube_metrics_request_labels(sizes, l,
                                         NGX_HTTP_KUBE_REQUEST_GAUGE);

    e->total = total.ok()
        ? ngx_http_kube_metrics_own(m->scalars, F_REQUEST_TOTAL, total.view())
        : NULL;
    e->duration = duration.ok()
        ? ngx_http_kube_metrics_own(m->histograms, H_REQUEST_DURATION,
                                    duration.view())
        : NULL;

    /* apiserver_response_sizes: reads only, as kube */
    e->sizes = (l.verb == "GET" || l.verb == "LIST" || l.verb == "WATCH")
               && sizes.ok()
        ? ngx_http_kube_metrics_own(m->histograms, H_RESPONSE_SIZES,
                                    sizes.view())
        : NULL;
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
    std::string_view code_text = ngx_http_kube_metrics_code(status, code);
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
        h = ngx_http_kube_metrics_key_hash(key);
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
    return ngx_http_kube_add_handler(cf, NGX_HTTP_LOG_PHASE,
                                     ngx_http_kube_metrics_log_handler);
}


void
ngx_http_kube_metrics_request_init_worker()
{
    ngx_http_kube_metrics_cache = new (std::nothrow)
        ngx_http_kube_metrics_cached_t[NGX_HTTP_KUBE_METRICS_CACHE]();

    ngx_http_kube_metrics_watch_events =
        new (std::nothrow) ngx_http_kube_watch_events_t;
    km::setWatchEventSink(ngx_http_kube_metrics_watch_events);
}


void
ngx_http_kube_metrics_request_exit_worker()
{
    km::setWatchEventSink(nullptr);
    delete ngx_http_kube_metrics_watch_events;
    ngx_http_kube_metrics_watch_events = NULL;
    delete[] ngx_http_kube_metrics_cache;
    ngx_http_kube_metrics_cache = NULL;
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
        ngx_http_kube_metrics_request_labels(b, l, NGX_HTTP_KUBE_REQUEST_GAUGE);

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
