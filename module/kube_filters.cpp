/*
 * Every error answer on an API path is a Kubernetes Status: when nginx
 * itself answers such a request with an error page (a body over
 * kube_max_request_body_size, a body read timeout, an internal error), these
 * filters replace the page with the Status kube-apiserver would send.
 */

#include "kube_module.hpp"

namespace {

ngx_http_output_header_filter_pt  ngx_http_next_header_filter;
ngx_http_output_body_filter_pt    ngx_http_next_body_filter;


kube::meta::Status
ngx_http_kube_status_for(ngx_http_request_t *r, ngx_uint_t code)
{
    using kube::meta::Status;

    ngx_http_kube_loc_conf_t *klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));

    switch (code) {
    case NGX_HTTP_REQUEST_ENTITY_TOO_LARGE:
        return Status::requestEntityTooLarge(
            "Request entity too large: limit is "
            + std::to_string(klcf->max_body_size));
    case NGX_HTTP_REQUEST_TIME_OUT:
        return Status::timeout("the request body was not received in time");
    case NGX_HTTP_UNAUTHORIZED:
        return Status::unauthorized();
    case NGX_HTTP_NOT_FOUND:
        return Status::notFoundGeneric();
    case NGX_HTTP_NOT_ALLOWED:
        return Status::methodNotSupported();
    case NGX_HTTP_SERVICE_UNAVAILABLE:
        return Status::serviceUnavailable(
            "the server is currently unable to handle the request");
    case NGX_HTTP_TOO_MANY_REQUESTS:
        return Status::tooManyRequests(
            "Too many requests, please try again later.", 1);
    default:
        break;
    }

    if (code >= 500) {
        Status s = Status::internalError("an error on the server has "
                                         "prevented the request "
                                         "from succeeding (HTTP "
                                         + std::to_string(code) + ")");
        s.code = static_cast<int>(code);
        return s;
    }

    Status s = Status::badRequest("the server rejected the request (HTTP "
                                  + std::to_string(code) + ")");
    s.code = static_cast<int>(code);
    return s;
}


ngx_int_t
ngx_http_kube_header_filter(ngx_http_request_t *r)
try {
    ngx_http_kube_ctx_t       *ctx;
    ngx_http_kube_loc_conf_t  *klcf;

    if (r != r->main || r->headers_out.status < NGX_HTTP_BAD_REQUEST) {
        return ngx_http_next_header_filter(r);
    }

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));
    if (klcf == NULL || !klcf->api) {
        return ngx_http_next_header_filter(r);
    }

    ctx = ngx_http_kube_get_ctx(r);
    if (ctx == NULL
        || ctx->route == kube::server::Route::None
        || ctx->response_sent)
    {
        return ngx_http_next_header_filter(r);
    }

    ctx->substitute =
        ngx_http_kube_status_for(r, r->headers_out.status).toJson();
    ctx->substituting = true;

    r->headers_out.content_length_n = ctx->substitute.size();
    if (r->headers_out.content_length) {
        r->headers_out.content_length->hash = 0;
        r->headers_out.content_length = NULL;
    }

    ngx_str_set(&r->headers_out.content_type, "application/json");
    r->headers_out.content_type_len = r->headers_out.content_type.len;
    r->headers_out.content_type_lowcase = NULL;
    r->headers_out.charset.len = 0;

    return ngx_http_next_header_filter(r);

} catch (...) {
    return NGX_ERROR;
}


ngx_int_t
ngx_http_kube_body_filter(ngx_http_request_t *r, ngx_chain_t *in)
{
    ngx_buf_t            *b;
    ngx_chain_t          *cl, out;
    ngx_http_kube_ctx_t  *ctx;

    ctx = static_cast<ngx_http_kube_ctx_t *>(
        ngx_http_get_module_ctx(r, ngx_http_kube_apiserver_module));

    if (ctx == NULL || !ctx->substituting || in == NULL) {
        return ngx_http_next_body_filter(r, in);
    }

    /* the error page's own buffers are consumed unsent */
    for (cl = in; cl; cl = cl->next) {
        cl->buf->pos = cl->buf->last;
        cl->buf->file_pos = cl->buf->file_last;
    }

    if (ctx->substitute_sent) {
        return NGX_OK;
    }

    ctx->substitute_sent = true;

    b = static_cast<ngx_buf_t *>(ngx_calloc_buf(r->pool));
    if (b == NULL) {
        return NGX_ERROR;
    }

    b->pos = reinterpret_cast<u_char *>(ctx->substitute.data());
    b->last = b->pos + ctx->substitute.size();
    b->memory = 1;
    b->last_buf = 1;
    b->last_in_chain = 1;

    out.buf = b;
    out.next = NULL;

    return ngx_http_next_body_filter(r, &out);
}

}  // namespace


ngx_int_t
ngx_http_kube_filters_init(ngx_conf_t *cf)
{
    ngx_http_next_header_filter = ngx_http_top_header_filter;
    ngx_http_top_header_filter = ngx_http_kube_header_filter;

    ngx_http_next_body_filter = ngx_http_top_body_filter;
    ngx_http_top_body_filter = ngx_http_kube_body_filter;

    return NGX_OK;
}
