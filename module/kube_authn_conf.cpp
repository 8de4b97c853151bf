/*
 * The authentication directives: kube-apiserver's --token-auth-file,
 * --service-account-* flags, --api-audiences, --authentication-config and
 * --requestheader-* flags, read at configuration time in the master (never
 * on a request), checked as kube checks them, and handed to every worker's
 * server as one immutable AuthenticationConfig.
 */

#include <new>

#include "authn/x509.hpp"

#include "kube_module.hpp"

namespace {

void
ngx_http_kube_authn_conf_cleanup(void *data)
{
    static_cast<ngx_http_kube_authn_conf_t *>(data)
        ->~ngx_http_kube_authn_conf_t();
}


std::string
ngx_http_kube_conf_path(ngx_conf_t *cf, ngx_str_t *value)
{
    ngx_str_t  name = *value;

    if (ngx_conf_full_name(cf->cycle, &name, 1) != NGX_OK) {
        return {};
    }

    return std::string(reinterpret_cast<char *>(name.data), name.len);
}


char *
ngx_http_kube_conf_failed(ngx_conf_t *cf, ngx_command_t *cmd,
    const std::string &what)
{
    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "\"%V\": %s", &cmd->name,
                       what.c_str());
    return static_cast<char *>(NGX_CONF_ERROR);
}


ngx_http_kube_authn_conf_t *
ngx_http_kube_authn(void *conf)
{
    return static_cast<ngx_http_kube_main_conf_t *>(conf)->authn;
}

}  // namespace


ngx_int_t
ngx_http_kube_authn_conf_create(ngx_conf_t *cf, ngx_http_kube_main_conf_t *kmcf)
try {
    ngx_pool_cleanup_t  *cln;

    cln = ngx_pool_cleanup_add(cf->pool, sizeof(ngx_http_kube_authn_conf_t));
    if (cln == NULL) {
        return NGX_ERROR;
    }

    kmcf->authn = new (cln->data) ngx_http_kube_authn_conf_t();
    cln->handler = ngx_http_kube_authn_conf_cleanup;

    kmcf->authn->config = std::make_shared<kube::authn::AuthenticationConfig>();
    kmcf->authn->service_accounts =
        std::make_shared<kube::authn::ServiceAccountOptions>();
    kmcf->authn->request_header =
        std::make_shared<kube::authn::RequestHeaderConfig>();

    return NGX_OK;

} catch (const std::exception &e) {
    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "kube-apiserver: %s", e.what());
    return NGX_ERROR;
}


/* kube's checks of the service-account flags together
 * (pkg/controlplane/apiserver/options validation), and the result */
char *
ngx_http_kube_authn_conf_init(ngx_conf_t *cf, ngx_http_kube_main_conf_t *kmcf)
try {
    kube::authn::ServiceAccountOptions &sa = *kmcf->authn->service_accounts;

    if (kmcf->sa_max_expiration != NGX_CONF_UNSET) {
        sa.maxExpiration = std::chrono::seconds(kmcf->sa_max_expiration);
    }
    sa.extendExpiration = kmcf->sa_extend_expiration != 0;

    if (sa.signingKey) {
        if (sa.issuers.empty()) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "\"kube_service_account_signing_key_file\" "
                               "requires \"kube_service_account_issuer\"");
            return static_cast<char *>(NGX_CONF_ERROR);
        }

        /* the signing key verifies what it signs, as kube adds it */
        bool listed = false;
        for (const auto &k : sa.keys) {
            listed = listed || k->kid() == sa.signingKey->kid();
        }
        if (!listed) {
            sa.keys.push_back(sa.signingKey);
        }
    }

    if (!sa.keys.empty() && sa.issuers.empty()) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"kube_service_account_key_file\" requires "
                           "\"kube_service_account_issuer\"");
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    if (sa.maxExpiration.count() > 0 && sa.maxExpiration.count() < 3600) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"kube_service_account_max_token_expiration\" "
                           "must be at least 1h");
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    kmcf->authn->config->serviceAccounts = kmcf->authn->service_accounts;

    /* kube: the request-header flags do nothing without the CA file */
    if (kmcf->authn->config->requestHeaderCAs) {
        kmcf->authn->config->requestHeader = kmcf->authn->request_header;

    } else if (kmcf->authn->request_header_set) {
        ngx_conf_log_error(NGX_LOG_WARN, cf, 0,
                           "\"kube_requestheader_*\" directives have no "
                           "effect without "
                           "\"kube_requestheader_client_ca_file\"");
    }

    return NGX_CONF_OK;

} catch (const std::exception &e) {
    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "kube-apiserver: %s", e.what());
    return static_cast<char *>(NGX_CONF_ERROR);
}


/* kube_token_auth_file <path> */
char *
ngx_http_kube_token_auth_file(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
try {
    ngx_http_kube_authn_conf_t  *authn = ngx_http_kube_authn(conf);
    ngx_str_t                   *value;

    if (authn->config->tokenFile) {
        return const_cast<char *>("is duplicate");
    }

    value = static_cast<ngx_str_t *>(cf->args->elts);

    std::string path = ngx_http_kube_conf_path(cf, &value[1]);
    std::string error;
    std::vector<std::string> warnings;

    authn->config->tokenFile =
        kube::authn::TokenFile::load(path, &error, &warnings);
    if (!authn->config->tokenFile) {
        if (error.find(path) == std::string::npos) {
            error = "\"" + path + "\": " + error;
        }
        return ngx_http_kube_conf_failed(cf, cmd, error);
    }

    for (const std::string &w : warnings) {
        ngx_conf_log_error(NGX_LOG_WARN, cf, 0, "%s", w.c_str());
    }

    return NGX_CONF_OK;

} catch (const std::exception &e) {
    return ngx_http_kube_conf_failed(cf, cmd, e.what());
}


/* kube_service_account_issuer <url>; repeated, the first one issues */
char *
ngx_http_kube_service_account_issuer(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
try {
    ngx_str_t  *value = static_cast<ngx_str_t *>(cf->args->elts);

    std::string issuer(reinterpret_cast<char *>(value[1].data), value[1].len);

    /* kube: a URL with a scheme must be https (or any non-URL string) */
    if (issuer.find("://") != std::string::npos
        && issuer.rfind("https://", 0) != 0)
    {
        return ngx_http_kube_conf_failed(cf, cmd,
            "\"" + issuer + "\": issuer URL must use https scheme");
    }

    ngx_http_kube_authn(conf)->service_accounts->issuers.push_back(issuer);

    return NGX_CONF_OK;

} catch (const std::exception &e) {
    return ngx_http_kube_conf_failed(cf, cmd, e.what());
}


/* kube_service_account_key_file <pem> (repeated) and
 * kube_service_account_signing_key_file <pem> */
char *
ngx_http_kube_service_account_key_file(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
try {
    kube::authn::ServiceAccountOptions &sa =
        *ngx_http_kube_authn(conf)->service_accounts;
    ngx_str_t  *value = static_cast<ngx_str_t *>(cf->args->elts);
    bool        signing = cmd->name.len
                          == sizeof("kube_service_account_signing_key_file") - 1;

    if (signing && sa.signingKey) {
        return const_cast<char *>("is duplicate");
    }

    std::string path = ngx_http_kube_conf_path(cf, &value[1]);
    std::string error;

    auto keys = kube::authn::Key::loadPem(path, &error);
    if (keys.empty()) {
        return ngx_http_kube_conf_failed(cf, cmd,
                                         "\"" + path + "\": " + error);
    }

    if (!signing) {
        sa.keys.insert(sa.keys.end(), keys.begin(), keys.end());
        return NGX_CONF_OK;
    }

    if (keys.size() != 1 || !keys[0]->hasPrivate()
        || keys[0]->signingAlgorithm().empty())
    {
        return ngx_http_kube_conf_failed(cf, cmd, "\"" + path
            + "\": must hold one RSA or ECDSA (P-256, P-384, P-521) "
              "private key");
    }

    sa.signingKey = keys[0];

    return NGX_CONF_OK;

} catch (const std::exception &e) {
    return ngx_http_kube_conf_failed(cf, cmd, e.what());
}


/* kube_api_audiences <aud> ... */
char *
ngx_http_kube_api_audiences(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
try {
    kube::authn::ServiceAccountOptions &sa =
        *ngx_http_kube_authn(conf)->service_accounts;
    ngx_str_t  *value = static_cast<ngx_str_t *>(cf->args->elts);

    if (!sa.apiAudiences.empty()) {
        return const_cast<char *>("is duplicate");
    }

    for (ngx_uint_t i = 1; i < cf->args->nelts; i++) {
        sa.apiAudiences.emplace_back(reinterpret_cast<char *>(value[i].data),
                                     value[i].len);
    }

    return NGX_CONF_OK;

} catch (const std::exception &e) {
    return ngx_http_kube_conf_failed(cf, cmd, e.what());
}


/* kube_service_account_jwks_uri <url> */
char *
ngx_http_kube_service_account_jwks_uri(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
try {
    kube::authn::ServiceAccountOptions &sa =
        *ngx_http_kube_authn(conf)->service_accounts;
    ngx_str_t  *value = static_cast<ngx_str_t *>(cf->args->elts);

    if (!sa.jwksUri.empty()) {
        return const_cast<char *>("is duplicate");
    }

    sa.jwksUri.assign(reinterpret_cast<char *>(value[1].data), value[1].len);

    if (sa.jwksUri.rfind("https://", 0) != 0) {
        return ngx_http_kube_conf_failed(cf, cmd,
            "\"" + sa.jwksUri + "\": must be an https URL");
    }

    return NGX_CONF_OK;

} catch (const std::exception &e) {
    return ngx_http_kube_conf_failed(cf, cmd, e.what());
}


/* kube_authentication_config <file>: an AuthenticationConfiguration */
char *
ngx_http_kube_authentication_config(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
try {
    ngx_http_kube_authn_conf_t  *authn = ngx_http_kube_authn(conf);
    ngx_str_t                   *value;

    if (!authn->config->jwt.empty()) {
        return const_cast<char *>("is duplicate");
    }

    value = static_cast<ngx_str_t *>(cf->args->elts);

    std::string path = ngx_http_kube_conf_path(cf, &value[1]);
    std::string error;

    auto jwt = kube::authn::loadAuthenticationConfiguration(path, &error);
    if (!error.empty()) {
        return ngx_http_kube_conf_failed(cf, cmd, error);
    }

    for (auto &c : jwt) {
        authn->config->jwt.push_back(
            std::make_shared<kube::authn::JwtAuthenticatorConfig>(
                std::move(c)));
    }

    return NGX_CONF_OK;

} catch (const std::exception &e) {
    return ngx_http_kube_conf_failed(cf, cmd, e.what());
}


/* kube_requestheader_client_ca_file <pem>: the CAs of the authenticating
 * proxy's client certificate */
char *
ngx_http_kube_requestheader_client_ca_file(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
try {
    ngx_http_kube_authn_conf_t  *authn = ngx_http_kube_authn(conf);
    ngx_str_t                   *value;

    if (authn->config->requestHeaderCAs) {
        return const_cast<char *>("is duplicate");
    }

    value = static_cast<ngx_str_t *>(cf->args->elts);

    std::string path = ngx_http_kube_conf_path(cf, &value[1]);
    std::string error;

    authn->request_header_ca_path = path;
    authn->config->requestHeaderCAs =
        kube::authn::loadCertificatePool(path, &error);
    if (!authn->config->requestHeaderCAs) {
        return ngx_http_kube_conf_failed(cf, cmd, error);
    }

    return NGX_CONF_OK;

} catch (const std::exception &e) {
    return ngx_http_kube_conf_failed(cf, cmd, e.what());
}


/* kube_requestheader_allowed_names, _username_headers, _uid_headers,
 * _group_headers and _extra_headers_prefix: <value> ...; the command's
 * offset says which list */
char *
ngx_http_kube_requestheader_list(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
try {
    ngx_http_kube_authn_conf_t  *authn = ngx_http_kube_authn(conf);
    kube::authn::RequestHeaderConfig &rh = *authn->request_header;
    std::vector<std::string> *list;
    ngx_str_t  *value = static_cast<ngx_str_t *>(cf->args->elts);

    if (authn->request_header_set & (1u << cmd->offset)) {
        return const_cast<char *>("is duplicate");
    }

    authn->request_header_set |= 1u << cmd->offset;

    switch (cmd->offset) {
    case NGX_HTTP_KUBE_RH_ALLOWED_NAMES:
        list = &rh.allowedNames;
        break;
    case NGX_HTTP_KUBE_RH_USERNAME_HEADERS:
        list = &rh.usernameHeaders;
        break;
    case NGX_HTTP_KUBE_RH_UID_HEADERS:
        list = &rh.uidHeaders;
        break;
    case NGX_HTTP_KUBE_RH_GROUP_HEADERS:
        list = &rh.groupHeaders;
        break;
    default: /* NGX_HTTP_KUBE_RH_EXTRA_PREFIXES */
        list = &rh.extraHeaderPrefixes;
        break;
    }

    list->clear();

    for (ngx_uint_t i = 1; i < cf->args->nelts; i++) {
        if (value[i].len == 0) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "invalid value \"\" in \"%V\" directive",
                               &cmd->name);
            return static_cast<char *>(NGX_CONF_ERROR);
        }

        list->emplace_back(reinterpret_cast<char *>(value[i].data),
                           value[i].len);
    }

    return NGX_CONF_OK;

} catch (const std::exception &e) {
    return ngx_http_kube_conf_failed(cf, cmd, e.what());
}


/*
 * With a request-header CA, the x509 authenticator trusts only the CAs of
 * ssl_client_certificate, as kube's trusts only --client-ca-file: nginx's
 * handshake also accepts what ssl_trusted_certificate (where the proxy's CA
 * goes) signed. A pool per ssl server configuration, read here, after the
 * servers' configurations are merged; with ssl_crl and ssl_verify_depth as
 * the handshake has them.
 */
ngx_int_t
ngx_http_kube_authn_client_cas(ngx_conf_t *cf, ngx_http_kube_main_conf_t *kmcf)
try {
#if (NGX_HTTP_SSL)
    ngx_uint_t                  s;
    ngx_http_ssl_srv_conf_t    *sscf;
    ngx_http_core_srv_conf_t  **cscfp;
    ngx_http_core_main_conf_t  *cmcf;

    if (!kmcf->authn->config->requestHeader) {
        return NGX_OK;
    }

    cmcf = static_cast<ngx_http_core_main_conf_t *>(
        ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module));
    cscfp = static_cast<ngx_http_core_srv_conf_t **>(cmcf->servers.elts);

    std::map<std::string, std::shared_ptr<X509_STORE>> loaded;

    for (s = 0; s < cmcf->servers.nelts; s++) {
        sscf = static_cast<ngx_http_ssl_srv_conf_t *>(
            cscfp[s]->ctx->srv_conf[ngx_http_ssl_module.ctx_index]);

        if (sscf == NULL || sscf->client_certificate.len == 0) {
            continue;
        }

        std::string path = ngx_http_kube_conf_path(cf,
                                                   &sscf->client_certificate);
        std::string crl = sscf->crl.len
                          ? ngx_http_kube_conf_path(cf, &sscf->crl) : "";
        std::string key = path + '\n' + crl + '\n'
                          + std::to_string(sscf->verify_depth);

        auto &pool = loaded[key];
        if (!pool) {
            std::string error;
            pool = kube::authn::loadCertificatePool(path, &error, crl);
            if (!pool) {
                ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                                   "\"ssl_client_certificate\": %s",
                                   error.c_str());
                return NGX_ERROR;
            }
            X509_STORE_set_depth(pool.get(),
                                 static_cast<int>(sscf->verify_depth));
        }

        kmcf->authn->client_cas[sscf] = pool;
    }
#endif

    return NGX_OK;

} catch (const std::exception &e) {
    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "kube-apiserver: %s", e.what());
    return NGX_ERROR;
}


/* the CAs of x509 users on this request's server, or NULL when it has
 * none (or no request-header CA is configured: the handshake decides) */
X509_STORE *
ngx_http_kube_client_cas(ngx_http_request_t *r)
{
#if (NGX_HTTP_SSL)
    ngx_http_kube_main_conf_t  *kmcf;

    kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_http_get_module_main_conf(r, ngx_http_kube_apiserver_module));

    auto it = kmcf->authn->client_cas.find(
        ngx_http_get_module_srv_conf(r, ngx_http_ssl_module));

    return it == kmcf->authn->client_cas.end() ? NULL : it->second.get();
#else
    return NULL;
#endif
}
