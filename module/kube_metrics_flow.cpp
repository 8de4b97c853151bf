/*
 * apiserver_flowcontrol_*: what kube_flowcontrol.cpp counts where kube's
 * queueset and filter do (util/flowcontrol/metrics/metrics.go).
 *
 * A request under APF touches up to eight series of its (flow schema,
 * priority level): this worker keeps them, found once by their label texts
 * and then by pointer; a request holds its pair's entry from classification
 * to its end. Entries are never dropped: there are no more pairs than the
 * series the shared table keeps for them anyway. A series is found on its
 * first use only, so that /metrics shows the same series as before.
 */

#include <unordered_map>

#include "kube_metrics.hpp"

using kube::util::metrics::LabelBuffer;

struct ngx_http_kube_flow_series_t {
    std::string             fs;
    std::string             pl;
    unsigned                found = 0;   /* bit per series looked up */
    std::atomic<uint64_t>  *series[NGX_HTTP_KUBE_FLOW_SERIES] = {};
};

namespace {

/* Where each NGX_HTTP_KUBE_FLOW_* series lives, and the label (if any)
 * that tells it from its siblings of the same family. */
enum ngx_http_kube_flow_table_e {
    NGX_HTTP_KUBE_FLOW_WORKER_GAUGE,   /* scalars, per worker */
    NGX_HTTP_KUBE_FLOW_SCALAR,
    NGX_HTTP_KUBE_FLOW_HISTOGRAM
};

struct ngx_http_kube_flow_family_t {
    uint32_t     family;
    ngx_uint_t   table;
    const char  *label;
    const char  *value;
};

const ngx_http_kube_flow_family_t
    ngx_http_kube_flow_families[NGX_HTTP_KUBE_FLOW_SERIES] = {
    { F_FC_INQUEUE, NGX_HTTP_KUBE_FLOW_WORKER_GAUGE, NULL, NULL },
    { F_FC_EXECUTING, NGX_HTTP_KUBE_FLOW_WORKER_GAUGE, NULL, NULL },
    { F_FC_SEATS_IN_USE, NGX_HTTP_KUBE_FLOW_WORKER_GAUGE, NULL, NULL },
    { F_FC_DISPATCHED, NGX_HTTP_KUBE_FLOW_SCALAR, NULL, NULL },
    { H_FC_WAIT, NGX_HTTP_KUBE_FLOW_HISTOGRAM, "execute", "false" },
    { H_FC_WAIT, NGX_HTTP_KUBE_FLOW_HISTOGRAM, "execute", "true" },
    { H_FC_EXECUTION, NGX_HTTP_KUBE_FLOW_HISTOGRAM, "type", "regular" },
    { H_FC_EXECUTION, NGX_HTTP_KUBE_FLOW_HISTOGRAM, "type", "watch" },
};


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


/* The pair's labels and the series' own one (`name` NULL: none), in name
 * order, as Go's client writes them. */
bool
ngx_http_kube_metrics_flow_labels(LabelBuffer &b,
    const ngx_http_kube_flow_series_t *s, const char *name, const char *value)
{
    bool  first = name && std::string_view(name) < "flow_schema";

    if (first) {
        b.add(name, value);
    }

    b.add("flow_schema", s->fs);
    b.add("priority_level", s->pl);

    if (name && !first) {
        b.add(name, value);
    }

    return b.ok();
}


/* The series `which` of the pair: looked up in the shared tables once. */
std::atomic<uint64_t> *
ngx_http_kube_metrics_flow_find(ngx_http_kube_flow_series_t *s,
    ngx_uint_t which)
{
    ngx_http_kube_metrics_t            *m = ngx_http_kube_metrics();
    std::atomic<uint64_t>              *v;
    const ngx_http_kube_flow_family_t  *f = &ngx_http_kube_flow_families[which];
    LabelBuffer                         b;

    if (s->found & (1u << which)) {
        return s->series[which];
    }

    if (m == NULL) {
        return NULL;
    }

    v = NULL;

    if (ngx_http_kube_metrics_flow_labels(b, s, f->label, f->value)) {
        switch (f->table) {
        case NGX_HTTP_KUBE_FLOW_WORKER_GAUGE:
            v = ngx_http_kube_metrics_gauge(m, f->family, b.view());
            break;
        case NGX_HTTP_KUBE_FLOW_SCALAR:
            v = ngx_http_kube_metrics_own(m->scalars, f->family, b.view());
            break;
        default:
            v = ngx_http_kube_metrics_own(m->histograms, f->family, b.view());
            break;
        }
    }

    s->series[which] = v;
    s->found |= 1u << which;
    return v;
}

}  // namespace


ngx_http_kube_flow_series_t *
ngx_http_kube_metrics_flow_series(std::string_view fs, std::string_view pl)
{
    /* destroyed at the process's exit, after every request */
    static ngx_http_kube_flow_cache_t  cache;

    /* the series last found for a pair of names, by where the caller keeps
     * them (a classification's decision): checked by content, as a decision
     * may be made again at the same place with other names */
    struct recent_t {
        const char                   *fs;
        const char                   *pl;
        ngx_http_kube_flow_series_t  *series;
    };
    static recent_t  recent[16];

    char  buf[2 * 256 + 1];

    if (ngx_http_kube_metrics() == NULL || fs.size() > 256 || pl.size() > 256) {
        return NULL;
    }

    recent_t &r = recent[((reinterpret_cast<uintptr_t>(fs.data())
                           ^ reinterpret_cast<uintptr_t>(pl.data())) >> 4) % 16];

    if (r.series && r.fs == fs.data() && r.pl == pl.data()
        && r.series->fs == fs && r.series->pl == pl)
    {
        return r.series;
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

    r = { fs.data(), pl.data(), &it->second };

    return &it->second;
}


void
ngx_http_kube_metrics_flow_add(ngx_http_kube_flow_series_t *s,
    ngx_uint_t series, ngx_int_t delta)
{
    if (s && series < NGX_HTTP_KUBE_FLOW_WAIT_REJECTED) {
        ngx_http_kube_metrics_add(ngx_http_kube_metrics_flow_find(s, series),
                                  delta);
    }
}


void
ngx_http_kube_metrics_flow_observe(ngx_http_kube_flow_series_t *s,
    ngx_uint_t series, uint64_t ns)
{
    std::atomic<uint64_t>  *h;

    if (s == NULL || series < NGX_HTTP_KUBE_FLOW_WAIT_REJECTED
        || series >= NGX_HTTP_KUBE_FLOW_SERIES)
    {
        return;
    }

    h = ngx_http_kube_metrics_flow_find(s, series);
    if (h) {
        kFlowDurations.observe(h, ns * 1e-9, ns);
    }
}


/* rare: looked up every time */
void
ngx_http_kube_metrics_flow_rejected(ngx_http_kube_flow_series_t *s,
    std::string_view reason)
{
    ngx_http_kube_metrics_t  *m = ngx_http_kube_metrics();
    LabelBuffer               b;

    if (s && m && ngx_http_kube_metrics_flow_labels(b, s, NULL, NULL)) {
        b.add("reason", reason);
        if (b.ok()) {
            ngx_http_kube_metrics_add(m->scalars->find(F_FC_REJECTED,
                                                       b.view()), 1);
        }
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
