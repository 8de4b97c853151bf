/*
 * The request deadline (kube-apiserver's WithRequestDeadline and
 * WithTimeoutForNonLongRunningRequests): a request that is not long-running
 * gets kube_request_timeout, or a shorter ?timeout=, from its arrival. An
 * answer still pending at the deadline is replaced by kube's 504; the work
 * goes on off the request's clock, and its late answer is dropped. The
 * request is held until then, as that work may still read it.
 */

#include "kube_module.hpp"

#include "endpoints/negotiation.hpp"
#include "server/request_deadline.hpp"

namespace {

void
ngx_http_kube_deadline_expired(ngx_event_t *ev)
{
    ngx_int_t             rc;
    ngx_connection_t     *c;
    ngx_http_request_t   *r;
    ngx_http_kube_ctx_t  *ctx;

    r = static_cast<ngx_http_request_t *>(ev->data);
    c = r->connection;

    ctx = ngx_http_kube_find_ctx(r);

    ngx_log_error(NGX_LOG_INFO, c->log, 0,
                  "kube-apiserver: the request did not complete within "
                  "its timeout");

    ctx->timed_out = true;

    /* held for the late answer (ngx_http_kube_deadline_answered) */
    r->main->count++;
    /* the connection is not reused behind that answer */
    r->keepalive = 0;

    try {
        rc = ngx_http_kube_send(r, kube::server::timeoutResponse());

    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, c->log, 0,
                      "kube-apiserver: unexpected exception in the request "
                      "deadline");
        rc = NGX_ERROR;
    }

    ngx_http_finalize_request(r, rc);
    ngx_http_run_posted_requests(c);
}

}  // namespace


/* PREACCESS, before authentication as kube's filter is: a malformed
 * ?timeout= is refused, else the request's deadline is noted. */
ngx_int_t
ngx_http_kube_deadline_handler(ngx_http_request_t *r)
try {
    ngx_time_t                *tp;
    ngx_msec_int_t             elapsed;
    ngx_http_kube_ctx_t       *ctx;
    ngx_http_kube_loc_conf_t  *klcf;

    if (r != r->main) {
        return NGX_DECLINED;
    }

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));
    if (!klcf->api) {
        return NGX_DECLINED;
    }

    ctx = ngx_http_kube_get_ctx(r);
    if (ctx == NULL || ctx->route == kube::server::Route::None
        || ctx->deadline_checked)
    {
        return NGX_DECLINED;
    }

    ctx->deadline_checked = true;

    std::string_view query = ngx_http_kube_view(r->args);
    kube::server::RequestDeadline d = kube::server::requestDeadline(
        ctx->info, query, std::chrono::milliseconds(klcf->request_timeout));

    if (d.error) {
        kube::util::Query q = kube::util::Query::parse(query);
        bool pretty = kube::endpoints::wantsPretty(
            r->headers_in.user_agent
                ? ngx_http_kube_view(r->headers_in.user_agent->value)
                : std::string_view(),
            q.get("pretty").value_or(""));
        return ngx_http_kube_reject(r,
            kube::endpoints::HttpResponse::fromStatus(*d.error, pretty));
    }

    if (d.longRunning) {
        return NGX_DECLINED;
    }

    /* from the request's arrival, in whole milliseconds, rounded up */
    tp = ngx_timeofday();
    elapsed = static_cast<ngx_msec_int_t>(
        (tp->sec - r->start_sec) * 1000 + (tp->msec - r->start_msec));

    ctx->deadline = ngx_current_msec
        + static_cast<ngx_msec_t>((d.timeout.count() + 999999) / 1000000)
        - static_cast<ngx_msec_t>(elapsed > 0 ? elapsed : 0);
    ctx->has_deadline = true;

    return NGX_DECLINED;

} catch (...) {
    ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                  "kube-apiserver: unexpected exception in the request "
                  "deadline");
    return NGX_HTTP_INTERNAL_SERVER_ERROR;
}


/* The answer will come later: it has until the deadline. */
void
ngx_http_kube_deadline_start(ngx_http_request_t *r, ngx_http_kube_ctx_t *ctx)
{
    ngx_msec_int_t  left;

    if (!ctx->has_deadline || ctx->deadline_timer.timer_set) {
        return;
    }

    left = static_cast<ngx_msec_int_t>(ctx->deadline - ngx_current_msec);

    ctx->deadline_timer.handler = ngx_http_kube_deadline_expired;
    ctx->deadline_timer.data = r;
    ctx->deadline_timer.log = r->connection->log;
    ngx_add_timer(&ctx->deadline_timer, left > 0 ? left : 0);
}


/* A late answer arrived: true when the deadline already answered, and the
 * request it held is released; else the deadline is off. */
bool
ngx_http_kube_deadline_answered(ngx_http_request_t *r)
{
    ngx_http_kube_ctx_t  *ctx;

    ctx = ngx_http_kube_find_ctx(r);
    if (ctx == NULL) {
        return false;
    }

    if (ctx->deadline_timer.timer_set) {
        ngx_del_timer(&ctx->deadline_timer);
    }

    if (!ctx->timed_out) {
        return false;
    }

    ngx_http_finalize_request(r, NGX_DONE);
    return true;
}
