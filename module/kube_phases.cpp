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
#include "authz/abac.hpp"
#include "authz/authorizer.hpp"
#include "authz/rbac.hpp"
#include "authz/union.hpp"

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


/* The user a verified client certificate names into `creds`; nothing when
 * the connection carries no certificate. */
void
ngx_http_kube_certificate_user(ngx_http_request_t *r,
    kube::authn::RequestCredentials &creds)
{
#if (NGX_HTTP_SSL)
    if (r->connection->ssl == NULL) {
        return;
    }

    SSL *ssl = r->connection->ssl->connection;
    X509 *cert = SSL_get1_peer_certificate(ssl);
    if (cert == NULL) {
        return;
    }

    long verified = SSL_get_verify_result(ssl);
    if (verified == X509_V_OK) {
        creds.certificateUser = kube::authn::userFromCertificate(cert);
        if (!creds.certificateUser->authenticated()) {
            creds.certificateUser.reset();
            creds.certificateError = "x509: subject with cn=\"\" is not allowed";
        }

    } else {
        creds.certificateError = std::string("verifying certificate failed: ")
                                 + X509_verify_cert_error_string(verified);
    }

    X509_free(cert);
#endif
}


/* What the authenticators said, applied to the request: the user, the
 * anonymous user, or a 401 (NGX_DONE once the Status is on its way). */
ngx_int_t
ngx_http_kube_authn_verdict(ngx_http_request_t *r, ngx_http_kube_ctx_t *ctx,
    kube::authn::AuthResult &&res)
{
    ngx_http_kube_loc_conf_t  *klcf;

    ctx->authn_pending = false;

    if (res.ok()) {
        ctx->user = std::move(res.user);
        ctx->authenticated = true;
        return NGX_DECLINED;
    }

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));

    if (res.outcome == kube::authn::AuthResult::Outcome::NotMine
        && klcf->anonymous_auth)
    {
        ctx->user = kube::authn::anonymousUser();
        ctx->authenticated = true;
        return NGX_DECLINED;
    }

    if (res.outcome == kube::authn::AuthResult::Outcome::Failed) {
        ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                      "kube-apiserver: unable to authenticate the request "
                      "to \"%V\": %s", &r->uri, res.error.c_str());
    } else {
        ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                      "kube-apiserver: unauthenticated request to \"%V\"",
                      &r->uri);
    }

    ctx->authn_rejected = true;

    return ngx_http_kube_reject(r, kube::server::HttpResponse::fromStatus(
        kube::meta::Status::unauthorized(), true));
}


/* This worker's authorizers: AlwaysAllow and AlwaysDeny, and the union of
 * each kube_api location's modes (the RBAC authorizer is the server's). */
struct ngx_http_kube_authorizers_t {
    std::unique_ptr<kube::authz::Authorizer>               allow;
    std::unique_ptr<kube::authz::Authorizer>               deny;
    std::vector<std::unique_ptr<kube::authz::Union>>       unions;
};

ngx_http_kube_authorizers_t  *ngx_http_kube_authorizers;


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


/* mirrors filters.WithAuthentication over kube-apiserver's authenticator
 * union (src/authn/authentication.hpp); a bound service-account token may
 * need a store read that completes later, and the phase resumes then */
ngx_int_t
ngx_http_kube_authn_handler(ngx_http_request_t *r)
try {
    ngx_http_kube_ctx_t  *ctx;

    ctx = ngx_http_kube_filtered_ctx(r);
    if (ctx == NULL || ctx->authenticated) {
        return NGX_DECLINED;
    }

    if (ctx->authn_pending) {
        return NGX_AGAIN;
    }

    if (ctx->authn_rejected) {
        return NGX_HTTP_UNAUTHORIZED;
    }

    kube::authn::RequestCredentials creds;
    ngx_http_kube_certificate_user(r, creds);

    if (r->headers_in.authorization) {
        ngx_str_t &v = r->headers_in.authorization->value;
        creds.authorization = std::string_view(
            reinterpret_cast<const char *>(v.data), v.len);
    }

    kube::server::Server *server = ngx_http_kube_server();
    if (server == NULL) {
        return ngx_http_kube_reject(r, kube::server::HttpResponse::fromStatus(
            kube::meta::Status::serviceUnavailable(
                "the API server is not running")));
    }

    struct Pending {
        bool inline_call = true;
        std::optional<kube::authn::AuthResult> result;
    };

    auto pending = std::make_shared<Pending>();
    if (!ctx->alive) {
        ctx->alive = std::make_shared<ngx_http_request_t *>(r);
    }
    std::weak_ptr<ngx_http_request_t *> alive = ctx->alive;

    server->authentication().authenticateRequest(creds,
        [pending, alive](kube::authn::AuthResult &&res)
    {
        if (pending->inline_call) {
            pending->result = std::move(res);
            return;
        }

        auto holder = alive.lock();
        if (!holder || *holder == nullptr) {
            return;     /* the request is gone */
        }

        ngx_http_request_t *req = *holder;
        ngx_connection_t *c = req->connection;
        ngx_http_kube_ctx_t *rctx = ngx_http_kube_get_ctx(req);

        try {
            if (ngx_http_kube_authn_verdict(req, rctx, std::move(res))
                == NGX_DECLINED)
            {
                ngx_http_core_run_phases(req);
            }
        } catch (...) {
            ngx_log_error(NGX_LOG_ALERT, c->log, 0,
                          "kube-apiserver: authentication: unexpected "
                          "exception");
            ngx_http_finalize_request(req, NGX_HTTP_INTERNAL_SERVER_ERROR);
        }

        ngx_http_run_posted_requests(c);
    });

    pending->inline_call = false;

    if (!pending->result) {
        ctx->authn_pending = true;
        return NGX_AGAIN;
    }

    return ngx_http_kube_authn_verdict(r, ctx, std::move(*pending->result));

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

    if (klcf->authorizer == NULL) {
        return ngx_http_kube_internal_error(r,
                                            "authorization without authorizer");
    }

    kube::authz::Attributes attrs =
        kube::authz::attributesOf(ctx->user, ctx->info);
    kube::authz::Result res = klcf->authorizer->authorize(attrs);

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


/* Builds this worker's union of modes for every kube_api location. */
void
ngx_http_kube_authz_init_worker(ngx_cycle_t *cycle,
    kube::server::Server *server)
{
    using kube::authz::Mode;

    ngx_uint_t                  i, j, *modes;
    ngx_http_core_loc_conf_t  **locs;
    ngx_http_kube_loc_conf_t   *klcf;
    ngx_http_kube_main_conf_t  *kmcf;

    kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_http_cycle_get_module_main_conf(cycle,
                                            ngx_http_kube_apiserver_module));

    auto a = std::make_unique<ngx_http_kube_authorizers_t>();
    a->allow = kube::authz::makeAuthorizer(Mode::AlwaysAllow);
    a->deny = kube::authz::makeAuthorizer(Mode::AlwaysDeny);

    locs = static_cast<ngx_http_core_loc_conf_t **>(kmcf->api_locations.elts);

    for (i = 0; i < kmcf->api_locations.nelts; i++) {
        klcf = static_cast<ngx_http_kube_loc_conf_t *>(
            locs[i]->loc_conf[ngx_http_kube_apiserver_module.ctx_index]);

        std::vector<const kube::authz::Authorizer *> chain;
        modes = static_cast<ngx_uint_t *>(klcf->authorization_modes->elts);

        for (j = 0; j < klcf->authorization_modes->nelts; j++) {
            switch (static_cast<Mode>(modes[j])) {
            case Mode::AlwaysAllow:
                chain.push_back(a->allow.get());
                break;
            case Mode::AlwaysDeny:
                chain.push_back(a->deny.get());
                break;
            case Mode::ABAC:
                chain.push_back(klcf->abac);
                break;
            case Mode::RBAC:
                chain.push_back(&server->rbac());
                break;
            }
        }

        a->unions.push_back(std::make_unique<kube::authz::Union>(chain));
        klcf->authorizer = a->unions.back().get();
    }

    ngx_http_kube_authorizers = a.release();
}


void
ngx_http_kube_authz_exit_worker()
{
    delete ngx_http_kube_authorizers;
    ngx_http_kube_authorizers = NULL;
}
