/*
 * CORS (kube-apiserver's WithCORS and --cors-allowed-origins): a request
 * whose Origin matches one of kube_cors_allowed_origins' regular
 * expressions gets kube's Access-Control-* headers on whatever answers it,
 * and a preflight OPTIONS is answered 204 before authentication. Other
 * origins get no CORS headers.
 */

#include "kube_module.hpp"

namespace {

struct ngx_http_kube_cors_header_t {
    const char  *name;
    const char  *value;   /* NULL: the request's Origin */
};

/* kube-apiserver's values: WithCORS' defaults, and credentials allowed */
const ngx_http_kube_cors_header_t ngx_http_kube_cors_headers[] = {
    { "Access-Control-Allow-Origin", NULL },
    { "Access-Control-Allow-Methods",
      "POST, GET, OPTIONS, PUT, DELETE, PATCH" },
    { "Access-Control-Allow-Headers",
      "Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, "
      "Authorization, X-Requested-With, If-Modified-Since" },
    { "Access-Control-Expose-Headers", "Date" },
    { "Access-Control-Allow-Credentials", "true" },
};


ngx_int_t
ngx_http_kube_cors_add_header(ngx_http_request_t *r, const char *name,
    ngx_str_t value)
{
    ngx_table_elt_t  *h;

    h = static_cast<ngx_table_elt_t *>(
        ngx_list_push(&r->headers_out.headers));
    if (h == NULL) {
        return NGX_ERROR;
    }

    h->hash = 1;
    h->key.len = ngx_strlen(name);
    h->key.data = (u_char *) name;
    h->value = value;

    return NGX_OK;
}

}  // namespace


/* PREACCESS, before authentication as kube's WithCORS wraps it. */
ngx_int_t
ngx_http_kube_cors_handler(ngx_http_request_t *r)
{
    ngx_int_t                  rc;
    ngx_str_t                  origin, value;
    ngx_table_elt_t           *h;
    ngx_http_kube_ctx_t       *ctx;
    ngx_http_kube_loc_conf_t  *klcf;

    if (r != r->main) {
        return NGX_DECLINED;
    }

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));
    if (!klcf->api || klcf->cors_origins == NULL) {
        return NGX_DECLINED;
    }

    ctx = ngx_http_kube_get_ctx(r);
    if (ctx == NULL || ctx->route == kube::server::Route::None
        || ctx->cors_checked)
    {
        return NGX_DECLINED;
    }

    ctx->cors_checked = true;

    std::string_view o = ngx_http_kube_request_header(r, "origin");
    if (o.empty()) {
        return NGX_DECLINED;
    }

    origin.data = (u_char *) o.data();
    origin.len = o.size();

    if (ngx_regex_exec_array(klcf->cors_origins, &origin, r->connection->log)
        != NGX_OK)
    {
        return NGX_DECLINED;
    }

    for (const auto &ch : ngx_http_kube_cors_headers) {
        if (ch.value == NULL) {
            value = origin;
        } else {
            value.data = (u_char *) ch.value;
            value.len = ngx_strlen(ch.value);
        }

        if (ngx_http_kube_cors_add_header(r, ch.name, value) != NGX_OK) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }
    }

    if (r->method != NGX_HTTP_OPTIONS) {
        return NGX_DECLINED;
    }

    /* the preflight ends here, as kube's does */

    if (ngx_http_discard_request_body(r) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    h = static_cast<ngx_table_elt_t *>(
        ngx_list_push(&r->headers_out.headers));
    if (h == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    h->hash = 1;
    ngx_str_set(&h->key, "Cache-Control");
    ngx_str_set(&h->value, "no-cache, private");

    ctx->response_sent = true;

    r->headers_out.status = NGX_HTTP_NO_CONTENT;
    r->headers_out.content_length_n = -1;
    r->header_only = 1;

    rc = ngx_http_send_header(r);

    ngx_http_finalize_request(r, rc);

    return NGX_DONE;
}


/* kube_cors_allowed_origins <regex> ...: kube-apiserver's
 * --cors-allowed-origins; an Origin matching any of them (anywhere in it,
 * unless anchored) is allowed */
char *
ngx_http_kube_cors_allowed_origins(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
{
    ngx_http_kube_loc_conf_t *klcf =
        static_cast<ngx_http_kube_loc_conf_t *>(conf);

    u_char               errstr[NGX_MAX_CONF_ERRSTR];
    ngx_str_t           *value;
    ngx_uint_t           i;
    ngx_regex_elt_t     *re;
    ngx_regex_compile_t  rc;

    if (klcf->cors_origins != NGX_CONF_UNSET_PTR) {
        return const_cast<char *>("is duplicate");
    }

    klcf->cors_origins = ngx_array_create(cf->pool, cf->args->nelts - 1,
                                          sizeof(ngx_regex_elt_t));
    if (klcf->cors_origins == NULL) {
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    value = static_cast<ngx_str_t *>(cf->args->elts);

    for (i = 1; i < cf->args->nelts; i++) {
        ngx_memzero(&rc, sizeof(ngx_regex_compile_t));

        rc.pattern = value[i];
        rc.pool = cf->pool;
        rc.err.len = NGX_MAX_CONF_ERRSTR;
        rc.err.data = errstr;

        if (ngx_regex_compile(&rc) != NGX_OK) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "%V", &rc.err);
            return static_cast<char *>(NGX_CONF_ERROR);
        }

        re = static_cast<ngx_regex_elt_t *>(
            ngx_array_push(klcf->cors_origins));
        if (re == NULL) {
            return static_cast<char *>(NGX_CONF_ERROR);
        }

        re->regex = rc.regex;
        re->name = value[i].data;
    }

    return NGX_CONF_OK;
}
