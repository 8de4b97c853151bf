/*
 * Every error answer on an API path is a Kubernetes Status, including the
 * ones nginx gives itself. Two ways lead here:
 *
 *   - kube_status, the content handler of an error_page location
 *     ("error_page 400 ... @kube_status; location @kube_status {
 *     kube_status; }"): it answers the error that led there (r->err_status),
 *     and covers what nginx rejects before any location is chosen (a bad
 *     request line or header, a URI over large_client_header_buffers), with
 *     the server's error_page;
 *   - without it, these filters replace the error page nginx sends for a
 *     request of a kube_api location (a body over
 *     kube_max_request_body_size, an internal error) with the same Status.
 */

#include "kube_module.hpp"

namespace {

ngx_http_output_header_filter_pt  ngx_http_next_header_filter;
ngx_http_output_body_filter_pt    ngx_http_next_body_filter;
ngx_http_request_body_filter_pt   ngx_http_next_request_body_filter;


/* What nginx allows in a request line or header: a large header buffer. */
size_t
ngx_http_kube_line_limit(ngx_http_request_t *r)
{
    ngx_http_core_srv_conf_t  *cscf;

    cscf = static_cast<ngx_http_core_srv_conf_t *>(
        ngx_http_get_module_srv_conf(r, ngx_http_core_module));

    return cscf->large_client_header_buffers.size;
}


/*
 * The Status for an error nginx raised; `klcf` is the kube_api location's
 * configuration (its limits), `limit` what nginx allows in a request line.
 * nginx's own codes 494-497 are 400s on the wire, and error_page turns
 * them into 400 before kube_status sees them; kube-apiserver, a Go server,
 * answers such requests 400 too (in plain text: Go's wording is kept where
 * the case can still be told). A URI over the limit has no kube equivalent
 * (Go takes 1 MB of headers): it is a BadRequest with nginx's 414.
 */
kube::meta::Status
ngx_http_kube_status_for(ngx_uint_t code, ngx_http_kube_loc_conf_t *klcf,
    size_t limit)
{
    using kube::meta::Status;

    switch (code) {
    case NGX_HTTP_BAD_REQUEST:
        return Status::badRequest("Bad Request: the request could not be "
                                  "parsed");
    case NGX_HTTP_TO_HTTPS:
        return Status::badRequest("Client sent an HTTP request to an HTTPS "
                                  "server.");
    case NGX_HTTP_REQUEST_URI_TOO_LARGE: {
        Status s = Status::badRequest("Request URI too long: limit is "
                                      + std::to_string(limit));
        s.code = NGX_HTTP_REQUEST_URI_TOO_LARGE;
        return s;
    }
    case NGX_HTTP_LENGTH_REQUIRED:
    case NGX_HTTP_NOT_IMPLEMENTED:
    case NGX_HTTP_VERSION_NOT_SUPPORTED: {
        /* a body of no stated length, a Transfer-Encoding nginx does not
         * know, a protocol other than HTTP/1.x: the client's fault */
        Status s = Status::badRequest(
            code == NGX_HTTP_LENGTH_REQUIRED ? "Length Required"
            : code == NGX_HTTP_NOT_IMPLEMENTED
                ? "Unsupported transfer encoding"
                : "HTTP Version Not Supported");
        s.code = static_cast<int>(code);
        return s;
    }
    case NGX_HTTP_REQUEST_ENTITY_TOO_LARGE:
        return Status::requestEntityTooLarge(
            "Request entity too large: limit is "
            + std::to_string(klcf->max_body_size));
    case NGX_HTTP_REQUEST_TIME_OUT: {
        /* kube-apiserver's request timeout: 504, never 408 */
        Status s = Status::timeout("Timeout: request did not complete within "
                                   "the allotted timeout");
        s.details = kube::meta::StatusDetails{};
        return s;
    }
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

    ctx->substitute = ngx_http_kube_status_for(r->headers_out.status, klcf,
        ngx_http_kube_line_limit(r)).toJson();
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

    if (r->headers_out.status == NGX_HTTP_TOO_MANY_REQUESTS) {
        ngx_table_elt_t *h = static_cast<ngx_table_elt_t *>(
            ngx_list_push(&r->headers_out.headers));
        if (h == NULL) {
            return NGX_ERROR;
        }
        h->hash = 1;
        ngx_str_set(&h->key, "Retry-After");
        ngx_str_set(&h->value, "1");
    }

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


/*
 * kube_max_request_body_size for a body of any length (chunked, HTTP/2
 * DATA frames): counted as it is read, once the request is authenticated.
 * A Content-Length over the limit is refused before reading
 * (kube_content.cpp).
 */
ngx_int_t
ngx_http_kube_request_body_filter(ngx_http_request_t *r, ngx_chain_t *in)
{
    ngx_chain_t          *cl;
    ngx_http_kube_ctx_t  *ctx;

    ctx = static_cast<ngx_http_kube_ctx_t *>(
        ngx_http_get_module_ctx(r, ngx_http_kube_apiserver_module));

    if (ctx == NULL || ctx->klcf == NULL) {
        return ngx_http_next_request_body_filter(r, in);
    }

    for (cl = in; cl; cl = cl->next) {
        ctx->body_received += ngx_buf_size(cl->buf);
    }

    if (ctx->body_received > static_cast<off_t>(ctx->klcf->max_body_size)) {
        ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                      "kube-apiserver: the request body is over "
                      "kube_max_request_body_size (%uz bytes)",
                      ctx->klcf->max_body_size);
        return NGX_HTTP_REQUEST_ENTITY_TOO_LARGE;
    }

    return ngx_http_next_request_body_filter(r, in);
}


/*
 * The request's path, raw, as far as nginx parsed it (an error page's
 * redirect has replaced the URI): the request's own, else that of a request
 * line rejected half-way, up to where it was cut; empty when nginx did not
 * get that far.
 */
std::string_view
ngx_http_kube_error_path(ngx_http_request_t *r)
{
    std::string_view  raw;

    if (r->unparsed_uri.len) {
        raw = std::string_view(reinterpret_cast<char *>(r->unparsed_uri.data),
                               r->unparsed_uri.len);

    } else if (r->uri_start && r->uri_end > r->uri_start) {
        raw = std::string_view(reinterpret_cast<char *>(r->uri_start),
                               r->uri_end - r->uri_start);

    } else if (r->uri_start && r->header_in
               && r->uri_start >= r->header_in->start
               && r->uri_start < r->header_in->last)
    {
        /* a URI too long to finish: what of it was read */
        raw = std::string_view(reinterpret_cast<char *>(r->uri_start),
                               r->header_in->last - r->uri_start);
        raw = raw.substr(0, raw.find_first_of(" \r\n"));
    }

    return raw.substr(0, raw.find('?'));
}


/*
 * Why nginx's 400 was about the Authorization header, or NULL: one sent
 * twice (nginx refuses a repeated unique header), or one over
 * large_client_header_buffers (494, a 400 once error_page has it: the line
 * nginx gave up on is the last one in its buffer, unfinished). Such
 * credentials are not to be believed: the issue wants them a 401.
 */
const char *
ngx_http_kube_bad_authorization(ngx_http_request_t *r)
{
    static const ngx_str_t  name = ngx_string("authorization");

    ngx_uint_t        i, n;
    ngx_list_part_t  *part;
    ngx_table_elt_t  *h;

    n = 0;

    for (part = &r->headers_in.headers.part; part; part = part->next) {
        h = static_cast<ngx_table_elt_t *>(part->elts);

        for (i = 0; i < part->nelts; i++) {
            if (h[i].key.len == name.len
                && ngx_strncasecmp(h[i].key.data, name.data, name.len) == 0
                && ++n > 1)
            {
                return "repeated Authorization header";
            }
        }
    }

    ngx_buf_t *b = r->header_in;
    u_char *p = r->header_name_start;

    if (b == NULL || p == NULL || p < b->start || p >= b->last
        || b->pos != b->end
        || static_cast<size_t>(b->last - p) <= name.len
        || ngx_strncasecmp(p, name.data, name.len) != 0
        || p[name.len] != ':'
        || ngx_strlchr(p, b->last, LF) != NULL)
    {
        return NULL;
    }

    return "Authorization header over large_client_header_buffers";
}

}  // namespace


/*
 * kube_status: answers the error that brought the request to this location
 * (error_page, without "=": r->err_status) as a Status when the request was
 * for the API, or when nginx could not tell what it was for; any other path
 * gets nginx's own page for the error.
 */
ngx_int_t
ngx_http_kube_status_handler(ngx_http_request_t *r)
try {
    ngx_uint_t                 code;
    ngx_http_kube_ctx_t       *ctx;
    ngx_http_kube_loc_conf_t  *klcf;

    code = r->err_status ? r->err_status : NGX_HTTP_NOT_FOUND;

    if (r != r->main || r->header_sent) {
        return NGX_ERROR;
    }

    std::string_view path = ngx_http_kube_error_path(r);

    if (!path.empty()
        && kube::server::routeFor(path) == kube::server::Route::None)
    {
        return code;
    }

    /* the limits are those of the kube_api location the request was in */
    ctx = ngx_http_kube_find_ctx(r);
    klcf = (ctx && ctx->klcf)
           ? ctx->klcf
           : static_cast<ngx_http_kube_loc_conf_t *>(
                 ngx_http_get_module_loc_conf(r,
                                              ngx_http_kube_apiserver_module));

#if (NGX_HTTP_SSL)
    /* what nginx calls 497, seen as error_page hands it on: a 400 */
    if (code == NGX_HTTP_BAD_REQUEST && r->http_connection->ssl
        && r->connection->ssl == NULL)
    {
        code = NGX_HTTP_TO_HTTPS;
    }
#endif

    if (code == NGX_HTTP_BAD_REQUEST) {
        const char *why = ngx_http_kube_bad_authorization(r);
        if (why != NULL) {
            ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                          "kube-apiserver: unable to authenticate the "
                          "request: %s", why);
            code = NGX_HTTP_UNAUTHORIZED;
        }
    }

    kube::meta::Status status =
        ngx_http_kube_status_for(code, klcf, ngx_http_kube_line_limit(r));

    r->err_status = status.code;

    if (ngx_http_discard_request_body(r) != NGX_OK) {
        r->keepalive = 0;
    }

    return ngx_http_kube_send(r,
                              kube::endpoints::HttpResponse::fromStatus(status));

} catch (...) {
    ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                  "kube-apiserver: unexpected exception in kube_status");
    return NGX_ERROR;
}


ngx_int_t
ngx_http_kube_filters_init(ngx_conf_t *cf)
{
    ngx_http_next_header_filter = ngx_http_top_header_filter;
    ngx_http_top_header_filter = ngx_http_kube_header_filter;

    ngx_http_next_body_filter = ngx_http_top_body_filter;
    ngx_http_top_body_filter = ngx_http_kube_body_filter;

    ngx_http_next_request_body_filter = ngx_http_top_request_body_filter;
    ngx_http_top_request_body_filter = ngx_http_kube_request_body_filter;

    return NGX_OK;
}
