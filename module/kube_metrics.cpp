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
    ngx_atomic_t  audit_events;
    ngx_atomic_t  audit_errors[NGX_HTTP_KUBE_AUDIT_PLUGINS];
    ngx_atomic_t  audit_levels[NGX_HTTP_KUBE_AUDIT_LEVELS];
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


void
ngx_http_kube_metrics_counter(std::string &out, const char *name,
    const char *label, const char *value, ngx_atomic_uint_t n)
{
    out += name;
    if (label) {
        out += '{';
        out += label;
        out += "=\"";
        out += value;
        out += "\"}";
    }
    out += ' ';
    out += std::to_string(n);
    out += '\n';
}

}  // namespace


void
ngx_http_kube_metrics_stream_end(ngx_uint_t reason)
{
    ngx_http_kube_metrics_t  *m = ngx_http_kube_metrics();

    if (m == NULL || reason >= NGX_HTTP_KUBE_STREAM_END_REASONS) {
        return;
    }

    (void) ngx_atomic_fetch_add(&m->stream_ends[reason], 1);
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

    /* kube-apiserver's audit metrics (k8s.io/apiserver/pkg/audit/metrics.go) */

    out += "# HELP apiserver_audit_event_total [ALPHA] Counter of audit events "
           "generated and sent to the audit backend.\n"
           "# TYPE apiserver_audit_event_total counter\n";
    ngx_http_kube_metrics_counter(out, "apiserver_audit_event_total", NULL,
                                  NULL, m ? m->audit_events : 0);

    out += "# HELP apiserver_audit_error_total [ALPHA] Counter of audit events "
           "that failed to be audited properly. Plugin identifies the plugin "
           "affected by the error.\n"
           "# TYPE apiserver_audit_error_total counter\n";
    for (i = 0; i < NGX_HTTP_KUBE_AUDIT_PLUGINS; i++) {
        ngx_http_kube_metrics_counter(out, "apiserver_audit_error_total",
                                      "plugin",
                                      ngx_http_kube_audit_plugin_names[i],
                                      m ? m->audit_errors[i] : 0);
    }

    out += "# HELP apiserver_audit_level_total [ALPHA] Counter of policy "
           "levels for audit events (1 per request).\n"
           "# TYPE apiserver_audit_level_total counter\n";
    for (i = 0; i < NGX_HTTP_KUBE_AUDIT_LEVELS; i++) {
        ngx_http_kube_metrics_counter(out, "apiserver_audit_level_total",
                                      "level",
                                      ngx_http_kube_audit_level_names[i],
                                      m ? m->audit_levels[i] : 0);
    }

    return out;
}
