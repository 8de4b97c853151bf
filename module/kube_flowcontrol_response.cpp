/*
 * What flow control adds to an answer: the X-Kubernetes-PF-* headers of
 * what classified the request, and kube's 429 when it is not served.
 */

#include "kube_flowcontrol.hpp"

#include "flowcontrol/max_in_flight.hpp"

namespace {

ngx_int_t
ngx_http_kube_fc_add_header(ngx_http_request_t *r, const char *name,
    const ngx_str_t &value)
{
    ngx_table_elt_t  *h;

    if (value.len == 0) {
        return NGX_OK;
    }

    h = static_cast<ngx_table_elt_t *>(ngx_list_push(&r->headers_out.headers));
    if (h == NULL) {
        return NGX_ERROR;
    }

    h->hash = 1;
    h->key.len = ngx_strlen(name);
    h->key.data = reinterpret_cast<u_char *>(const_cast<char *>(name));
    h->value = value;

    return NGX_OK;
}

}  // namespace


/* setResponseHeaders: the UIDs, not the names, of what classified it */
ngx_int_t
ngx_http_kube_fc_set_headers(ngx_http_request_t *r,
    ngx_http_kube_fc_request_t *fc)
{
    if (fc->headers_set) {
        return NGX_OK;
    }

    fc->headers_set = true;

    if (ngx_http_kube_fc_add_header(r, "X-Kubernetes-PF-PriorityLevel-UID",
                                    fc->priority_level_uid)
        != NGX_OK
        || ngx_http_kube_fc_add_header(r, "X-Kubernetes-PF-FlowSchema-UID",
                                       fc->flow_schema_uid)
           != NGX_OK)
    {
        return NGX_ERROR;
    }

    return NGX_OK;
}


/* tooManyRequests: 429 with Retry-After 1, as a Status */
ngx_int_t
ngx_http_kube_fc_too_many(ngx_http_request_t *r, ngx_http_kube_fc_request_t *fc)
{
    if (ngx_http_kube_fc_set_headers(r, fc) != NGX_OK) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ngx_http_kube_metrics_rejected(r);

    return ngx_http_kube_reject(r, kube::endpoints::HttpResponse::fromStatus(
        kube::meta::Status::tooManyRequests(
            std::string(kube::flowcontrol::kTooManyRequestsMessage),
            kube::flowcontrol::kRetryAfterSeconds),
        true));
}
