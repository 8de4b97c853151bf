/*
 * kube-apiserver's filter chain as nginx phases: authentication in
 * PREACCESS, authorization in ACCESS (DefaultBuildHandlerChain's order).
 * Each filter acts only on paths the director claims in a kube_api location,
 * reads the RequestInfo computed once into the request context, and rejects
 * with a Status, never an nginx page.
 */

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "kube_module.hpp"

#include "authn/x509.hpp"
#include "authz/authorizer.hpp"

namespace {

/* The context of a request the kube filters apply to, or NULL. */
ngx_http_kube_ctx_t *
ngx_http_kube_filtered_ctx(ngx_http_request_t *r)
{
    ngx_http_kube_loc_conf_t  *klcf;
    ngx_http_kube_ctx_t       *ctx;

    if (r != r->main) {
        return NULL;
    }

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));
    if (!klcf->api) {
        return NULL;
    }

    ctx = ngx_http_kube_get_ctx(r);
    if (ctx == NULL || ctx->route == kube::server::Route::None) {
        return NULL;
    }

    return ctx;
}


/* The user a verified client certificate names; an empty user when the
 * connection carries no certificate; nullopt for one that failed. */
std::optional<kube::authn::UserInfo>
ngx_http_kube_certificate_user(ngx_http_request_t *r)
{
#if (NGX_HTTP_SSL)
    if (r->connection->ssl == NULL) {
        return kube::authn::UserInfo{};
    }

    SSL *ssl = r->connection->ssl->connection;
    X509 *cert = SSL_get1_peer_certificate(ssl);
    if (cert == NULL) {
        return kube::authn::UserInfo{};
    }

    std::optional<kube::authn::UserInfo> user;
    if (SSL_get_verify_result(ssl) == X509_V_OK) {
        user = kube::authn::userFromCertificate(cert);
    }

    X509_free(cert);

    if (user && !user->authenticated()) {
        return std::nullopt;
    }

    return user;
#else
    return kube::authn::UserInfo{};
#endif
}


const kube::authz::Authorizer &
ngx_http_kube_authorizer(ngx_uint_t mode)
{
    using kube::authz::Mode;

    static const auto allow = kube::authz::makeAuthorizer(Mode::AlwaysAllow);
    static const auto deny = kube::authz::makeAuthorizer(Mode::AlwaysDeny);

    return mode == NGX_HTTP_KUBE_ALWAYS_DENY ? *deny : *allow;
}


ngx_int_t
ngx_http_kube_internal_error(ngx_http_request_t *r, const char *what)
{
    ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                  "kube-apiserver: %s: unexpected exception", what);

    return ngx_http_kube_reject(r, kube::server::HttpResponse::fromStatus(
        kube::meta::Status::internalError("unexpected error in "
                                          + std::string(what))));
}

}  // namespace


/* mirrors filters.WithAuthentication with the x509 and anonymous
 * authenticators */
ngx_int_t
ngx_http_kube_authn_handler(ngx_http_request_t *r)
try {
    ngx_http_kube_ctx_t       *ctx;
    ngx_http_kube_loc_conf_t  *klcf;

    ctx = ngx_http_kube_filtered_ctx(r);
    if (ctx == NULL) {
        return NGX_DECLINED;
    }

    std::optional<kube::authn::UserInfo> user =
        ngx_http_kube_certificate_user(r);

    if (user && user->authenticated()) {
        ctx->user = std::move(*user);
        ctx->authenticated = true;
        return NGX_DECLINED;
    }

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));

    if (user && klcf->anonymous_auth) {
        ctx->user = kube::authn::anonymousUser();
        ctx->authenticated = true;
        return NGX_DECLINED;
    }

    ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                  "kube-apiserver: unauthenticated request to \"%V\"", &r->uri);

    return ngx_http_kube_reject(r, kube::server::HttpResponse::fromStatus(
        kube::meta::Status::unauthorized(), true));

} catch (...) {
    return ngx_http_kube_internal_error(r, "authentication");
}


/* mirrors filters.WithAuthorization */
ngx_int_t
ngx_http_kube_authz_handler(ngx_http_request_t *r)
try {
    ngx_http_kube_ctx_t       *ctx;
    ngx_http_kube_loc_conf_t  *klcf;

    ctx = ngx_http_kube_filtered_ctx(r);
    if (ctx == NULL) {
        return NGX_DECLINED;
    }

    if (!ctx->authenticated) {
        /* authentication runs first: a request without a user is a bug */
        return ngx_http_kube_internal_error(
            r, "authorization without authentication");
    }

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));

    kube::authz::Attributes attrs =
        kube::authz::attributesOf(ctx->user, ctx->info);
    kube::authz::Result res =
        ngx_http_kube_authorizer(klcf->authorization_mode).authorize(attrs);

    ngx_http_kube_audit_authorized(
        r, res.decision == kube::authz::Decision::Allow, res.reason);

    if (res.decision == kube::authz::Decision::Allow) {
        return NGX_OK;
    }

    std::string msg = kube::authz::forbiddenMessage(attrs);
    if (!res.reason.empty()) {
        msg += ": " + res.reason;
    }

    const kube::endpoints::RequestInfo &info = ctx->info;
    kube::meta::GroupResource gr;
    if (info.isResourceRequest) {
        gr = {info.apiGroup, info.resource};
    }

    return ngx_http_kube_reject(r, kube::server::HttpResponse::fromStatus(
        kube::meta::Status::forbidden(
            gr, info.isResourceRequest ? info.name : "", msg),
        true));

} catch (...) {
    return ngx_http_kube_internal_error(r, "authorization");
}
