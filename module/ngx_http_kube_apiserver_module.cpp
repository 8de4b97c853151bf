/*
 * nginx-kube-apiserver: the Kubernetes API as an nginx module.
 *
 * This file holds the directives, the configuration and the module
 * definition; the phase handlers, the content handler, the filters and the
 * per-worker state live in the other kube_*.cpp files of this directory.
 */

#include "kube_module.hpp"

#include "authz/abac.hpp"
#include "registry/service/allocation_bitmap.hpp"

namespace {

/* kube-apiserver's --max-request-bytes default for API bodies: 3 MiB. */
constexpr size_t kDefaultMaxBody = 3 * 1024 * 1024;
/* Address space only: the file grows with use (spec/storage.md §1.4). */
constexpr size_t kDefaultMapSize = size_t(8) << 30;
constexpr ngx_uint_t kDefaultMaxReaders = 1024;
/* What a watcher may leave unread before it is cut (spec §5: loopback
 * buffers already absorb a few MB before nginx holds anything). */
constexpr size_t kDefaultStreamMaxBuffered = 1024 * 1024;
/* kube-apiserver's --min-request-timeout default, in seconds */
constexpr time_t kDefaultMinRequestTimeout = 1800;
constexpr ngx_msec_t kDefaultCompactionInterval = 5 * 60 * 1000;
/* kube-apiserver's --event-ttl, seconds */
constexpr time_t kDefaultEventTtl = 60 * 60;
/* kube-apiserver's --request-timeout default: a body read gets no longer */
constexpr ngx_msec_t kDefaultRequestBodyTimeout = 60 * 1000;
/* kube-apiserver's --request-timeout default */
constexpr ngx_msec_t kDefaultRequestTimeout = 60 * 1000;
/* the event history of each worker's watch caches, all resources together */
constexpr size_t kDefaultWatchCacheSize =
    kube::storage::cacher::HistoryLimits::kDefaultBytes;

ngx_int_t ngx_http_kube_init(ngx_conf_t *cf);
void *ngx_http_kube_create_main_conf(ngx_conf_t *cf);
char *ngx_http_kube_init_main_conf(ngx_conf_t *cf, void *conf);
void *ngx_http_kube_create_loc_conf(ngx_conf_t *cf);
char *ngx_http_kube_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child);
char *ngx_http_kube_api(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);
char *ngx_http_kube_status(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);
char *ngx_http_kube_storage(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);
char *ngx_http_kube_watch_cache_size(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_kube_authorization_mode(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_kube_authorization_policy_file(ngx_conf_t *cf,
    ngx_command_t *cmd, void *conf);
char *ngx_http_kube_merge_authorization(ngx_conf_t *cf,
    ngx_http_kube_loc_conf_t *prev, ngx_http_kube_loc_conf_t *conf);
char *ngx_http_kube_positive_sec(ngx_conf_t *cf, void *post, void *data);
char *ngx_http_kube_check_str(ngx_conf_t *cf, void *post, void *data);
ngx_int_t ngx_http_kube_init_module(ngx_cycle_t *cycle);
ngx_int_t ngx_http_kube_init_process(ngx_cycle_t *cycle);
void ngx_http_kube_exit_process(ngx_cycle_t *cycle);


ngx_conf_post_t ngx_http_kube_min_request_timeout_post = {
    ngx_http_kube_positive_sec
};

/*
 * A string directive whose value a src/ parser checks: like nginx's
 * ngx_conf_num_bounds_t, the post handler's data rides in the post struct.
 */
typedef struct {
    ngx_conf_post_handler_pt   post_handler;
    bool                     (*valid)(std::string_view value,
                                      std::string *error);
} ngx_http_kube_str_check_t;

/* kube_service_cluster_ip_range: an IPv4 CIDR of /12 to /30 */
ngx_http_kube_str_check_t ngx_http_kube_ip_range_post = {
    ngx_http_kube_check_str,
    [](std::string_view value, std::string *error) {
        return kube::registry::service::IpRange::parse(value, error)
            .has_value();
    }
};

/* kube_service_node_port_range: "first-last" */
ngx_http_kube_str_check_t ngx_http_kube_port_range_post = {
    ngx_http_kube_check_str,
    [](std::string_view value, std::string *error) {
        return kube::registry::service::PortRange::parse(value, error)
            .has_value();
    }
};

/* kube_advertise_address: an IPv4 address other than 0.0.0.0 */
ngx_http_kube_str_check_t ngx_http_kube_address_post = {
    ngx_http_kube_check_str,
    [](std::string_view value, std::string *error) {
        auto ip = kube::registry::service::parseIPv4(value);
        if (!ip || *ip == 0) {
            *error = "invalid address \"" + std::string(value) + "\"";
            return false;
        }
        return true;
    }
};

/* kube-apiserver's --endpoint-reconciler-type values */
ngx_conf_enum_t ngx_http_kube_endpoint_reconcilers[] = {
    { ngx_string("lease"), 1 },
    { ngx_string("none"), 0 },
    { ngx_null_string, 0 }
};

/* kube's DefaultEndpointReconcilerTTL, seconds */
constexpr time_t kDefaultEndpointReconcilerTtl = 15;


ngx_command_t ngx_http_kube_commands[] = {

    { ngx_string("kube_api"),
      NGX_HTTP_LOC_CONF|NGX_CONF_NOARGS,
      ngx_http_kube_api,
      NGX_HTTP_LOC_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_status"),
      NGX_HTTP_LOC_CONF|NGX_CONF_NOARGS,
      ngx_http_kube_status,
      NGX_HTTP_LOC_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_storage"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_kube_storage,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_thread_pool"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, thread_pool_name),
      NULL },

    { ngx_string("kube_anonymous_auth"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_kube_loc_conf_t, anonymous_auth),
      NULL },

    { ngx_string("kube_token_auth_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_kube_token_auth_file,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_service_account_issuer"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_kube_service_account_issuer,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_service_account_key_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_kube_service_account_key_file,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_service_account_signing_key_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_kube_service_account_key_file,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_service_account_max_token_expiration"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_sec_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, sa_max_expiration),
      NULL },

    { ngx_string("kube_service_account_extend_token_expiration"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, sa_extend_expiration),
      NULL },

    { ngx_string("kube_service_account_jwks_uri"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_kube_service_account_jwks_uri,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_api_audiences"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_kube_api_audiences,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_authentication_config"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_kube_authentication_config,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_requestheader_client_ca_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_kube_requestheader_client_ca_file,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_requestheader_allowed_names"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_kube_requestheader_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      NGX_HTTP_KUBE_RH_ALLOWED_NAMES,
      NULL },

    { ngx_string("kube_requestheader_username_headers"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_kube_requestheader_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      NGX_HTTP_KUBE_RH_USERNAME_HEADERS,
      NULL },

    { ngx_string("kube_requestheader_uid_headers"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_kube_requestheader_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      NGX_HTTP_KUBE_RH_UID_HEADERS,
      NULL },

    { ngx_string("kube_requestheader_group_headers"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_kube_requestheader_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      NGX_HTTP_KUBE_RH_GROUP_HEADERS,
      NULL },

    { ngx_string("kube_requestheader_extra_headers_prefix"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_1MORE,
      ngx_http_kube_requestheader_list,
      NGX_HTTP_MAIN_CONF_OFFSET,
      NGX_HTTP_KUBE_RH_EXTRA_PREFIXES,
      NULL },

    { ngx_string("kube_authorization_mode"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_1MORE,
      ngx_http_kube_authorization_mode,
      NGX_HTTP_LOC_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_authorization_policy_file"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_http_kube_authorization_policy_file,
      NGX_HTTP_LOC_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_max_request_body_size"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_kube_loc_conf_t, max_body_size),
      NULL },

    { ngx_string("kube_metrics"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_kube_loc_conf_t, metrics),
      NULL },

    { ngx_string("kube_stream_max_buffered"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_kube_loc_conf_t, stream_max_buffered),
      NULL },

    { ngx_string("kube_request_body_timeout"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_msec_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_kube_loc_conf_t, request_body_timeout),
      NULL },

    { ngx_string("kube_request_timeout"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_msec_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_kube_loc_conf_t, request_timeout),
      NULL },

    { ngx_string("kube_cors_allowed_origins"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_1MORE,
      ngx_http_kube_cors_allowed_origins,
      NGX_HTTP_LOC_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_watch_cache"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, watch_cache),
      NULL },

    { ngx_string("kube_watch_cache_size"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE12,
      ngx_http_kube_watch_cache_size,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_compaction_interval"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_msec_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, compaction_interval),
      NULL },

    { ngx_string("kube_min_request_timeout"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_sec_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, min_request_timeout),
      &ngx_http_kube_min_request_timeout_post },

    { ngx_string("kube_max_requests_inflight"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_num_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, max_requests_inflight),
      NULL },

    { ngx_string("kube_max_mutating_requests_inflight"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_num_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, max_mutating_requests_inflight),
      NULL },

    { ngx_string("kube_priority_and_fairness"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, priority_and_fairness),
      NULL },

    { ngx_string("kube_service_cluster_ip_range"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, service_cluster_ip_range),
      &ngx_http_kube_ip_range_post },

    { ngx_string("kube_service_node_port_range"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, service_node_port_range),
      &ngx_http_kube_port_range_post },

    { ngx_string("kube_advertise_address"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_str_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, advertise_address),
      &ngx_http_kube_address_post },

    { ngx_string("kube_endpoint_reconciler_type"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_enum_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, endpoint_reconciler),
      &ngx_http_kube_endpoint_reconcilers },

    { ngx_string("kube_endpoint_reconciler_ttl"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_sec_slot,
      NGX_HTTP_MAIN_CONF_OFFSET,
      offsetof(ngx_http_kube_main_conf_t, endpoint_reconciler_ttl),
      &ngx_http_kube_min_request_timeout_post },

      ngx_null_command
};


ngx_http_module_t ngx_http_kube_module_ctx = {
    NULL,                                  /* preconfiguration */
    ngx_http_kube_init,                    /* postconfiguration */

    ngx_http_kube_create_main_conf,        /* create main configuration */
    ngx_http_kube_init_main_conf,          /* init main configuration */

    NULL,                                  /* create server configuration */
    NULL,                                  /* merge server configuration */

    ngx_http_kube_create_loc_conf,         /* create location configuration */
    ngx_http_kube_merge_loc_conf           /* merge location configuration */
};

}  // namespace


ngx_module_t ngx_http_kube_apiserver_module = {
    NGX_MODULE_V1,
    &ngx_http_kube_module_ctx,             /* module context */
    ngx_http_kube_commands,                /* module directives */
    NGX_HTTP_MODULE,                       /* module type */
    NULL,                                  /* init master */
    ngx_http_kube_init_module,             /* init module */
    ngx_http_kube_init_process,            /* init process */
    NULL,                                  /* init thread */
    NULL,                                  /* exit thread */
    ngx_http_kube_exit_process,            /* exit process */
    NULL,                                  /* exit master */
    NGX_MODULE_V1_PADDING
};


namespace {

void *
ngx_http_kube_create_main_conf(ngx_conf_t *cf)
{
    ngx_http_kube_main_conf_t  *kmcf;

    kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_pcalloc(cf->pool, sizeof(ngx_http_kube_main_conf_t)));
    if (kmcf == NULL) {
        return NULL;
    }

    /*
     * set by ngx_pcalloc():
     *
     *     kmcf->storage_dir = { 0, NULL };
     *     kmcf->etcd_cacert, etcd_cert, etcd_key = { 0, NULL };
     *     kmcf->thread_pool_name = { 0, NULL };
     *     kmcf->thread_pool = NULL;
     *     kmcf->enabled = 0;
     *     kmcf->authn = NULL;
     *     kmcf->service_cluster_ip_range = { 0, NULL };
     *     kmcf->service_node_port_range = { 0, NULL };
     *     kmcf->advertise_address = { 0, NULL };
     */

    kmcf->map_size = NGX_CONF_UNSET_SIZE;
    kmcf->max_readers = NGX_CONF_UNSET_UINT;
    kmcf->etcd_event_ttl = NGX_CONF_UNSET;
    kmcf->watch_cache = NGX_CONF_UNSET;
    kmcf->watch_cache_size = NGX_CONF_UNSET_SIZE;
    kmcf->watch_cache_resource_size = NGX_CONF_UNSET_SIZE;
    kmcf->compaction_interval = NGX_CONF_UNSET_MSEC;
    kmcf->min_request_timeout = NGX_CONF_UNSET;
    kmcf->endpoint_reconciler = NGX_CONF_UNSET_UINT;
    kmcf->endpoint_reconciler_ttl = NGX_CONF_UNSET;
    kmcf->sa_max_expiration = NGX_CONF_UNSET;
    kmcf->sa_extend_expiration = NGX_CONF_UNSET;
    kmcf->max_requests_inflight = NGX_CONF_UNSET;
    kmcf->max_mutating_requests_inflight = NGX_CONF_UNSET;
    kmcf->priority_and_fairness = NGX_CONF_UNSET;

    if (ngx_http_kube_authn_conf_create(cf, kmcf) != NGX_OK) {
        return NULL;
    }

    if (ngx_array_init(&kmcf->api_locations, cf->pool, 4,
                       sizeof(ngx_http_core_loc_conf_t *))
        != NGX_OK)
    {
        return NULL;
    }

    return kmcf;
}


char *
ngx_http_kube_init_main_conf(ngx_conf_t *cf, void *conf)
{
    ngx_http_kube_main_conf_t *kmcf =
        static_cast<ngx_http_kube_main_conf_t *>(conf);

    ngx_conf_init_size_value(kmcf->map_size, kDefaultMapSize);
    ngx_conf_init_uint_value(kmcf->max_readers, kDefaultMaxReaders);
    ngx_conf_init_value(kmcf->etcd_event_ttl, kDefaultEventTtl);
    ngx_conf_init_value(kmcf->watch_cache, 1);
    ngx_conf_init_size_value(kmcf->watch_cache_size, kDefaultWatchCacheSize);
    /* without resource=, one resource may use the whole worker's size */
    ngx_conf_init_size_value(kmcf->watch_cache_resource_size,
                             kmcf->watch_cache_size);
    ngx_conf_init_msec_value(kmcf->compaction_interval,
                             kDefaultCompactionInterval);
    ngx_conf_init_value(kmcf->min_request_timeout,
                        kDefaultMinRequestTimeout);
    ngx_conf_init_uint_value(kmcf->endpoint_reconciler, 1);
    ngx_conf_init_value(kmcf->endpoint_reconciler_ttl,
                        kDefaultEndpointReconcilerTtl);

    /* kube-apiserver's --service-cluster-ip-range and
     * --service-node-port-range defaults; kube_advertise_address's default
     * is taken from the listening sockets in each worker */
    if (kmcf->service_cluster_ip_range.data == NULL) {
        ngx_str_set(&kmcf->service_cluster_ip_range, "10.0.0.0/24");
    }
    if (kmcf->service_node_port_range.data == NULL) {
        ngx_str_set(&kmcf->service_node_port_range, "30000-32767");
    }

    ngx_conf_init_value(kmcf->sa_extend_expiration, 1);

    /* kube-apiserver's --max-requests-inflight and
     * --max-mutating-requests-inflight; APF on, as kube's default */
    ngx_conf_init_value(kmcf->max_requests_inflight, 400);
    ngx_conf_init_value(kmcf->max_mutating_requests_inflight, 200);
    ngx_conf_init_value(kmcf->priority_and_fairness, 1);

    if (kmcf->thread_pool_name.data == NULL) {
        ngx_str_set(&kmcf->thread_pool_name, "default");
    }

    return ngx_http_kube_authn_conf_init(cf, kmcf);
}


void *
ngx_http_kube_create_loc_conf(ngx_conf_t *cf)
{
    ngx_http_kube_loc_conf_t  *klcf;

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_pcalloc(cf->pool, sizeof(ngx_http_kube_loc_conf_t)));
    if (klcf == NULL) {
        return NULL;
    }

    /*
     * set by ngx_pcalloc():
     *
     *     klcf->api = 0;
     *     klcf->clcf = NULL;
     *     klcf->authorization_policy_file = { 0, NULL };
     *     klcf->abac = NULL;
     *     klcf->authorizer = NULL;
     */

    klcf->anonymous_auth = NGX_CONF_UNSET;
    klcf->authorization_modes = static_cast<ngx_array_t *>(NGX_CONF_UNSET_PTR);
    klcf->max_body_size = NGX_CONF_UNSET_SIZE;
    klcf->stream_max_buffered = NGX_CONF_UNSET_SIZE;
    klcf->metrics = NGX_CONF_UNSET;
    klcf->request_body_timeout = NGX_CONF_UNSET_MSEC;
    klcf->request_timeout = NGX_CONF_UNSET_MSEC;
    klcf->cors_origins = static_cast<ngx_array_t *>(NGX_CONF_UNSET_PTR);

    return klcf;
}


char *
ngx_http_kube_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child)
{
    ngx_http_kube_loc_conf_t *prev =
        static_cast<ngx_http_kube_loc_conf_t *>(parent);
    ngx_http_kube_loc_conf_t *conf =
        static_cast<ngx_http_kube_loc_conf_t *>(child);

    ngx_conf_merge_value(conf->anonymous_auth, prev->anonymous_auth, 0);

    if (ngx_http_kube_merge_authorization(cf, prev, conf) != NGX_CONF_OK) {
        return static_cast<char *>(NGX_CONF_ERROR);
    }
    ngx_conf_merge_size_value(conf->max_body_size, prev->max_body_size,
                              kDefaultMaxBody);
    ngx_conf_merge_value(conf->metrics, prev->metrics, 1);
    ngx_conf_merge_size_value(conf->stream_max_buffered,
                              prev->stream_max_buffered,
                              kDefaultStreamMaxBuffered);
    ngx_conf_merge_msec_value(conf->request_body_timeout,
                              prev->request_body_timeout,
                              kDefaultRequestBodyTimeout);
    ngx_conf_merge_msec_value(conf->request_timeout, prev->request_timeout,
                              kDefaultRequestTimeout);
    ngx_conf_merge_ptr_value(conf->cors_origins, prev->cors_origins, NULL);

    if (conf->api && conf->clcf) {
        /*
         * The API's body limit replaces client_max_body_size here, and is
         * kept by the module (kube_content.cpp, kube_filters.cpp) once the
         * request is authenticated, as kube-apiserver reads a body only
         * then; nginx's own check would answer before the request has
         * reached its location's handlers.
         */
        conf->clcf->client_max_body_size = 0;
    }

    return NGX_CONF_OK;
}


char *
ngx_http_kube_api(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_kube_loc_conf_t *klcf =
        static_cast<ngx_http_kube_loc_conf_t *>(conf);

    ngx_http_core_loc_conf_t   *clcf, **loc;
    ngx_http_kube_main_conf_t  *kmcf;

    if (klcf->api) {
        return const_cast<char *>("is duplicate");
    }

    clcf = static_cast<ngx_http_core_loc_conf_t *>(
        ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module));
    clcf->handler = ngx_http_kube_content_handler;

    klcf->api = 1;
    klcf->clcf = clcf;

    kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_http_conf_get_module_main_conf(cf, ngx_http_kube_apiserver_module));
    kmcf->enabled = 1;

    loc = static_cast<ngx_http_core_loc_conf_t **>(
        ngx_array_push(&kmcf->api_locations));
    if (loc == NULL) {
        return static_cast<char *>(NGX_CONF_ERROR);
    }
    *loc = clcf;

    return NGX_CONF_OK;
}


/* an error_page target: answers the error that led there as a Status */
char *
ngx_http_kube_status(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_core_loc_conf_t  *clcf;

    clcf = static_cast<ngx_http_core_loc_conf_t *>(
        ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module));

    if (clcf->handler == ngx_http_kube_status_handler) {
        return const_cast<char *>("is duplicate");
    }

    clcf->handler = ngx_http_kube_status_handler;

    /* an error page reads no body: the one that was too large must not be
     * refused again on the way in */
    if (clcf->client_max_body_size == NGX_CONF_UNSET) {
        clcf->client_max_body_size = 0;
    }

    return NGX_CONF_OK;
}


/*
 * kube_storage lmdb:<dir> [map_size=<size>] [max_readers=<n>]
 * kube_storage etcd:<url>[,<url>...] [prefix=<key prefix>]
 *     [event_ttl=<time>] [cacert=<file>] [cert=<file>] [key=<file>]
 */
char *
ngx_http_kube_storage(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_kube_main_conf_t *kmcf =
        static_cast<ngx_http_kube_main_conf_t *>(conf);

    off_t       size;
    time_t      ttl;
    ngx_int_t   n;
    ngx_str_t  *value, s, *file;
    ngx_uint_t  i, etcd;

    if (kmcf->storage_dir.data || kmcf->etcd_endpoints.data) {
        return const_cast<char *>("is duplicate");
    }

    value = static_cast<ngx_str_t *>(cf->args->elts);

    if (value[1].len > 5 && ngx_strncmp(value[1].data, "etcd:", 5) == 0) {
        etcd = 1;
        kmcf->etcd_endpoints.data = value[1].data + 5;
        kmcf->etcd_endpoints.len = value[1].len - 5;

    } else if (value[1].len > 5
               && ngx_strncmp(value[1].data, "lmdb:", 5) == 0)
    {
        etcd = 0;
        kmcf->storage_dir.data = value[1].data + 5;
        kmcf->storage_dir.len = value[1].len - 5;

        if (ngx_conf_full_name(cf->cycle, &kmcf->storage_dir, 0) != NGX_OK) {
            return static_cast<char *>(NGX_CONF_ERROR);
        }

    } else {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "invalid storage \"%V\", expected \"lmdb:<dir>\" "
                           "or \"etcd:<url>[,<url>...]\"", &value[1]);
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    for (i = 2; i < cf->args->nelts; i++) {

        if (!etcd && ngx_strncmp(value[i].data, "map_size=", 9) == 0) {
            s.data = value[i].data + 9;
            s.len = value[i].len - 9;
            size = ngx_parse_offset(&s);   /* accepts k, m and g */
            if (size <= 0) {
                goto invalid;
            }
            kmcf->map_size = static_cast<size_t>(size);
            continue;
        }

        if (!etcd && ngx_strncmp(value[i].data, "max_readers=", 12) == 0) {
            n = ngx_atoi(value[i].data + 12, value[i].len - 12);
            if (n <= 0) {
                goto invalid;
            }
            kmcf->max_readers = static_cast<ngx_uint_t>(n);
            continue;
        }

        /* a key prefix as kube-apiserver's --etcd-prefix: "/registry" */
        if (etcd && ngx_strncmp(value[i].data, "prefix=", 7) == 0) {
            kmcf->etcd_prefix.data = value[i].data + 7;
            kmcf->etcd_prefix.len = value[i].len - 7;
            if (kmcf->etcd_prefix.len < 2
                || kmcf->etcd_prefix.data[0] != '/'
                || kmcf->etcd_prefix.data[kmcf->etcd_prefix.len - 1] == '/')
            {
                goto invalid;
            }
            continue;
        }

        /* events expire this long after their last write, as with
         * kube-apiserver's --event-ttl; 0: never */
        if (etcd && ngx_strncmp(value[i].data, "event_ttl=", 10) == 0) {
            s.data = value[i].data + 10;
            s.len = value[i].len - 10;
            ttl = ngx_parse_time(&s, 1);
            if (ttl == (time_t) NGX_ERROR) {
                goto invalid;
            }
            kmcf->etcd_event_ttl = ttl;
            continue;
        }

        /* TLS to etcd (https:// endpoints): PEM files, relative to the
         * configuration prefix */
        file = NULL;

        if (etcd && ngx_strncmp(value[i].data, "cacert=", 7) == 0) {
            file = &kmcf->etcd_cacert;
            file->data = value[i].data + 7;
            file->len = value[i].len - 7;

        } else if (etcd && ngx_strncmp(value[i].data, "cert=", 5) == 0) {
            file = &kmcf->etcd_cert;
            file->data = value[i].data + 5;
            file->len = value[i].len - 5;

        } else if (etcd && ngx_strncmp(value[i].data, "key=", 4) == 0) {
            file = &kmcf->etcd_key;
            file->data = value[i].data + 4;
            file->len = value[i].len - 4;
        }

        if (file != NULL) {
            if (file->len == 0) {
                goto invalid;
            }
            if (ngx_conf_full_name(cf->cycle, file, 1) != NGX_OK) {
                return static_cast<char *>(NGX_CONF_ERROR);
            }
            continue;
        }

        goto invalid;
    }

    if ((kmcf->etcd_cert.data == NULL) != (kmcf->etcd_key.data == NULL)) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"cert=\" and \"key=\" go together");
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    if ((kmcf->etcd_cacert.data || kmcf->etcd_cert.data)
        && ngx_strlcasestrn(kmcf->etcd_endpoints.data,
                            kmcf->etcd_endpoints.data
                            + kmcf->etcd_endpoints.len,
                            (u_char *) "http://", 7 - 1) != NULL)
    {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"cacert=\", \"cert=\" and \"key=\" need "
                           "\"https://\" endpoints in \"%V\"", &value[1]);
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    return NGX_CONF_OK;

invalid:

    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                       "invalid parameter \"%V\"", &value[i]);
    return static_cast<char *>(NGX_CONF_ERROR);
}


char *
ngx_http_kube_watch_cache_size(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_kube_main_conf_t *kmcf =
        static_cast<ngx_http_kube_main_conf_t *>(conf);

    ssize_t     size;
    ngx_str_t  *value, s;

    if (kmcf->watch_cache_size != NGX_CONF_UNSET_SIZE) {
        return const_cast<char *>("is duplicate");
    }

    value = static_cast<ngx_str_t *>(cf->args->elts);

    size = ngx_parse_size(&value[1]);
    if (size == NGX_ERROR) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "invalid size \"%V\"", &value[1]);
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    kmcf->watch_cache_size = static_cast<size_t>(size);

    if (cf->args->nelts == 2) {
        return NGX_CONF_OK;
    }

    if (ngx_strncmp(value[2].data, "resource=", 9) != 0) {
        goto invalid;
    }

    s.data = value[2].data + 9;
    s.len = value[2].len - 9;

    size = ngx_parse_size(&s);
    if (size == NGX_ERROR) {
        goto invalid;
    }

    kmcf->watch_cache_resource_size = static_cast<size_t>(size);

    return NGX_CONF_OK;

invalid:

    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                       "invalid parameter \"%V\"", &value[2]);
    return static_cast<char *>(NGX_CONF_ERROR);
}


/* kube_authorization_mode <mode> ...: kube-apiserver's --authorization-mode,
 * the modes asked in order */
char *
ngx_http_kube_authorization_mode(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_kube_loc_conf_t *klcf =
        static_cast<ngx_http_kube_loc_conf_t *>(conf);

    ngx_str_t   *value;
    ngx_uint_t   i, j, *mode;

    if (klcf->authorization_modes != NGX_CONF_UNSET_PTR) {
        return const_cast<char *>("is duplicate");
    }

    klcf->authorization_modes = ngx_array_create(cf->pool, cf->args->nelts,
                                                  sizeof(ngx_uint_t));
    if (klcf->authorization_modes == NULL) {
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    value = static_cast<ngx_str_t *>(cf->args->elts);

    for (i = 1; i < cf->args->nelts; i++) {
        std::string error;
        std::optional<kube::authz::Mode> m = kube::authz::parseMode(
            std::string_view(reinterpret_cast<char *>(value[i].data),
                             value[i].len),
            &error);

        if (!m) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "%s in \"%V\" directive",
                               error.c_str(), &cmd->name);
            return static_cast<char *>(NGX_CONF_ERROR);
        }

        for (j = 1; j < i; j++) {
            if (value[j].len == value[i].len
                && ngx_strncmp(value[j].data, value[i].data, value[i].len) == 0)
            {
                ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                                   "authorization mode \"%V\" is given twice "
                                   "in \"%V\" directive",
                                   &value[i], &cmd->name);
                return static_cast<char *>(NGX_CONF_ERROR);
            }
        }

        mode = static_cast<ngx_uint_t *>(
            ngx_array_push(klcf->authorization_modes));
        if (mode == NULL) {
            return static_cast<char *>(NGX_CONF_ERROR);
        }
        *mode = static_cast<ngx_uint_t>(*m);
    }

    return NGX_CONF_OK;
}


void
ngx_http_kube_delete_abac(void *data)
{
    delete static_cast<kube::authz::AbacAuthorizer *>(data);
}


/* kube_authorization_policy_file <path>: kube-apiserver's
 * --authorization-policy-file, read now (a reload reads it again) */
char *
ngx_http_kube_authorization_policy_file(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf)
try {
    ngx_http_kube_loc_conf_t *klcf =
        static_cast<ngx_http_kube_loc_conf_t *>(conf);

    ngx_str_t           *value;
    ngx_pool_cleanup_t  *cln;

    if (klcf->authorization_policy_file.data) {
        return const_cast<char *>("is duplicate");
    }

    value = static_cast<ngx_str_t *>(cf->args->elts);
    klcf->authorization_policy_file = value[1];

    if (ngx_conf_full_name(cf->cycle, &klcf->authorization_policy_file, 1)
        != NGX_OK)
    {
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    std::string path(
        reinterpret_cast<char *>(klcf->authorization_policy_file.data),
        klcf->authorization_policy_file.len);
    std::string error;
    std::optional<kube::authz::AbacAuthorizer> abac =
        kube::authz::AbacAuthorizer::load(path, &error);

    if (!abac) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "%s", error.c_str());
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    cln = ngx_pool_cleanup_add(cf->pool, 0);
    if (cln == NULL) {
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    klcf->abac = new kube::authz::AbacAuthorizer(std::move(*abac));
    cln->handler = ngx_http_kube_delete_abac;
    cln->data = klcf->abac;

    return NGX_CONF_OK;

} catch (const std::exception &e) {
    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "\"%V\": %s", &cmd->name,
                       e.what());
    return static_cast<char *>(NGX_CONF_ERROR);
}


/* the modes default to AlwaysAllow; ABAC and its policy file go together, as
 * kube-apiserver's flags do */
char *
ngx_http_kube_merge_authorization(ngx_conf_t *cf,
    ngx_http_kube_loc_conf_t *prev, ngx_http_kube_loc_conf_t *conf)
{
    ngx_uint_t   i, *modes, *mode;
    ngx_flag_t   abac;

    if (conf->authorization_policy_file.data == NULL) {
        conf->authorization_policy_file = prev->authorization_policy_file;
        conf->abac = prev->abac;
    }

    ngx_conf_merge_ptr_value(conf->authorization_modes,
                             prev->authorization_modes, NULL);

    if (conf->authorization_modes == NULL) {
        conf->authorization_modes = ngx_array_create(cf->pool, 1,
                                                     sizeof(ngx_uint_t));
        if (conf->authorization_modes == NULL) {
            return static_cast<char *>(NGX_CONF_ERROR);
        }

        mode = static_cast<ngx_uint_t *>(
            ngx_array_push(conf->authorization_modes));
        if (mode == NULL) {
            return static_cast<char *>(NGX_CONF_ERROR);
        }
        *mode = static_cast<ngx_uint_t>(kube::authz::Mode::AlwaysAllow);
    }

    if (!conf->api) {
        return NGX_CONF_OK;
    }

    abac = 0;
    modes = static_cast<ngx_uint_t *>(conf->authorization_modes->elts);
    for (i = 0; i < conf->authorization_modes->nelts; i++) {
        if (modes[i] == static_cast<ngx_uint_t>(kube::authz::Mode::ABAC)) {
            abac = 1;
        }
    }

    if (abac && conf->abac == NULL) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "authorization mode \"ABAC\" requires "
                           "\"kube_authorization_policy_file\"");
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    if (!abac && conf->abac != NULL) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"kube_authorization_policy_file\" requires "
                           "authorization mode \"ABAC\"");
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    return NGX_CONF_OK;
}


/* a watch's timeout is drawn between this and twice this: zero is no time */
char *
ngx_http_kube_positive_sec(ngx_conf_t *cf, void *post, void *data)
{
    time_t  *sp = static_cast<time_t *>(data);

    if (*sp <= 0) {
        return const_cast<char *>("must be greater than 0");
    }

    return NGX_CONF_OK;
}


/* a string directive's value, checked by its ngx_http_kube_str_check_t */
char *
ngx_http_kube_check_str(ngx_conf_t *cf, void *post, void *data)
try {
    ngx_http_kube_str_check_t  *check;
    ngx_str_t                  *value = static_cast<ngx_str_t *>(data);
    std::string                 error;

    check = static_cast<ngx_http_kube_str_check_t *>(post);

    if (!check->valid(
            std::string_view(reinterpret_cast<char *>(value->data), value->len),
            &error))
    {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "%s", error.c_str());
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    return NGX_CONF_OK;

} catch (const std::exception &e) {
    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "kube-apiserver: %s", e.what());
    return static_cast<char *>(NGX_CONF_ERROR);
}


ngx_int_t
ngx_http_kube_init(ngx_conf_t *cf)
{
    ngx_http_kube_main_conf_t  *kmcf;

    kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_http_conf_get_module_main_conf(cf, ngx_http_kube_apiserver_module));

    if (kmcf->enabled && kmcf->storage_dir.data == NULL
        && kmcf->etcd_endpoints.data == NULL)
    {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"kube_api\" requires \"kube_storage\" "
                           "in the http block");
        return NGX_ERROR;
    }

    if (kmcf->enabled) {
        kmcf->thread_pool = ngx_thread_pool_add(cf, &kmcf->thread_pool_name);
        if (kmcf->thread_pool == NULL) {
            return NGX_ERROR;
        }

        if (ngx_http_kube_metrics_add_zone(cf) != NGX_OK) {
            return NGX_ERROR;
        }

        if (ngx_http_kube_flowcontrol_add_zone(cf) != NGX_OK) {
            return NGX_ERROR;
        }

        if (ngx_http_kube_paths_add_check(cf) != NGX_OK) {
            return NGX_ERROR;
        }

        if (ngx_http_kube_authn_client_cas(cf, kmcf) != NGX_OK) {
            return NGX_ERROR;
        }
    }

    /* handlers of a phase run last-registered first: authorization (ACCESS);
     * in PREACCESS authentication, audit, impersonation, then flow control */

    if (ngx_http_kube_add_handler(cf, NGX_HTTP_ACCESS_PHASE,
                                  ngx_http_kube_authz_handler)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    /* flow control classifies by the user the request acts as */
    if (ngx_http_kube_add_handler(cf, NGX_HTTP_PREACCESS_PHASE,
                                  ngx_http_kube_flowcontrol_handler)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    if (ngx_http_kube_add_handler(cf, NGX_HTTP_PREACCESS_PHASE,
                                  ngx_http_kube_impersonation_handler)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    /* audit runs right after authentication, before impersonation, so its
     * event keeps the authenticated user (kube's WithAudit wraps
     * WithImpersonation) */
    if (ngx_http_kube_audit_add_handlers(cf) != NGX_OK) {
        return NGX_ERROR;
    }

    if (ngx_http_kube_metrics_add_handlers(cf) != NGX_OK) {
        return NGX_ERROR;
    }

    if (ngx_http_kube_add_handler(cf, NGX_HTTP_PREACCESS_PHASE,
                                  ngx_http_kube_authn_handler)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    /* before authentication, as kube's WithCORS wraps it */
    if (ngx_http_kube_add_handler(cf, NGX_HTTP_PREACCESS_PHASE,
                                  ngx_http_kube_cors_handler)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    /* before CORS, as kube's WithRequestDeadline wraps it */
    if (ngx_http_kube_add_handler(cf, NGX_HTTP_PREACCESS_PHASE,
                                  ngx_http_kube_deadline_handler)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    return ngx_http_kube_filters_init(cf);
}


ngx_int_t
ngx_http_kube_init_module(ngx_cycle_t *cycle)
{
    ngx_http_kube_main_conf_t  *kmcf;

    ngx_http_kube_log_heap(cycle->log);

    kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_http_cycle_get_module_main_conf(cycle,
                                            ngx_http_kube_apiserver_module));
    if (kmcf == NULL || !kmcf->enabled) {
        return NGX_OK;
    }

    ngx_http_kube_let_workers_stop_master(cycle);

    /* before fork: every worker inherits every worker's eventfd */
    return ngx_http_kube_wake_create(cycle);
}


ngx_int_t
ngx_http_kube_init_process(ngx_cycle_t *cycle)
{
    /* first: the worker's start hands flow control its classifier */
    if (ngx_http_kube_flowcontrol_init_worker(cycle) != NGX_OK) {
        return NGX_ERROR;
    }

    return ngx_http_kube_init_worker(cycle);
}


void
ngx_http_kube_exit_process(ngx_cycle_t *cycle)
{
    ngx_http_kube_exit_worker(cycle);
    ngx_http_kube_flowcontrol_exit_worker(cycle);
}

}  // namespace
