/*
 * Counters every worker adds to and /metrics reports: plain atomics in a
 * shared memory zone, so that a scrape answered by any worker sees the
 * whole server, and the counts survive a worker's respawn.
 */

#include "kube_module.hpp"

namespace {

/* what the zone holds: plain data only (spec/nginx-module.md §6) */
struct ngx_http_kube_metrics_t {
    ngx_atomic_t  stream_ends[NGX_HTTP_KUBE_STREAM_END_REASONS];
};

const char *ngx_http_kube_stream_end_names[NGX_HTTP_KUBE_STREAM_END_REASONS] = {
    "finished", "cut", "timed_out", "gone"
};

ngx_shm_zone_t  *ngx_http_kube_metrics_zone;


ngx_int_t
ngx_http_kube_metrics_init_zone(ngx_shm_zone_t *zone, void *data)
{
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

    shpool->data = m;
    zone->data = m;

    return NGX_OK;
}

}  // namespace


ngx_int_t
ngx_http_kube_metrics_add_zone(ngx_conf_t *cf)
{
    ngx_str_t  name = ngx_string("kube_apiserver_metrics");

    ngx_http_kube_metrics_zone = ngx_shared_memory_add(cf, &name,
        8 * ngx_pagesize, &ngx_http_kube_apiserver_module);
    if (ngx_http_kube_metrics_zone == NULL) {
        return NGX_ERROR;
    }

    ngx_http_kube_metrics_zone->init = ngx_http_kube_metrics_init_zone;

    return NGX_OK;
}


void
ngx_http_kube_metrics_stream_end(ngx_uint_t reason)
{
    ngx_http_kube_metrics_t  *m;

    if (ngx_http_kube_metrics_zone == NULL
        || ngx_http_kube_metrics_zone->data == NULL
        || reason >= NGX_HTTP_KUBE_STREAM_END_REASONS)
    {
        return;
    }

    m = static_cast<ngx_http_kube_metrics_t *>(
        ngx_http_kube_metrics_zone->data);

    (void) ngx_atomic_fetch_add(&m->stream_ends[reason], 1);
}


std::string
ngx_http_kube_metrics_text()
{
    ngx_uint_t                i;
    ngx_http_kube_metrics_t  *m;

    std::string out =
        "# HELP kube_apiserver_stream_ends_total Streamed responses (watches, "
        "lists over 128 KiB) that ended, by reason: finished, cut (more than "
        "kube_stream_max_buffered unread), timed_out (nothing read for "
        "send_timeout), gone (the client went away).\n"
        "# TYPE kube_apiserver_stream_ends_total counter\n";

    m = ngx_http_kube_metrics_zone
        ? static_cast<ngx_http_kube_metrics_t *>(
              ngx_http_kube_metrics_zone->data)
        : NULL;

    for (i = 0; i < NGX_HTTP_KUBE_STREAM_END_REASONS; i++) {
        out += "kube_apiserver_stream_ends_total{reason=\"";
        out += ngx_http_kube_stream_end_names[i];
        out += "\"} ";
        out += std::to_string(m ? m->stream_ends[i] : 0);
        out += '\n';
    }

    return out;
}
