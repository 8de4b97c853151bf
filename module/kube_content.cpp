/*
 * The director: a kube_api location's content handler. Paths the server
 * claims (/api, /apis, /version, /healthz, /livez, /readyz) go to the
 * embedded dispatcher; every other path is declined, so that static files,
 * proxy_pass and the rest of nginx keep serving it.
 */

#include "kube_module.hpp"

namespace {

std::string_view
ngx_http_kube_header(const ngx_table_elt_t *h)
{
    return h ? ngx_http_kube_view(h->value) : std::string_view();
}


/* The request's Accept header; 1.22 keeps it only with gzip/dav compiled in,
 * so it is looked up in the header list. */
std::string_view
ngx_http_kube_accept(ngx_http_request_t *r)
{
    return ngx_http_kube_request_header(r, "accept");
}


/* Whether the Connection header asks for an upgrade, as kube's
 * httpstream.IsUpgradeRequest reads it: "upgrade" anywhere in it (1.22
 * keeps no headers_in.connection, so it is looked up in the list). */
bool
ngx_http_kube_upgrade(ngx_http_request_t *r)
{
    std::string_view connection =
        ngx_http_kube_request_header(r, "connection");
    static constexpr std::string_view token = "upgrade";

    if (connection.size() < token.size()) {
        return false;
    }

    for (size_t i = 0; i + token.size() <= connection.size(); i++) {
        if (ngx_strncasecmp((u_char *) connection.data() + i,
                            (u_char *) token.data(), token.size())
            == 0)
        {
            return true;
        }
    }

    return false;
}


/* The body nginx read, as one contiguous string (parts may be in a file). */
bool
ngx_http_kube_read_body(ngx_http_request_t *r, std::string &body)
{
    ssize_t       n;
    ngx_buf_t    *b;
    ngx_chain_t  *cl;

    if (r->request_body == NULL) {
        return true;
    }

    for (cl = r->request_body->bufs; cl; cl = cl->next) {
        b = cl->buf;

        if (!b->in_file) {
            body.append(reinterpret_cast<char *>(b->pos), b->last - b->pos);
            continue;
        }

        size_t size = b->file_last - b->file_pos;
        size_t start = body.size();
        body.resize(start + size);
        n = ngx_read_file(b->file, reinterpret_cast<u_char *>(&body[start]),
                          size, b->file_pos);
        if (n != static_cast<ssize_t>(size)) {
            return false;
        }
    }

    return true;
}


/* Hands the request to the dispatcher. Returns what the caller passes to
 * nginx: the answer's rc when it came inline, NGX_DONE when it will come
 * later (the caller then holds a request reference for it). */
ngx_int_t
ngx_http_kube_dispatch(ngx_http_request_t *r, ngx_http_kube_ctx_t *ctx,
    std::shared_ptr<std::string> body, bool *async)
{
    kube::server::Server *server = ngx_http_kube_server();

    ngx_http_kube_metrics_start(r, ctx);

    if (server == NULL) {
        return ngx_http_kube_send(r, kube::endpoints::HttpResponse::fromStatus(
            kube::meta::Status::serviceUnavailable(
                "the API server is not running")));
    }

    kube::endpoints::HttpRequest req;
    req.method = ngx_http_kube_view(r->method_name);
    req.path = ngx_http_kube_view(r->uri);
    req.query = ngx_http_kube_view(r->args);
    req.accept = ngx_http_kube_accept(r);
    req.contentType = ngx_http_kube_header(r->headers_in.content_type);
    req.userAgent = ngx_http_kube_header(r->headers_in.user_agent);
    req.host = ngx_http_kube_header(r->headers_in.host);
    req.ifNoneMatch = ngx_http_kube_header(r->headers_in.if_none_match);
    req.upgrade = ngx_http_kube_upgrade(r);
    req.body = *body;
    req.info = &ctx->info;
    req.user = &ctx->user;
    /* the reviews (SubjectAccessReview...) ask the location's authorizer */
    req.authorizer = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module))
        ->authorizer;

    /* the answer may come during serve() or later from the loop */
    struct Pending {
        bool inline_call = true;
        bool answered = false;
        kube::endpoints::HttpResponse resp;
    };

    auto pending = std::make_shared<Pending>();
    ctx->alive = std::make_shared<ngx_http_request_t *>(r);
    std::weak_ptr<ngx_http_request_t *> alive = ctx->alive;

    server->serve(req, [pending, alive, body](
                           kube::endpoints::HttpResponse &&resp)
    {
        if (pending->inline_call) {
            pending->answered = true;
            pending->resp = std::move(resp);
            return;
        }

        auto holder = alive.lock();
        if (!holder || *holder == NULL) {
            return;   /* the request is gone; nobody to answer */
        }

        ngx_http_request_t *req = *holder;
        ngx_connection_t *c = req->connection;

        try {
            if (ngx_http_kube_deadline_answered(req)) {
                /* too late: the 504 went out */
                ngx_http_run_posted_requests(c);
                return;
            }

            ngx_http_finalize_request(req, ngx_http_kube_send(req, resp));
        } catch (...) {
            ngx_log_error(NGX_LOG_ALERT, c->log, 0,
                          "kube-apiserver: unexpected exception "
                          "while answering");
            ngx_http_kube_audit_panic(req, "unexpected exception while "
                                           "answering");
            ngx_http_finalize_request(req, NGX_HTTP_INTERNAL_SERVER_ERROR);
        }

        ngx_http_run_posted_requests(c);
    });

    pending->inline_call = false;

    if (pending->answered) {
        *async = false;
        return ngx_http_kube_send(r, pending->resp);
    }

    *async = true;
    ngx_http_kube_deadline_start(r, ctx);
    return NGX_DONE;
}


void
ngx_http_kube_body_handler(ngx_http_request_t *r)
{
    bool                  async = false;
    ngx_int_t             rc;
    ngx_http_kube_ctx_t  *ctx;

    ctx = static_cast<ngx_http_kube_ctx_t *>(
        ngx_http_get_module_ctx(r, ngx_http_kube_apiserver_module));

    if (ctx && ctx->body_timed_out) {
        /* the deadline's answer went out and released the body reader's
         * reference; what came after it is ignored */
        return;
    }

    if (ctx && ctx->body_timer.timer_set) {
        ngx_del_timer(&ctx->body_timer);
    }

    try {
        auto body = std::make_shared<std::string>();

        if (ctx == NULL) {
            rc = NGX_HTTP_INTERNAL_SERVER_ERROR;

        } else if (!ngx_http_kube_read_body(r, *body)) {
            rc = ngx_http_kube_send(r, kube::endpoints::HttpResponse::fromStatus(
                kube::meta::Status::internalError("reading the request body")));

        } else {
            ngx_http_kube_audit_request_body(r, *body);
            rc = ngx_http_kube_dispatch(r, ctx, body, &async);
        }

    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "kube-apiserver: unexpected exception in the dispatcher");
        ngx_http_kube_audit_panic(r, "unexpected exception in the dispatcher");
        rc = NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    /* asynchronous: the body reader's reference is released by the answer */
    if (!async) {
        ngx_http_finalize_request(r, rc);
    }
}


/*
 * kube_request_body_timeout: the whole body must arrive within the deadline
 * (client_body_timeout only bounds the wait for each read, so a body sent a
 * byte at a time would hold its connection forever). On expiry the answer
 * is kube-apiserver's request timeout, and the connection is closed rather
 * than kept alive or lingering over the unread rest of the body.
 */
void
ngx_http_kube_body_timeout_handler(ngx_event_t *ev)
{
    ngx_int_t                  rc;
    ngx_connection_t          *c;
    ngx_http_request_t        *r;
    ngx_http_kube_ctx_t       *ctx;
    ngx_http_kube_loc_conf_t  *klcf;

    r = static_cast<ngx_http_request_t *>(ev->data);
    c = r->connection;

    ctx = static_cast<ngx_http_kube_ctx_t *>(
        ngx_http_get_module_ctx(r, ngx_http_kube_apiserver_module));
    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));

    ngx_log_error(NGX_LOG_INFO, c->log, 0,
                  "kube-apiserver: the request body was not received "
                  "within kube_request_body_timeout (%M ms)",
                  klcf->request_body_timeout);

    ctx->body_timed_out = true;

    r->read_event_handler = ngx_http_block_reading;
    r->keepalive = 0;
    r->lingering_close = 0;

#if (NGX_HTTP_V2)
    if (r->stream == NULL)
#endif
    {
        r->reading_body = 0;
    }

    if (c->read->timer_set) {
        ngx_del_timer(c->read);
    }

    try {
        kube::meta::Status s = kube::meta::Status::timeout(
            "Timeout: request did not complete within the allotted timeout");
        s.details = kube::meta::StatusDetails{};
        rc = ngx_http_kube_send(r, kube::endpoints::HttpResponse::fromStatus(s));

    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, c->log, 0,
                      "kube-apiserver: unexpected exception in the request "
                      "body deadline");
        rc = NGX_ERROR;
    }

    ngx_http_finalize_request(r, rc);
    ngx_http_run_posted_requests(c);
}

}  // namespace


ngx_int_t
ngx_http_kube_content_handler(ngx_http_request_t *r)
try {
    bool                       async = false;
    ngx_int_t                  rc;
    ngx_http_kube_ctx_t       *ctx;
    ngx_http_kube_loc_conf_t  *klcf;

    if (r != r->main) {
        return NGX_DECLINED;
    }

    ctx = ngx_http_kube_get_ctx(r);
    if (ctx == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (ctx->route == kube::server::Route::None) {
        return NGX_DECLINED;
    }

    if (!ctx->authenticated) {
        /* the filters did not run: this location was entered by a redirect
         * that skipped them; refuse rather than serve unauthenticated */
        return ngx_http_kube_send(r, kube::endpoints::HttpResponse::fromStatus(
            kube::meta::Status::unauthorized(), true));
    }

    if (r->method
        & (NGX_HTTP_POST|NGX_HTTP_PUT|NGX_HTTP_PATCH|NGX_HTTP_DELETE))
    {
        klcf = static_cast<ngx_http_kube_loc_conf_t *>(
            ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));

        if (r->headers_in.content_length_n
            > static_cast<off_t>(klcf->max_body_size))
        {
            if (ngx_http_discard_request_body(r) != NGX_OK) {
                return NGX_HTTP_INTERNAL_SERVER_ERROR;
            }
            return ngx_http_kube_send(r, kube::endpoints::HttpResponse::fromStatus(
                kube::meta::Status::requestEntityTooLarge(
                    "Request entity too large: limit is "
                    + std::to_string(klcf->max_body_size))));
        }

        ctx->body_timer.handler = ngx_http_kube_body_timeout_handler;
        ctx->body_timer.data = r;
        ctx->body_timer.log = r->connection->log;
        ngx_add_timer(&ctx->body_timer, klcf->request_body_timeout);

        rc = ngx_http_read_client_request_body(r, ngx_http_kube_body_handler);
        if (rc >= NGX_HTTP_SPECIAL_RESPONSE) {
            if (ctx->body_timer.timer_set) {
                ngx_del_timer(&ctx->body_timer);
            }
            return rc;
        }

        return NGX_DONE;
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    rc = ngx_http_kube_dispatch(r, ctx, std::make_shared<std::string>(),
                                &async);

    if (async) {
        r->main->count++;
    }

    return rc;

} catch (...) {
    ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                  "kube-apiserver: unexpected exception in the content "
                  "handler");
    ngx_http_kube_audit_panic(r, "unexpected exception in the content "
                                 "handler");
    return NGX_HTTP_INTERNAL_SERVER_ERROR;
}


/* The first value of request header `name`, matched case-insensitively, as
 * Go's Header.Get gives it; empty when absent. */
std::string_view
ngx_http_kube_request_header(ngx_http_request_t *r, std::string_view name)
{
    ngx_uint_t        i;
    ngx_list_part_t  *part;
    ngx_table_elt_t  *h;

    part = &r->headers_in.headers.part;
    h = static_cast<ngx_table_elt_t *>(part->elts);

    for (i = 0; /* void */; i++) {

        if (i >= part->nelts) {
            if (part->next == NULL) {
                break;
            }
            part = part->next;
            h = static_cast<ngx_table_elt_t *>(part->elts);
            i = 0;
        }

        if (h[i].hash != 0
            && h[i].key.len == name.size()
            && ngx_strncasecmp(h[i].key.data, (u_char *) name.data(),
                               name.size()) == 0)
        {
            return ngx_http_kube_view(h[i].value);
        }
    }

    return {};
}
