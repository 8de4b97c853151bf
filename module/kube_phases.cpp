/*
 * kube-apiserver's filter chain as nginx phases: authentication and
 * impersonation in PREACCESS, authorization in ACCESS
 * (DefaultBuildHandlerChain's order).
 * Each filter acts only on paths the director claims in a kube_api location,
 * reads the RequestInfo computed once into the request context, and rejects
 * with a Status, never an nginx page.
 */

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "kube_module.hpp"

#include "authn/headers.hpp"
#include "authn/impersonation.hpp"
#include "authn/request_header.hpp"
#include "authn/x509.hpp"
#include "authz/abac.hpp"
#include "authz/authorizer.hpp"
#include "authz/rbac.hpp"
#include "authz/union.hpp"
#include "endpoints/responses.hpp"

namespace {

/* responsewriters.ErrorNegotiated: a refusal in protobuf when the client
 * accepts it (as kubectl does), else indented JSON */
kube::endpoints::HttpResponse
ngx_http_kube_negotiated_status(ngx_http_request_t *r,
    const kube::meta::Status &status)
{
    kube::meta::Status                unmet;
    kube::endpoints::RenderOptions    render;

    auto out = kube::endpoints::negotiateOutput(
        ngx_http_kube_request_header(r, "accept"), {false, true}, &unmet);
    if (out) {
        render.output = *out;
    }
    render.pretty = true;

    return kube::endpoints::statusResponse(status, render);
}


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


/* The request's headers, as nginx received them, less those a filter
 * removed (views into the request's memory). */
std::vector<kube::authn::Header>
ngx_http_kube_request_headers(ngx_http_request_t *r)
{
    ngx_uint_t        i;
    ngx_list_part_t  *part;
    ngx_table_elt_t  *h;

    std::vector<kube::authn::Header> headers;

    for (part = &r->headers_in.headers.part; part; part = part->next) {
        h = static_cast<ngx_table_elt_t *>(part->elts);

        for (i = 0; i < part->nelts; i++) {
            if (h[i].hash == 0) {
                continue;
            }

            headers.emplace_back(
                std::string_view(reinterpret_cast<char *>(h[i].key.data),
                                 h[i].key.len),
                std::string_view(reinterpret_cast<char *>(h[i].value.data),
                                 h[i].value.len));
        }
    }

    return headers;
}


/* Removes the headers `remove` names, as kube deletes the credentials it
 * used: nginx marks a deleted header with a zero hash (its variables and
 * this module skip it); the list itself cannot shrink, as headers_in's
 * known-header pointers point into it. */
template <typename Pred>
void
ngx_http_kube_remove_headers(ngx_http_request_t *r, Pred remove)
{
    ngx_uint_t        i;
    ngx_list_part_t  *part;
    ngx_table_elt_t  *h;

    for (part = &r->headers_in.headers.part; part; part = part->next) {
        h = static_cast<ngx_table_elt_t *>(part->elts);

        for (i = 0; i < part->nelts; i++) {
            if (h[i].hash != 0
                && remove(std::string_view(
                       reinterpret_cast<char *>(h[i].key.data), h[i].key.len)))
            {
                h[i].hash = 0;
            }
        }
    }
}


#if (NGX_HTTP_SSL)

/*
 * What a connection's client certificate proves when a request-header CA is
 * configured: whether it is the authenticating proxy's, and which x509 user
 * it names against the client CAs alone. Worked out on the connection's
 * first request and kept in an SSL ex_data slot: verifying is the costly
 * part, and keep-alive requests and HTTP/2 streams share the answer.
 */
struct ngx_http_kube_cert_verdict_t {
    X509_STORE                            *client_cas = nullptr;
    std::optional<kube::authn::UserInfo>   user;
    std::string                            x509_error;
    bool                                   proxy = false;
    std::string                            proxy_error;
};


void
ngx_http_kube_cert_verdict_free(void *, void *ptr, CRYPTO_EX_DATA *, int, long,
    void *)
{
    delete static_cast<ngx_http_kube_cert_verdict_t *>(ptr);
}


int
ngx_http_kube_cert_verdict_index()
{
    static int index = SSL_get_ex_new_index(0, NULL, NULL, NULL,
                                            ngx_http_kube_cert_verdict_free);
    return index;
}


/* The user a certificate names once `verified`, or why it is refused. */
void
ngx_http_kube_x509_user(X509 *cert, bool verified, const std::string &why,
    std::optional<kube::authn::UserInfo> &user, std::string &error)
{
    if (!verified) {
        error = "verifying certificate failed: " + why;
        return;
    }

    user = kube::authn::userFromCertificate(cert);
    if (!user->authenticated()) {
        user.reset();
        error = "x509: subject with cn=\"\" is not allowed";
    }
}


const ngx_http_kube_cert_verdict_t *
ngx_http_kube_cert_verdict(ngx_http_request_t *r, SSL *ssl, X509 *cert,
    const kube::authn::AuthenticationConfig &config)
{
    int                            index;
    X509_STORE                    *client_cas;
    ngx_http_kube_cert_verdict_t  *v;

    index = ngx_http_kube_cert_verdict_index();
    if (index < 0) {
        return NULL;
    }

    client_cas = ngx_http_kube_client_cas(r);
    v = static_cast<ngx_http_kube_cert_verdict_t *>(SSL_get_ex_data(ssl, index));

    /* the server, hence its CAs, may differ between requests (Host) */
    if (v != NULL && v->client_cas == client_cas) {
        return v;
    }

    auto fresh = std::make_unique<ngx_http_kube_cert_verdict_t>();
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain(ssl);

    fresh->client_cas = client_cas;
    fresh->proxy = kube::authn::proxyCertificateAllowed(
        *config.requestHeader, config.requestHeaderCAs.get(), cert, chain,
        &fresh->proxy_error);

    if (client_cas != NULL) {
        std::string why;
        bool ok = kube::authn::verifyClientCertificate(client_cas, cert, chain,
                                                       &why);
        ngx_http_kube_x509_user(cert, ok, why, fresh->user, fresh->x509_error);
    }

    delete v;
    v = fresh.release();
    SSL_set_ex_data(ssl, index, v);

    return v;
}

#endif


/*
 * Into `creds`: the x509 user a client certificate names and, when a
 * request-header CA is configured, the user an authenticating proxy names
 * in its headers, believed only over a connection whose certificate is the
 * proxy's. Returns false when the verdict has nowhere to be kept (OpenSSL
 * gave no ex_data slot).
 */
bool
ngx_http_kube_connection_credentials(ngx_http_request_t *r,
    const kube::authn::AuthenticationConfig &config,
    kube::authn::RequestCredentials &creds)
{
#if (NGX_HTTP_SSL)
    const ngx_http_kube_cert_verdict_t  *v;

    if (r->connection->ssl == NULL) {
        return true;
    }

    SSL *ssl = r->connection->ssl->connection;
    std::unique_ptr<X509, decltype(&X509_free)> cert(
        SSL_get1_peer_certificate(ssl), X509_free);
    if (cert == NULL) {
        return true;
    }

    if (!config.requestHeader) {
        /* the handshake verified the certificate against what nginx trusts */
        long verified = SSL_get_verify_result(ssl);
        ngx_http_kube_x509_user(cert.get(), verified == X509_V_OK,
                                X509_verify_cert_error_string(verified),
                                creds.certificateUser, creds.certificateError);
        return true;
    }

    v = ngx_http_kube_cert_verdict(r, ssl, cert.get(), config);
    if (v == NULL) {
        return false;
    }

    creds.certificateUser = v->user;
    creds.certificateError = v->x509_error;

    if (!v->proxy) {
        creds.requestHeaderError = v->proxy_error;
        return true;
    }

    creds.requestHeaderUser = kube::authn::userFromRequestHeaders(
        *config.requestHeader, ngx_http_kube_request_headers(r));

    if (creds.requestHeaderUser) {
        ngx_log_debug1(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                       "kube-apiserver: the proxy names user \"%s\"",
                       creds.requestHeaderUser->name.c_str());
    }
#endif

    return true;
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

    return ngx_http_kube_reject(r, ngx_http_kube_negotiated_status(r,
        kube::meta::Status::unauthorized()));
}


/* This worker's authorizers: AlwaysAllow and AlwaysDeny, and the union of
 * each kube_api location's modes (the RBAC authorizer is the server's). */
struct ngx_http_kube_authorizers_t {
    std::unique_ptr<kube::authz::Authorizer>               allow;
    std::unique_ptr<kube::authz::Authorizer>               deny;
    std::vector<std::unique_ptr<kube::authz::Union>>       unions;
};

ngx_http_kube_authorizers_t  *ngx_http_kube_authorizers;


/* The location's authorizer chain; impersonation asks it too. */
kube::authz::Result
ngx_http_kube_authorize(ngx_http_kube_loc_conf_t *klcf,
    const kube::authz::Attributes &attrs)
{
    if (klcf->authorizer == NULL) {
        return {kube::authz::Decision::Deny, "no authorizer"};
    }

    return klcf->authorizer->authorize(attrs);
}


/* responsewriters.Forbidden: kube's message for what `attrs` asked, with
 * the authorizer's reason */
ngx_int_t
ngx_http_kube_forbidden(ngx_http_request_t *r,
    const kube::authz::Attributes &attrs, const std::string &reason)
{
    std::string msg = kube::authz::forbiddenMessage(attrs);
    if (!reason.empty()) {
        msg += ": " + reason;
    }

    kube::meta::GroupResource gr;
    if (attrs.isResourceRequest) {
        gr = {attrs.apiGroup, attrs.resource};
    }

    return ngx_http_kube_reject(r, ngx_http_kube_negotiated_status(r,
        kube::meta::Status::forbidden(gr, attrs.name, msg)));
}


ngx_int_t
ngx_http_kube_internal_error(ngx_http_request_t *r, const char *what)
{
    ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                  "kube-apiserver: %s: unexpected exception", what);

    return ngx_http_kube_reject(r, kube::endpoints::HttpResponse::fromStatus(
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

    kube::server::Server *server = ngx_http_kube_server();
    if (server == NULL) {
        return ngx_http_kube_reject(r, kube::endpoints::HttpResponse::fromStatus(
            kube::meta::Status::serviceUnavailable(
                "the API server is not running")));
    }

    const kube::authn::AuthenticationConfig &config =
        server->authentication().config();

    kube::authn::RequestCredentials creds;
    if (!ngx_http_kube_connection_credentials(r, config, creds)) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (config.requestHeader) {
        /* used or not to be believed, never seen further on */
        const kube::authn::RequestHeaderConfig &rh = *config.requestHeader;
        ngx_http_kube_remove_headers(r, [&rh](std::string_view name) {
            return kube::authn::isRequestHeader(rh, name);
        });
    }

    if (r->headers_in.authorization) {
        ngx_str_t &v = r->headers_in.authorization->value;
        creds.authorization = ngx_http_kube_view(v);
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


/* mirrors filters.WithImpersonation: each Impersonate-* part is authorized
 * (verb impersonate) for the authenticated user, who is then kept as the
 * requestor while the request acts as the user asked for */
ngx_int_t
ngx_http_kube_impersonation_handler(ngx_http_request_t *r)
try {
    ngx_http_kube_ctx_t       *ctx;
    ngx_http_kube_loc_conf_t  *klcf;

    ctx = ngx_http_kube_filtered_ctx(r);
    if (ctx == NULL || !ctx->authenticated || ctx->impersonation_checked) {
        return NGX_DECLINED;
    }

    ctx->impersonation_checked = true;

    kube::authn::ImpersonationParse parse =
        kube::authn::parseImpersonation(ngx_http_kube_request_headers(r));

    if (parse.error) {
        /* kube answers this in plain text: the same code and words here,
         * as a Status */
        ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                      "kube-apiserver: impersonation: %s",
                      parse.error->c_str());

        kube::meta::Status status = kube::meta::Status::internalError(
            *parse.error);
        status.message = "Internal Server Error: \""
                         + std::string(reinterpret_cast<char *>(
                                           r->unparsed_uri.data),
                                       r->unparsed_uri.len)
                         + "\": " + *parse.error;
        status.details.reset();

        return ngx_http_kube_reject(r,
            kube::endpoints::HttpResponse::fromStatus(status, true));
    }

    if (parse.requests.empty()) {
        return NGX_DECLINED;
    }

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));

    for (const kube::authn::ImpersonationRequest &part : parse.requests) {
        kube::authz::Attributes attrs =
            kube::authn::impersonationAttributes(ctx->user, part);
        kube::authz::Result res = ngx_http_kube_authorize(klcf, attrs);

        if (res.decision != kube::authz::Decision::Allow) {
            ngx_log_error(NGX_LOG_INFO, r->connection->log, 0,
                          "kube-apiserver: \"%s\" may not impersonate "
                          "%s \"%s\"", ctx->user.name.c_str(),
                          attrs.resource.c_str(), part.name.c_str());
            return ngx_http_kube_forbidden(r, attrs, res.reason);
        }
    }

    ctx->requestor = std::move(ctx->user);
    ctx->user = kube::authn::impersonatedUser(parse.requests);
    ngx_http_kube_audit_impersonated(r, ctx->user);

    ngx_log_debug2(NGX_LOG_DEBUG_HTTP, r->connection->log, 0,
                   "kube-apiserver: \"%s\" is acting as \"%s\"",
                   ctx->requestor->name.c_str(), ctx->user.name.c_str());

    ngx_http_kube_remove_headers(r, kube::authn::isImpersonationHeader);

    return NGX_DECLINED;

} catch (...) {
    return ngx_http_kube_internal_error(r, "impersonation");
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

    return ngx_http_kube_reject(r, ngx_http_kube_negotiated_status(r,
        kube::meta::Status::forbidden(
            gr, info.isResourceRequest ? info.name : "", msg)));

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

    bool escalation_checks = false;

    auto a = std::make_unique<ngx_http_kube_authorizers_t>();
    a->allow = kube::authz::makeAuthorizer(Mode::AlwaysAllow);
    a->deny = kube::authz::makeAuthorizer(Mode::AlwaysDeny);

    locs = static_cast<ngx_http_core_loc_conf_t **>(kmcf->api_locations.elts);

    for (i = 0; i < kmcf->api_locations.nelts; i++) {
        klcf = static_cast<ngx_http_kube_loc_conf_t *>(
            locs[i]->loc_conf[ngx_http_kube_apiserver_module.ctx_index]);

        std::vector<const kube::authz::Authorizer *> chain;
        bool rbac = false;
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
                rbac = true;
                break;
            }
        }

        a->unions.push_back(std::make_unique<kube::authz::Union>(chain));
        klcf->authorizer = a->unions.back().get();

        /* kube wraps the RBAC kinds' storage with escalation checks when
         * RBAC is an authorization mode; the first such location's chain
         * answers their escalate and bind checks */
        if (rbac && !escalation_checks) {
            server->enableEscalationChecks(*klcf->authorizer,
                                           server->rbac().index());
            escalation_checks = true;
        }
    }

    ngx_http_kube_authorizers = a.release();
}


void
ngx_http_kube_authz_exit_worker()
{
    delete ngx_http_kube_authorizers;
    ngx_http_kube_authorizers = NULL;
}
