/*
 * The per-request context and the two ways an answer leaves the module:
 * ngx_http_kube_send() from a content handler or an asynchronous callback
 * (a streamed answer continues in kube_stream.cpp), ngx_http_kube_reject()
 * from a PREACCESS/ACCESS handler.
 */

#include <new>

#include "kube_module.hpp"

namespace {

void
ngx_http_kube_ctx_cleanup(void *data)
{
    ngx_http_kube_ctx_t *ctx = static_cast<ngx_http_kube_ctx_t *>(data);

    if (ctx->alive) {
        *ctx->alive = nullptr;
    }

    if (ctx->body_timer.timer_set) {
        ngx_del_timer(&ctx->body_timer);
    }

    if (ctx->deadline_timer.timer_set) {
        ngx_del_timer(&ctx->deadline_timer);
    }

    ctx->~ngx_http_kube_ctx_t();
}


ngx_int_t
ngx_http_kube_set_header(ngx_http_request_t *r, const std::string &name,
    const std::string &value)
{
    ngx_table_elt_t  *h;

    h = static_cast<ngx_table_elt_t *>(ngx_list_push(&r->headers_out.headers));
    if (h == NULL) {
        return NGX_ERROR;
    }

    h->hash = 1;
    h->key.len = name.size();
    h->key.data = static_cast<u_char *>(ngx_pnalloc(r->pool, name.size()));
    h->value.len = value.size();
    h->value.data = static_cast<u_char *>(
        ngx_pnalloc(r->pool, value.size() + 1));
    if (h->key.data == NULL || h->value.data == NULL) {
        return NGX_ERROR;
    }

    ngx_memcpy(h->key.data, name.data(), name.size());
    ngx_memcpy(h->value.data, value.data(), value.size());
    h->value.data[value.size()] = '\0';

    return NGX_OK;
}


/* The status line and headers of `resp`; the body's length is the caller's. */
ngx_int_t
ngx_http_kube_send_header(ngx_http_request_t *r,
    const kube::endpoints::HttpResponse &resp)
{
    r->headers_out.status = resp.status;

    r->headers_out.content_type.len = resp.contentType.size();
    r->headers_out.content_type.data = static_cast<u_char *>(
        ngx_pnalloc(r->pool, resp.contentType.size()));
    if (r->headers_out.content_type.data == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }
    ngx_memcpy(r->headers_out.content_type.data, resp.contentType.data(),
               resp.contentType.size());
    r->headers_out.content_type_len = resp.contentType.size();
    r->headers_out.content_type_lowcase = NULL;

    bool cacheControl = false;
    for (const auto &[name, value] : resp.headers) {
        cacheControl = cacheControl || name == "Cache-Control";
        if (ngx_http_kube_set_header(r, name, value) != NGX_OK) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }
    }

    /* kube-apiserver's WithCacheControl default */
    if (!cacheControl
        && ngx_http_kube_set_header(r, "Cache-Control", "no-cache, private")
           != NGX_OK)
    {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    return ngx_http_send_header(r);
}

}  // namespace


ngx_http_kube_ctx_t *
ngx_http_kube_get_ctx(ngx_http_request_t *r)
{
    ngx_pool_cleanup_t        *cln;
    ngx_http_kube_ctx_t       *ctx;
    ngx_http_kube_loc_conf_t  *klcf;

    ctx = static_cast<ngx_http_kube_ctx_t *>(
        ngx_http_get_module_ctx(r, ngx_http_kube_apiserver_module));
    if (ctx) {
        return ctx;
    }

    cln = ngx_pool_cleanup_add(r->pool, sizeof(ngx_http_kube_ctx_t));
    if (cln == NULL) {
        return NULL;
    }

    ctx = new (cln->data) ngx_http_kube_ctx_t();
    cln->handler = ngx_http_kube_ctx_cleanup;

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));
    if (klcf->api) {
        ctx->klcf = klcf;
    }

    std::string_view path(reinterpret_cast<char *>(r->uri.data), r->uri.len);
    ctx->route = kube::server::routeFor(path);

    if (ctx->route != kube::server::Route::None) {
        std::string_view method(reinterpret_cast<char *>(r->method_name.data),
                                r->method_name.len);
        std::string_view query(reinterpret_cast<char *>(r->args.data),
                               r->args.len);
        ctx->info = kube::endpoints::resolveRequestInfo(method, path, query);
    }

    ngx_http_set_ctx(r, ctx, ngx_http_kube_apiserver_module);

    return ctx;
}


/* The request's context, or the one it had before an internal redirect or
 * a named location (an error page) cleared the module contexts: it is still
 * in the pool's cleanups, newest first. NULL when there never was one. */
ngx_http_kube_ctx_t *
ngx_http_kube_find_ctx(ngx_http_request_t *r)
{
    ngx_pool_cleanup_t   *cln;
    ngx_http_kube_ctx_t  *ctx;

    ctx = static_cast<ngx_http_kube_ctx_t *>(
        ngx_http_get_module_ctx(r, ngx_http_kube_apiserver_module));
    if (ctx) {
        return ctx;
    }

    for (cln = r->pool->cleanup; cln; cln = cln->next) {
        if (cln->handler == ngx_http_kube_ctx_cleanup) {
            return static_cast<ngx_http_kube_ctx_t *>(cln->data);
        }
    }

    return NULL;
}


ngx_int_t
ngx_http_kube_send(ngx_http_request_t *r,
    const kube::endpoints::HttpResponse &resp)
{
    ngx_int_t             rc;
    ngx_buf_t            *b;
    ngx_chain_t           out;
    ngx_http_kube_ctx_t  *ctx;

    ctx = ngx_http_kube_get_ctx(r);
    if (ctx == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ctx->response_sent = true;

    ngx_http_kube_audit_response(r, resp);

    /* a stream has no length: chunked on HTTP/1.1, DATA frames on h2 */
    r->headers_out.content_length_n = resp.stream ? -1 : resp.body.size();

#if (NGX_HTTP_GZIP)
    if (!resp.compressible) {
        /* the gzip filter takes this as "tested, not acceptable" */
        r->gzip_tested = 1;
        r->gzip_ok = 0;
    }
#endif

    rc = ngx_http_kube_send_header(r, resp);

    if (rc == NGX_ERROR || rc > NGX_OK || r->header_only) {
        return rc;
    }

    if (resp.stream) {
        return ngx_http_kube_stream_start(r, resp.stream);
    }

    b = static_cast<ngx_buf_t *>(ngx_calloc_buf(r->pool));
    if (b == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (!resp.body.empty()) {
        b->start = static_cast<u_char *>(
            ngx_pnalloc(r->pool, resp.body.size()));
        if (b->start == NULL) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }
        ngx_memcpy(b->start, resp.body.data(), resp.body.size());
        b->pos = b->start;
        b->last = b->end = b->start + resp.body.size();
        b->memory = 1;
    }

    b->last_buf = (r == r->main) ? 1 : 0;
    b->last_in_chain = 1;

    out.buf = b;
    out.next = NULL;

    return ngx_http_output_filter(r, &out);
}


ngx_int_t
ngx_http_kube_reject(ngx_http_request_t *r,
    const kube::endpoints::HttpResponse &resp)
{
    /* an unread body would spoil the keep-alive connection */
    if (ngx_http_discard_request_body(r) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_http_finalize_request(r, ngx_http_kube_send(r, resp));

    return NGX_DONE;
}
