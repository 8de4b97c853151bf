#pragma once

// Declarations shared by the module's files: configuration, the per-request
// context and the entry points each file provides.

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "ngx.hpp"

#include "authn/authentication.hpp"
#include "authn/user.hpp"
#include "endpoints/http.hpp"
#include "endpoints/request_info.hpp"
#include "server/server.hpp"

extern "C" ngx_module_t ngx_http_kube_apiserver_module;

namespace kube::module {
class NginxStream;
}

namespace kube::authz {
class Authorizer;
class AbacAuthorizer;
}

/* which kube_requestheader_* list a directive sets (its command offset) */
#define NGX_HTTP_KUBE_RH_ALLOWED_NAMES     0
#define NGX_HTTP_KUBE_RH_USERNAME_HEADERS  1
#define NGX_HTTP_KUBE_RH_UID_HEADERS       2
#define NGX_HTTP_KUBE_RH_GROUP_HEADERS     3
#define NGX_HTTP_KUBE_RH_EXTRA_PREFIXES    4

/* The authentication directives' C++ side (kube_authn_conf.cpp): files are
 * read when their directive is parsed, so errors name its line; the result
 * is immutable once the configuration is read, and the workers share it. */
struct ngx_http_kube_authn_conf_t {
    std::shared_ptr<kube::authn::AuthenticationConfig>   config;
    std::shared_ptr<kube::authn::ServiceAccountOptions>  service_accounts;
    /* kube_requestheader_*: in effect once the CA file is set */
    std::shared_ptr<kube::authn::RequestHeaderConfig>    request_header;
    /* which kube_requestheader_* list directives were given */
    unsigned                                             request_header_set;
    /* With a request-header CA, x509 users are those the server's
     * ssl_client_certificate CAs signed, not any CA the handshake trusts
     * (ssl_trusted_certificate holds the proxy's): the pool of each ssl
     * server configuration, by its address. */
    std::map<const void *, std::shared_ptr<X509_STORE>>  client_cas;
    /* kube_requestheader_client_ca_file's path, for the
     * extension-apiserver-authentication ConfigMap */
    std::string                                          request_header_ca_path;
};

struct ngx_http_kube_main_conf_t {
    ngx_str_t            storage_dir;       /* kube_storage lmdb:<dir> */
    size_t               map_size;          /* kube_storage map_size= */
    ngx_uint_t           max_readers;       /* kube_storage max_readers= */
    ngx_str_t            etcd_endpoints;    /* kube_storage etcd:<urls> */
    ngx_str_t            etcd_prefix;       /* kube_storage prefix= */
    time_t               etcd_event_ttl;    /* kube_storage event_ttl= */
    ngx_str_t            etcd_cacert;       /* kube_storage cacert= */
    ngx_str_t            etcd_cert;         /* kube_storage cert= */
    ngx_str_t            etcd_key;          /* kube_storage key= */
    ngx_str_t            thread_pool_name;  /* kube_thread_pool */
    ngx_thread_pool_t   *thread_pool;
    ngx_flag_t           enabled;           /* some location has kube_api */
    ngx_flag_t           watch_cache;       /* kube_watch_cache */
    size_t               watch_cache_size;  /* kube_watch_cache_size */
    /* kube_watch_cache_size resource= */
    size_t               watch_cache_resource_size;
    /* kube_compaction_interval */
    ngx_msec_t           compaction_interval;
    /* kube_min_request_timeout */
    time_t               min_request_timeout;
    /* the core loc confs of the kube_api locations: their
     * client_body_temp_path is checked with the storage (kube_paths.cpp) */
    ngx_array_t          api_locations;
    /* kube_token_auth_file, kube_service_account_*, kube_api_audiences,
     * kube_authentication_config */
    ngx_http_kube_authn_conf_t  *authn;
    /* kube_service_account_max_token_expiration */
    time_t               sa_max_expiration;
    /* kube_service_account_extend_token_expiration */
    ngx_flag_t           sa_extend_expiration;
    /* kube_max_requests_inflight, kube_max_mutating_requests_inflight */
    ngx_int_t            max_requests_inflight;
    ngx_int_t            max_mutating_requests_inflight;
    /* kube_priority_and_fairness */
    ngx_flag_t           priority_and_fairness;
    /* kube_service_cluster_ip_range, kube_service_node_port_range */
    ngx_str_t            service_cluster_ip_range;
    ngx_str_t            service_node_port_range;
    /* kube_advertise_address: { 0, NULL } for the listening address */
    ngx_str_t            advertise_address;
    /* kube_endpoint_reconciler_type: 1 lease, 0 none */
    ngx_uint_t           endpoint_reconciler;
    /* kube_endpoint_reconciler_ttl, seconds */
    time_t               endpoint_reconciler_ttl;
};

struct ngx_http_kube_loc_conf_t {
    ngx_flag_t                 api;                 /* kube_api */
    ngx_flag_t                 anonymous_auth;      /* kube_anonymous_auth */
    /* kube_authorization_mode: kube::authz::Mode values, in order */
    ngx_array_t               *authorization_modes;
    /* kube_authorization_policy_file, read when the directive is */
    ngx_str_t                  authorization_policy_file;
    kube::authz::AbacAuthorizer  *abac;
    /* this worker's union of the modes (kube_phases.cpp) */
    const kube::authz::Authorizer  *authorizer;
    /* kube_max_request_body_size */
    size_t                     max_body_size;
    /* kube_stream_max_buffered */
    size_t                     stream_max_buffered;
    /* kube_metrics: this location's requests are counted in /metrics */
    ngx_flag_t                 metrics;
    /* kube_request_body_timeout */
    ngx_msec_t                 request_body_timeout;
    /* kube_request_timeout */
    ngx_msec_t                 request_timeout;
    /* kube_cors_allowed_origins: ngx_regex_elt_t, NULL for no CORS */
    ngx_array_t               *cors_origins;
    ngx_http_core_loc_conf_t  *clcf;
};

/* What the module knows of one request; lives in the request pool and is
 * destroyed by a pool cleanup. */
struct ngx_http_kube_ctx_t {
    kube::server::Route           route = kube::server::Route::None;
    kube::endpoints::RequestInfo  info;
    /* who the request acts as: the authenticated user, or the one it
     * impersonates (Impersonate-*) once that was allowed */
    kube::authn::UserInfo         user;
    /* the authenticated user when the request impersonates another */
    std::optional<kube::authn::UserInfo>  requestor;
    bool                          authenticated = false;
    bool                          impersonation_checked = false;
    /* the authenticators answered later (a store read was deferred): the
     * PREACCESS handler runs again and finds their verdict here */
    bool                          authn_pending = false;
    bool                          authn_rejected = false;
    /* Our own answer went out: the error-page filter leaves it alone. */
    bool                          response_sent = false;
    /* The filter replaces an nginx error page with this Status JSON. */
    std::string                   substitute;
    bool                          substituting = false;
    bool                          substitute_sent = false;
    /* The kube_api location the request was routed in: an error page
     * (kube_status) answers with its limits. */
    ngx_http_kube_loc_conf_t     *klcf = nullptr;
    /* kube_request_body_timeout: the deadline of the whole body read */
    ngx_event_t                   body_timer{};
    bool                          body_timed_out = false;
    /* kube_request_timeout or ?timeout= (kube_deadline.cpp): the answer
     * is due by `deadline` (ngx_current_msec) */
    bool                          cors_checked = false;
    bool                          deadline_checked = false;
    bool                          has_deadline = false;
    bool                          timed_out = false;
    ngx_msec_t                    deadline = 0;
    ngx_event_t                   deadline_timer{};
    /* bytes of the body read so far, against kube_max_request_body_size */
    off_t                         body_received = 0;
    /* Cleared by the pool cleanup: a late asynchronous answer checks it. */
    std::shared_ptr<ngx_http_request_t*>  alive;
    /* The streamed answer in progress (kube_stream.cpp), owned by its own
     * pool cleanup. */
    kube::module::NginxStream     *stream = nullptr;
    /* kube_metrics_request.cpp: the request is counted when it ends; it
     * holds an in-flight count of this kind (0 readOnly, 1 mutating, -1
     * none) or a long-running request's gauge */
    bool                          metrics_counted = false;
    int                           metrics_inflight = -1;
    std::atomic<uint64_t>        *metrics_longrunning = nullptr;
    /* its labels, kept when a stream lets go of `info` */
    void                         *metrics_labels = nullptr;
};

/* kube_request.cpp */
ngx_http_kube_ctx_t *ngx_http_kube_get_ctx(ngx_http_request_t *r);
ngx_http_kube_ctx_t *ngx_http_kube_find_ctx(ngx_http_request_t *r);
ngx_int_t ngx_http_kube_send(ngx_http_request_t *r,
    const kube::endpoints::HttpResponse &resp);
ngx_int_t ngx_http_kube_reject(ngx_http_request_t *r,
    const kube::endpoints::HttpResponse &resp);

/* kube_phases.cpp */
ngx_int_t ngx_http_kube_authn_handler(ngx_http_request_t *r);
ngx_int_t ngx_http_kube_impersonation_handler(ngx_http_request_t *r);
ngx_int_t ngx_http_kube_authz_handler(ngx_http_request_t *r);
void ngx_http_kube_authz_init_worker(ngx_cycle_t *cycle,
    kube::server::Server *server);
void ngx_http_kube_authz_exit_worker();

/* kube_authn_conf.cpp */
ngx_int_t ngx_http_kube_authn_conf_create(ngx_conf_t *cf,
    ngx_http_kube_main_conf_t *kmcf);
char *ngx_http_kube_authn_conf_init(ngx_conf_t *cf,
    ngx_http_kube_main_conf_t *kmcf);
char *ngx_http_kube_token_auth_file(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_kube_service_account_issuer(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_kube_service_account_key_file(ngx_conf_t *cf,
    ngx_command_t *cmd, void *conf);
char *ngx_http_kube_api_audiences(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_kube_service_account_jwks_uri(ngx_conf_t *cf,
    ngx_command_t *cmd, void *conf);
char *ngx_http_kube_authentication_config(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_kube_requestheader_client_ca_file(ngx_conf_t *cf,
    ngx_command_t *cmd, void *conf);
char *ngx_http_kube_requestheader_list(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
ngx_int_t ngx_http_kube_authn_client_cas(ngx_conf_t *cf,
    ngx_http_kube_main_conf_t *kmcf);
X509_STORE *ngx_http_kube_client_cas(ngx_http_request_t *r);

/* kube_content.cpp */
ngx_int_t ngx_http_kube_content_handler(ngx_http_request_t *r);

/* kube_cors.cpp */
ngx_int_t ngx_http_kube_cors_handler(ngx_http_request_t *r);
char *ngx_http_kube_cors_allowed_origins(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);

/* kube_deadline.cpp */
ngx_int_t ngx_http_kube_deadline_handler(ngx_http_request_t *r);
void ngx_http_kube_deadline_start(ngx_http_request_t *r,
    ngx_http_kube_ctx_t *ctx);
bool ngx_http_kube_deadline_answered(ngx_http_request_t *r);

/* kube_filters.cpp */
ngx_int_t ngx_http_kube_filters_init(ngx_conf_t *cf);
ngx_int_t ngx_http_kube_status_handler(ngx_http_request_t *r);

/* kube_paths.cpp */
ngx_int_t ngx_http_kube_paths_add_check(ngx_conf_t *cf);

/* kube_stream.cpp */

ngx_int_t ngx_http_kube_stream_start(ngx_http_request_t *r,
    std::shared_ptr<kube::endpoints::StreamSource> source);
void ngx_http_kube_streams_release(ngx_cycle_t *cycle);

/* kube_metrics_*.cpp (kube_metrics.hpp) */

/* why a streamed response ended, as /metrics counts it */
#define NGX_HTTP_KUBE_STREAM_FINISHED   0
#define NGX_HTTP_KUBE_STREAM_CUT        1
#define NGX_HTTP_KUBE_STREAM_TIMED_OUT  2
#define NGX_HTTP_KUBE_STREAM_GONE       3
#define NGX_HTTP_KUBE_STREAM_END_REASONS  4

/* apiserver_audit_error_total's plugin label: the log's write(2) failed,
 * the writer's queue was full */
#define NGX_HTTP_KUBE_AUDIT_PLUGIN_LOG       0
#define NGX_HTTP_KUBE_AUDIT_PLUGIN_BUFFERED  1
#define NGX_HTTP_KUBE_AUDIT_PLUGINS          2
#define NGX_HTTP_KUBE_AUDIT_LEVELS           4

/* the apiserver_flowcontrol_* series of a (flow schema, priority level):
 * gauges (per worker; a dead worker's share is dropped) and a counter a
 * dispatcher adds to, histograms it observes */
#define NGX_HTTP_KUBE_FLOW_INQUEUE          0  /* current_inqueue_requests */
#define NGX_HTTP_KUBE_FLOW_EXECUTING        1  /* current_executing_requests */
#define NGX_HTTP_KUBE_FLOW_SEATS_IN_USE     2  /* request_concurrency_in_use */
#define NGX_HTTP_KUBE_FLOW_DISPATCHED       3  /* dispatched_requests_total */
/* request_wait_duration_seconds, execute="false" and "true" */
#define NGX_HTTP_KUBE_FLOW_WAIT_REJECTED    4
#define NGX_HTTP_KUBE_FLOW_WAIT_EXECUTED    5
/* request_execution_seconds, type="regular" and "watch" */
#define NGX_HTTP_KUBE_FLOW_EXECUTION        6
#define NGX_HTTP_KUBE_FLOW_EXECUTION_WATCH  7
#define NGX_HTTP_KUBE_FLOW_SERIES           8

ngx_int_t ngx_http_kube_metrics_add_zone(ngx_conf_t *cf);
ngx_int_t ngx_http_kube_metrics_add_handlers(ngx_conf_t *cf);
void ngx_http_kube_metrics_init_worker(ngx_cycle_t *cycle);
void ngx_http_kube_metrics_exit_worker();
void ngx_http_kube_metrics_start(ngx_http_request_t *r,
    ngx_http_kube_ctx_t *ctx);
void ngx_http_kube_metrics_rejected(ngx_http_request_t *r);
void ngx_http_kube_metrics_keep_labels(ngx_http_request_t *r,
    ngx_http_kube_ctx_t *ctx);
void ngx_http_kube_metrics_watcher_terminated(ngx_http_request_t *r);
/* The apiserver_flowcontrol_* series of one (flow schema, priority level),
 * kept by this worker for as long as it lives (NULL without the zone) */
struct ngx_http_kube_flow_series_t;
ngx_http_kube_flow_series_t *ngx_http_kube_metrics_flow_series(
    std::string_view fs, std::string_view pl);
/* a gauge's or the counter's series, by delta */
void ngx_http_kube_metrics_flow_add(ngx_http_kube_flow_series_t *s,
    ngx_uint_t series, ngx_int_t delta);
/* a histogram's series, a duration in nanoseconds */
void ngx_http_kube_metrics_flow_observe(ngx_http_kube_flow_series_t *s,
    ngx_uint_t series, uint64_t ns);
void ngx_http_kube_metrics_flow_rejected(ngx_http_kube_flow_series_t *s,
    std::string_view reason);
void ngx_http_kube_metrics_flow_level(std::string_view pl,
    ngx_int_t concurrency, ngx_int_t nominal, ngx_int_t current);
void ngx_http_kube_metrics_stream_end(ngx_uint_t reason);
void ngx_http_kube_metrics_audit_event();
void ngx_http_kube_metrics_audit_errors(ngx_uint_t plugin, ngx_atomic_int_t n);
void ngx_http_kube_metrics_audit_level(ngx_uint_t level);
std::string ngx_http_kube_metrics_text();

/* kube_audit.cpp: the audit filter (ngx_http_kube_audit_module); each hook
 * is a no-op for a request that is not audited */
ngx_int_t ngx_http_kube_audit_add_handlers(ngx_conf_t *cf);
void ngx_http_kube_audit_request_body(ngx_http_request_t *r,
    std::string_view body);
void ngx_http_kube_audit_response(ngx_http_request_t *r,
    const kube::endpoints::HttpResponse &resp);
void ngx_http_kube_audit_authorized(ngx_http_request_t *r, bool allowed,
    std::string_view reason);
void ngx_http_kube_audit_impersonated(ngx_http_request_t *r,
    const kube::authn::UserInfo &user);
void ngx_http_kube_audit_panic(ngx_http_request_t *r, const char *what);

/* kube_content.cpp */
std::string_view ngx_http_kube_request_header(ngx_http_request_t *r,
    std::string_view name);

/* kube_wake.cpp */
ngx_int_t ngx_http_kube_wake_create(ngx_cycle_t *cycle);
ngx_int_t ngx_http_kube_wake_init_worker(ngx_cycle_t *cycle);
void ngx_http_kube_wake_commit();
void ngx_http_kube_wake_self();
void ngx_http_kube_wake_worker(ngx_int_t slot);
void ngx_http_kube_wake_exit_worker(ngx_cycle_t *cycle);

/* kube_flowcontrol*.cpp (kube_flowcontrol.hpp) */
namespace kube::flowcontrol {
class Classifier;
}

ngx_int_t ngx_http_kube_flowcontrol_handler(ngx_http_request_t *r);
ngx_int_t ngx_http_kube_flowcontrol_add_zone(ngx_conf_t *cf);
ngx_int_t ngx_http_kube_flowcontrol_init_worker(ngx_cycle_t *cycle);
void ngx_http_kube_flowcontrol_exit_worker(ngx_cycle_t *cycle);
void ngx_http_kube_flowcontrol_release(ngx_http_request_t *r);
void ngx_http_kube_flowcontrol_resume();
void ngx_http_kube_flowcontrol_set_classifier(
    const kube::flowcontrol::Classifier *classifier);
int ngx_http_kube_flowcontrol_server_concurrency(ngx_cycle_t *cycle);

/* kube_worker.cpp */
ngx_int_t ngx_http_kube_init_worker(ngx_cycle_t *cycle);
void ngx_http_kube_let_workers_stop_master(ngx_cycle_t *cycle);
void ngx_http_kube_exit_worker(ngx_cycle_t *cycle);
kube::server::Server *ngx_http_kube_server();
void ngx_http_kube_log_heap(ngx_log_t *log);
