/*
 * Auditing, as kube-apiserver's WithAuditInit, WithAudit and
 * WithFailedAuthenticationAudit filters do it, as a module of its own
 * (ngx_http_kube_audit_module) beside the API module:
 *
 *   - every API response carries the request's Audit-Id (the client's own
 *     Audit-ID header, or a new UUID), audited or not;
 *   - PREACCESS, right after authentication: the policy decides the level;
 *     RequestReceived is written;
 *   - the authorization filter, the body reader and the answer add the
 *     decision annotations, the request object and the response status and
 *     object (hooks below, called from the other kube_*.cpp files);
 *   - the header filter writes ResponseStarted for long-running requests;
 *   - LOG: ResponseComplete, or for a request that failed authentication
 *     the single ResponseStarted event kube writes; an exception in a
 *     handler writes Panic instead.
 *
 * Events are formatted on the loop and written by one thread per worker
 * (audit::LogWriter) that batches them; a full queue drops the event and
 * counts it. The file is opened with ngx_conf_open_file: `nginx -s reopen`
 * reopens it, and the writer moves to the new descriptor once the lines
 * queued before are out.
 */

#include <memory>

#include "kube_module.hpp"

#include "audit/event.hpp"
#include "audit/log_writer.hpp"
#include "audit/objects.hpp"
#include "audit/policy.hpp"
#include "util/uid.hpp"

extern "C" ngx_module_t ngx_http_kube_audit_module;

namespace {

/* what the writer's queue may hold before events are dropped */
constexpr size_t kDefaultAuditBuffer = 8 * 1024 * 1024;
/* how often counters reach /metrics, drops are logged and a reopened file
 * is taken up when no event came to do it */
constexpr ngx_msec_t kAuditTick = 1000;

struct ngx_http_kube_audit_main_conf_t {
    ngx_str_t                 policy_file;   /* kube_audit_policy_file */
    kube::audit::Policy      *policy;
    ngx_open_file_t          *log;           /* kube_audit_log; NULL: off */
    size_t                    buffer;        /* kube_audit_log buffer= */
    ngx_flag_t                log_set;
};

/* One request's audit state; in the request pool, found again after an
 * internal redirect cleared the module contexts (an error page). */
struct ngx_http_kube_audit_ctx_t {
    std::string                       audit_id;
    bool                              evaluated = false;
    bool                              header_sent = false;
    bool                              long_running = false;
    bool                              done = false;
    kube::audit::RequestAuditConfig   config;
    /* set when the level is above None */
    std::unique_ptr<kube::audit::Event>  event;
    /* what the answer said; its code is the status nginx sent */
    std::optional<kube::audit::ResponseStatus>  response;
};

struct ngx_http_kube_audit_worker_t {
    std::unique_ptr<kube::audit::LogWriter>  writer;
    ngx_open_file_t                         *log;
    bool                                     reopened = false;
    uint64_t                                 failed = 0;
    uint64_t                                 dropped = 0;
    ngx_event_t                              tick{};
};

ngx_http_kube_audit_worker_t  *ngx_http_kube_audit_worker;

ngx_http_output_header_filter_pt  ngx_http_next_header_filter;


ngx_int_t ngx_http_kube_audit_init(ngx_conf_t *cf);
void *ngx_http_kube_audit_create_main_conf(ngx_conf_t *cf);
char *ngx_http_kube_audit_init_main_conf(ngx_conf_t *cf, void *conf);
char *ngx_http_kube_audit_policy_file(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
char *ngx_http_kube_audit_log(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);
ngx_int_t ngx_http_kube_audit_init_process(ngx_cycle_t *cycle);
void ngx_http_kube_audit_exit_process(ngx_cycle_t *cycle);


ngx_command_t ngx_http_kube_audit_commands[] = {

    { ngx_string("kube_audit_policy_file"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_http_kube_audit_policy_file,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("kube_audit_log"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE12,
      ngx_http_kube_audit_log,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

      ngx_null_command
};


ngx_http_module_t ngx_http_kube_audit_module_ctx = {
    NULL,                                  /* preconfiguration */
    ngx_http_kube_audit_init,              /* postconfiguration */

    ngx_http_kube_audit_create_main_conf,  /* create main configuration */
    ngx_http_kube_audit_init_main_conf,    /* init main configuration */

    NULL,                                  /* create server configuration */
    NULL,                                  /* merge server configuration */

    NULL,                                  /* create location configuration */
    NULL                                   /* merge location configuration */
};

}  // namespace


ngx_module_t ngx_http_kube_audit_module = {
    NGX_MODULE_V1,
    &ngx_http_kube_audit_module_ctx,       /* module context */
    ngx_http_kube_audit_commands,          /* module directives */
    NGX_HTTP_MODULE,                       /* module type */
    NULL,                                  /* init master */
    NULL,                                  /* init module */
    ngx_http_kube_audit_init_process,      /* init process */
    NULL,                                  /* init thread */
    NULL,                                  /* exit thread */
    ngx_http_kube_audit_exit_process,      /* exit process */
    NULL,                                  /* exit master */
    NGX_MODULE_V1_PADDING
};


namespace {

using kube::audit::Level;
using kube::audit::Stage;

ngx_http_kube_audit_main_conf_t *
ngx_http_kube_audit_conf(ngx_http_request_t *r)
{
    return static_cast<ngx_http_kube_audit_main_conf_t *>(
        ngx_http_get_module_main_conf(r, ngx_http_kube_audit_module));
}


void
ngx_http_kube_audit_ctx_cleanup(void *data)
{
    static_cast<ngx_http_kube_audit_ctx_t *>(data)
        ->~ngx_http_kube_audit_ctx_t();
}


/* The request's audit state, or NULL when it has none yet. */
ngx_http_kube_audit_ctx_t *
ngx_http_kube_audit_find(ngx_http_request_t *r)
{
    ngx_pool_cleanup_t         *cln;
    ngx_http_kube_audit_ctx_t  *actx;

    actx = static_cast<ngx_http_kube_audit_ctx_t *>(
        ngx_http_get_module_ctx(r->main, ngx_http_kube_audit_module));
    if (actx) {
        return actx;
    }

    for (cln = r->main->pool->cleanup; cln; cln = cln->next) {
        if (cln->handler == ngx_http_kube_audit_ctx_cleanup) {
            return static_cast<ngx_http_kube_audit_ctx_t *>(cln->data);
        }
    }

    return NULL;
}


/* The audit state of an API request (one the director claims), made on
 * first use with the request's audit ID; NULL for other requests. */
ngx_http_kube_audit_ctx_t *
ngx_http_kube_audit_get(ngx_http_request_t *r)
{
    ngx_pool_cleanup_t         *cln;
    ngx_http_kube_ctx_t        *ctx;
    ngx_http_kube_audit_ctx_t  *actx;

    if (r != r->main) {
        return NULL;
    }

    actx = ngx_http_kube_audit_find(r);
    if (actx) {
        return actx;
    }

    ctx = ngx_http_kube_find_ctx(r);
    if (ctx == NULL || ctx->route == kube::server::Route::None) {
        return NULL;
    }

    cln = ngx_pool_cleanup_add(r->pool, sizeof(ngx_http_kube_audit_ctx_t));
    if (cln == NULL) {
        return NULL;
    }

    actx = new (cln->data) ngx_http_kube_audit_ctx_t();
    cln->handler = ngx_http_kube_audit_ctx_cleanup;

    /* kube's WithAuditInit: the client's own ID is kept */
    std::string_view id = ngx_http_kube_request_header(r, "audit-id");
    actx->audit_id = id.empty() ? kube::util::newUid() : std::string(id);

    ngx_http_set_ctx(r, actx, ngx_http_kube_audit_module);

    return actx;
}


kube::audit::MicroTime
ngx_http_kube_audit_now()
{
    return std::chrono::floor<std::chrono::microseconds>(
        kube::audit::Clock::now());
}


/* mirrors kube-apiserver's BasicLongRunningRequestCheck(watch, proxy;
 * attach, exec, proxy, log, portforward) */
bool
ngx_http_kube_audit_long_running(const kube::endpoints::RequestInfo &info)
{
    static const std::string_view verbs[] = { "watch", "proxy" };
    static const std::string_view subresources[] = {
        "attach", "exec", "proxy", "log", "portforward"
    };

    for (std::string_view v : verbs) {
        if (info.verb == v) {
            return true;
        }
    }

    if (!info.isResourceRequest) {
        return false;
    }

    for (std::string_view s : subresources) {
        if (info.subresource == s) {
            return true;
        }
    }

    return false;
}


/* A new fd for the writer after `nginx -s reopen`: see the flush handler */
void
ngx_http_kube_audit_take_reopened(ngx_http_kube_audit_worker_t *w)
{
    if (!w->reopened) {
        return;
    }

    w->reopened = false;

    if (w->log->fd != NGX_INVALID_FILE) {
        w->writer->reopen(w->log->fd);
    }
}


/* mirrors filters.processAuditEvent: omitted stages are skipped; the
 * stage's time is the request's for RequestReceived, now otherwise */
void
ngx_http_kube_audit_process(ngx_http_request_t *r,
    ngx_http_kube_audit_ctx_t *actx, Stage stage)
{
    ngx_http_kube_audit_worker_t  *w = ngx_http_kube_audit_worker;
    kube::audit::Event            &ev = *actx->event;

    if (actx->config.omitStages.has(stage)) {
        return;
    }

    ev.stage = stage;
    ev.stageTimestamp = (stage == Stage::RequestReceived)
                        ? ev.requestReceivedTimestamp
                        : ngx_http_kube_audit_now();

    ngx_http_kube_metrics_audit_event();

    if (w == NULL) {
        return;
    }

    ngx_http_kube_audit_take_reopened(w);

    if (!w->writer->write(kube::audit::serialize(ev))) {
        ngx_http_kube_metrics_audit_errors(NGX_HTTP_KUBE_AUDIT_PLUGIN_BUFFERED,
                                           1);
    }
}


/* The event's responseStatus: what the answer said, with the code nginx
 * sent; kube's "Connection closed early" when nothing was sent. */
void
ngx_http_kube_audit_set_status(ngx_http_request_t *r,
    ngx_http_kube_audit_ctx_t *actx)
{
    kube::audit::ResponseStatus  rs;

    if (actx->response) {
        rs = *actx->response;
    }

    if (r->headers_out.status) {
        rs.code = static_cast<int>(r->headers_out.status);

    } else if (rs.code == 0) {
        rs.code = NGX_HTTP_OK;
        rs.fields = "\"status\":\"Success\","
                    "\"message\":\"Connection closed early\"";
    }

    actx->event->responseStatus = std::move(rs);
}


/* kube's evaluatePolicyAndCreateAuditEvent for `user` */
void
ngx_http_kube_audit_evaluate(ngx_http_request_t *r,
    ngx_http_kube_audit_ctx_t *actx, ngx_http_kube_ctx_t *ctx,
    const kube::authn::UserInfo &user, kube::audit::MicroTime received)
{
    ngx_http_kube_audit_main_conf_t  *amcf = ngx_http_kube_audit_conf(r);

    actx->evaluated = true;

    kube::authz::Attributes attrs = kube::authz::attributesOf(user, ctx->info);
    actx->config = amcf->policy->evaluate(attrs);

    ngx_http_kube_metrics_audit_level(
        static_cast<ngx_uint_t>(actx->config.level));

    if (actx->config.level == Level::None) {
        return;
    }

    kube::audit::RequestFacts facts;
    facts.auditID = actx->audit_id;
    facts.requestURI = ngx_http_kube_view(r->unparsed_uri);
    facts.userAgent = r->headers_in.user_agent
                      ? ngx_http_kube_view(r->headers_in.user_agent->value)
                      : std::string_view();
    facts.sourceIPs = kube::audit::sourceIPs(
        ngx_http_kube_request_header(r, "x-forwarded-for"),
        ngx_http_kube_request_header(r, "x-real-ip"),
        ngx_http_kube_view(r->connection->addr_text));
    facts.received = received;

    actx->event = std::make_unique<kube::audit::Event>(
        kube::audit::newEventFromRequest(facts, actx->config.level, attrs));
    actx->long_running = ngx_http_kube_audit_long_running(ctx->info);
}


bool
ngx_http_kube_audit_enabled(ngx_http_request_t *r)
{
    ngx_http_kube_audit_main_conf_t  *amcf = ngx_http_kube_audit_conf(r);

    return amcf->policy != NULL && amcf->log != NULL;
}


/* The audit state of a request whose event is being written. */
ngx_http_kube_audit_ctx_t *
ngx_http_kube_audit_active(ngx_http_request_t *r)
{
    ngx_http_kube_audit_ctx_t  *actx;

    actx = ngx_http_kube_audit_find(r);
    if (actx == NULL || actx->event == nullptr || actx->done) {
        return NULL;
    }

    return actx;
}


void
ngx_http_kube_audit_alert(ngx_http_request_t *r, const char *what)
{
    ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                  "kube-apiserver: audit: unexpected exception in %s", what);
}


/* mirrors WithAudit up to RequestReceived: runs right after
 * authentication, before impersonation and authorization */
ngx_int_t
ngx_http_kube_audit_handler(ngx_http_request_t *r)
try {
    ngx_http_kube_ctx_t        *ctx;
    ngx_http_kube_loc_conf_t   *klcf;
    ngx_http_kube_audit_ctx_t  *actx;

    if (r != r->main || !ngx_http_kube_audit_enabled(r)) {
        return NGX_DECLINED;
    }

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));
    if (!klcf->api) {
        return NGX_DECLINED;
    }

    ctx = ngx_http_kube_find_ctx(r);
    if (ctx == NULL || ctx->route == kube::server::Route::None
        || !ctx->authenticated)
    {
        return NGX_DECLINED;
    }

    actx = ngx_http_kube_audit_get(r);
    if (actx == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    if (actx->evaluated) {
        return NGX_DECLINED;
    }

    ngx_http_kube_audit_evaluate(r, actx, ctx, ctx->user,
                                 ngx_http_kube_audit_now());

    if (actx->event) {
        ngx_http_kube_audit_process(r, actx, Stage::RequestReceived);
    }

    return NGX_DECLINED;

} catch (...) {
    ngx_http_kube_audit_alert(r, "the audit filter");
    return NGX_HTTP_INTERNAL_SERVER_ERROR;
}


/* WithAuditInit's Audit-Id header, and auditResponseWriter's
 * ResponseStarted for a long-running request */
ngx_int_t
ngx_http_kube_audit_header_filter(ngx_http_request_t *r)
{
    ngx_table_elt_t            *h;
    ngx_http_kube_audit_ctx_t  *actx;

    try {
        actx = ngx_http_kube_audit_get(r);

        if (actx && !actx->header_sent) {
            actx->header_sent = true;

            h = static_cast<ngx_table_elt_t *>(
                ngx_list_push(&r->headers_out.headers));
            if (h == NULL) {
                return NGX_ERROR;
            }

            h->hash = 1;
            h->key.data = (u_char *) kube::audit::kAuditIdHeader;
            h->key.len = ngx_strlen(h->key.data);
            h->value.len = actx->audit_id.size();
            h->value.data = static_cast<u_char *>(
                ngx_pnalloc(r->pool, actx->audit_id.size()));
            if (h->value.data == NULL) {
                return NGX_ERROR;
            }
            ngx_memcpy(h->value.data, actx->audit_id.data(),
                       actx->audit_id.size());

            if (actx->event && actx->long_running && !actx->done) {
                ngx_http_kube_audit_set_status(r, actx);
                ngx_http_kube_audit_process(r, actx, Stage::ResponseStarted);
            }
        }

    } catch (...) {
        ngx_http_kube_audit_alert(r, "the audit header filter");
    }

    return ngx_http_next_header_filter(r);
}


/* ResponseComplete; for a request authentication refused, kube's
 * WithFailedAuthenticationAudit event (one ResponseStarted, no user) */
ngx_int_t
ngx_http_kube_audit_log_handler(ngx_http_request_t *r)
try {
    ngx_http_kube_ctx_t        *ctx;
    ngx_http_kube_audit_ctx_t  *actx;

    if (r != r->main || !ngx_http_kube_audit_enabled(r)) {
        return NGX_OK;
    }

    actx = ngx_http_kube_audit_find(r);

    if (actx && actx->event && !actx->done) {
        actx->done = true;
        ngx_http_kube_audit_set_status(r, actx);
        ngx_http_kube_audit_process(r, actx, Stage::ResponseComplete);
        return NGX_OK;
    }

    if (actx == NULL || actx->evaluated
        || r->headers_out.status != NGX_HTTP_UNAUTHORIZED)
    {
        return NGX_OK;
    }

    ctx = ngx_http_kube_find_ctx(r);
    if (ctx == NULL || ctx->route == kube::server::Route::None
        || ctx->authenticated)
    {
        return NGX_OK;
    }

    kube::audit::MicroTime received{std::chrono::microseconds(
        (static_cast<int64_t>(r->start_sec) * 1000 + r->start_msec) * 1000)};

    ngx_http_kube_audit_evaluate(r, actx, ctx, kube::authn::UserInfo{},
                                 received);

    if (actx->event) {
        actx->done = true;
        ngx_http_kube_audit_set_status(r, actx);
        ngx_http_kube_audit_process(r, actx, Stage::ResponseStarted);
    }

    return NGX_OK;

} catch (...) {
    ngx_http_kube_audit_alert(r, "the audit log phase");
    return NGX_OK;
}


/* Moves events' counters the writer thread keeps to /metrics, says when
 * events were lost, and takes up a reopened file. */
void
ngx_http_kube_audit_tick(ngx_event_t *ev)
{
    ngx_http_kube_audit_worker_t *w =
        static_cast<ngx_http_kube_audit_worker_t *>(ev->data);

    try {
        ngx_http_kube_audit_take_reopened(w);

    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, ev->log, 0,
                      "kube-apiserver: audit: cannot take up the reopened "
                      "log");
    }

    uint64_t failed = w->writer->failed();
    uint64_t dropped = w->writer->dropped();

    if (failed > w->failed) {
        ngx_log_error(NGX_LOG_ERR, ev->log, w->writer->lastErrno(),
                      "kube-apiserver: audit: %uL events could not be "
                      "written to \"%V\"", failed - w->failed, &w->log->name);
        ngx_http_kube_metrics_audit_errors(NGX_HTTP_KUBE_AUDIT_PLUGIN_LOG,
                                           failed - w->failed);
        w->failed = failed;
    }

    if (dropped > w->dropped) {
        ngx_log_error(NGX_LOG_WARN, ev->log, 0,
                      "kube-apiserver: audit: %uL events dropped, more than "
                      "the kube_audit_log buffer waited to be written",
                      dropped - w->dropped);
        w->dropped = dropped;
    }

    if (!ngx_exiting) {
        ngx_add_timer(ev, kAuditTick);
    }
}


/* Called by ngx_reopen_files() just before it reopens the file: what is
 * queued still goes to the old descriptor, which nginx closes right after;
 * the writer holds its own duplicate, and is handed the new one next. */
void
ngx_http_kube_audit_flush(ngx_open_file_t *file, ngx_log_t *log)
{
    if (ngx_http_kube_audit_worker && ngx_http_kube_audit_worker->log == file) {
        ngx_http_kube_audit_worker->reopened = true;
    }
}


void
ngx_http_kube_audit_policy_cleanup(void *data)
{
    delete static_cast<kube::audit::Policy *>(data);
}


void *
ngx_http_kube_audit_create_main_conf(ngx_conf_t *cf)
{
    ngx_http_kube_audit_main_conf_t  *amcf;

    amcf = static_cast<ngx_http_kube_audit_main_conf_t *>(
        ngx_pcalloc(cf->pool, sizeof(ngx_http_kube_audit_main_conf_t)));
    if (amcf == NULL) {
        return NULL;
    }

    /*
     * set by ngx_pcalloc():
     *
     *     amcf->policy_file = { 0, NULL };
     *     amcf->policy = NULL;
     *     amcf->log = NULL;
     *     amcf->log_set = 0;
     */

    amcf->buffer = NGX_CONF_UNSET_SIZE;

    return amcf;
}


char *
ngx_http_kube_audit_init_main_conf(ngx_conf_t *cf, void *conf)
{
    ngx_http_kube_audit_main_conf_t *amcf =
        static_cast<ngx_http_kube_audit_main_conf_t *>(conf);

    ngx_conf_init_size_value(amcf->buffer, kDefaultAuditBuffer);

    if (amcf->log && amcf->policy == NULL) {
        /* kube-apiserver records nothing without a policy either */
        ngx_log_error(NGX_LOG_WARN, cf->log, 0,
                      "\"kube_audit_log\" without \"kube_audit_policy_file\" "
                      "records no events");
    }

    return NGX_CONF_OK;
}


/* kube_audit_policy_file <path>: loaded and checked now, as
 * kube-apiserver's --audit-policy-file is at start */
char *
ngx_http_kube_audit_policy_file(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_kube_audit_main_conf_t *amcf =
        static_cast<ngx_http_kube_audit_main_conf_t *>(conf);

    ngx_str_t           *value;
    ngx_pool_cleanup_t  *cln;

    if (amcf->policy_file.data) {
        return const_cast<char *>("is duplicate");
    }

    value = static_cast<ngx_str_t *>(cf->args->elts);
    amcf->policy_file = value[1];

    if (ngx_conf_full_name(cf->cycle, &amcf->policy_file, 1) != NGX_OK) {
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    try {
        std::string path(ngx_http_kube_view(amcf->policy_file));
        std::string text;

        ngx_fd_t fd = ngx_open_file(path.c_str(), NGX_FILE_RDONLY,
                                    NGX_FILE_OPEN, 0);
        if (fd == NGX_INVALID_FILE) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, ngx_errno,
                               ngx_open_file_n " \"%V\" failed",
                               &amcf->policy_file);
            return static_cast<char *>(NGX_CONF_ERROR);
        }

        char buf[8192];
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0) {
            text.append(buf, n);
        }
        ngx_close_file(fd);

        if (n < 0) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, ngx_errno,
                               "cannot read \"%V\"", &amcf->policy_file);
            return static_cast<char *>(NGX_CONF_ERROR);
        }

        std::string error;
        std::optional<kube::audit::Policy> policy =
            kube::audit::Policy::load(text, &error);
        if (!policy) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "loading audit policy file: %s: from file %V",
                               error.c_str(), &amcf->policy_file);
            return static_cast<char *>(NGX_CONF_ERROR);
        }

        cln = ngx_pool_cleanup_add(cf->pool, 0);
        if (cln == NULL) {
            return static_cast<char *>(NGX_CONF_ERROR);
        }

        amcf->policy = new kube::audit::Policy(std::move(*policy));
        cln->handler = ngx_http_kube_audit_policy_cleanup;
        cln->data = amcf->policy;

    } catch (...) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "unexpected exception loading \"%V\"",
                           &amcf->policy_file);
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    return NGX_CONF_OK;
}


/* kube_audit_log <path>|off [buffer=<size>] */
char *
ngx_http_kube_audit_log(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_kube_audit_main_conf_t *amcf =
        static_cast<ngx_http_kube_audit_main_conf_t *>(conf);

    ssize_t     size;
    ngx_str_t  *value, s;

    if (amcf->log_set) {
        return const_cast<char *>("is duplicate");
    }

    amcf->log_set = 1;
    value = static_cast<ngx_str_t *>(cf->args->elts);

    if (ngx_strcmp(value[1].data, "off") == 0) {
        if (cf->args->nelts > 2) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                               "invalid parameter \"%V\"", &value[2]);
            return static_cast<char *>(NGX_CONF_ERROR);
        }
        return NGX_CONF_OK;
    }

    if (cf->args->nelts > 2) {
        if (ngx_strncmp(value[2].data, "buffer=", 7) != 0) {
            goto invalid;
        }

        s.data = value[2].data + 7;
        s.len = value[2].len - 7;

        size = ngx_parse_size(&s);
        if (size == NGX_ERROR || size == 0) {
            goto invalid;
        }

        amcf->buffer = static_cast<size_t>(size);
    }

    amcf->log = ngx_conf_open_file(cf->cycle, &value[1]);
    if (amcf->log == NULL) {
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    if (amcf->log->flush && amcf->log->flush != ngx_http_kube_audit_flush) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"%V\" is a buffered access log already",
                           &value[1]);
        return static_cast<char *>(NGX_CONF_ERROR);
    }

    amcf->log->flush = ngx_http_kube_audit_flush;

    return NGX_CONF_OK;

invalid:

    ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                       "invalid parameter \"%V\"", &value[2]);
    return static_cast<char *>(NGX_CONF_ERROR);
}


ngx_int_t
ngx_http_kube_audit_init(ngx_conf_t *cf)
{
    if (ngx_http_kube_add_handler(cf, NGX_HTTP_LOG_PHASE,
                                  ngx_http_kube_audit_log_handler)
        != NGX_OK)
    {
        return NGX_ERROR;
    }

    ngx_http_next_header_filter = ngx_http_top_header_filter;
    ngx_http_top_header_filter = ngx_http_kube_audit_header_filter;

    return NGX_OK;
}


ngx_int_t
ngx_http_kube_audit_init_process(ngx_cycle_t *cycle)
try {
    ngx_http_kube_audit_main_conf_t  *amcf;

    amcf = static_cast<ngx_http_kube_audit_main_conf_t *>(
        ngx_http_cycle_get_module_main_conf(cycle,
                                            ngx_http_kube_audit_module));
    if (amcf == NULL || amcf->log == NULL || amcf->policy == NULL) {
        return NGX_OK;
    }

    auto w = std::make_unique<ngx_http_kube_audit_worker_t>();
    w->log = amcf->log;
    w->writer = std::make_unique<kube::audit::LogWriter>(amcf->log->fd,
                                                         amcf->buffer);

    w->tick.handler = ngx_http_kube_audit_tick;
    w->tick.data = w.get();
    w->tick.log = cycle->log;
    w->tick.cancelable = 1;
    ngx_add_timer(&w->tick, kAuditTick);

    ngx_http_kube_audit_worker = w.release();

    return NGX_OK;

} catch (...) {
    ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                  "kube-apiserver: audit: cannot start the log writer");
    return NGX_ERROR;
}


/* Every event of the worker's last requests is written before it exits
 * (a reload's old worker, a stop). */
void
ngx_http_kube_audit_exit_process(ngx_cycle_t *cycle)
{
    ngx_http_kube_audit_worker_t  *w = ngx_http_kube_audit_worker;

    if (w == NULL) {
        return;
    }

    ngx_http_kube_audit_worker = NULL;

    try {
        if (w->tick.timer_set) {
            ngx_del_timer(&w->tick);
        }

        w->writer->close();

        ngx_http_kube_metrics_audit_errors(NGX_HTTP_KUBE_AUDIT_PLUGIN_LOG,
                                           w->writer->failed() - w->failed);

        delete w;

    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, cycle->log, 0,
                      "kube-apiserver: audit: the log writer did not stop "
                      "cleanly");
    }
}

}  // namespace


ngx_int_t
ngx_http_kube_audit_add_handlers(ngx_conf_t *cf)
{
    return ngx_http_kube_add_handler(cf, NGX_HTTP_PREACCESS_PHASE,
                                     ngx_http_kube_audit_handler);
}


/* LogRequestObject / LogRequestPatch: the body the handler decodes */
void
ngx_http_kube_audit_request_body(ngx_http_request_t *r, std::string_view body)
{
    ngx_http_kube_ctx_t        *ctx;
    ngx_http_kube_audit_ctx_t  *actx;

    try {
        actx = ngx_http_kube_audit_active(r);
        if (actx == NULL || body.empty()) {
            return;
        }

        ctx = ngx_http_kube_find_ctx(r);
        if (ctx == NULL) {
            return;
        }

        const std::string &verb = ctx->info.verb;
        bool fillRef = actx->event->objectRef
                       && (verb == "create" || verb == "update");

        if (actx->config.level < Level::Request && !fillRef) {
            return;
        }

        std::string_view type = r->headers_in.content_type
            ? ngx_http_kube_view(r->headers_in.content_type->value)
            : std::string_view();

        kube::util::json::Document doc;
        if (!kube::audit::decodeBody(type, body, doc)) {
            return;
        }

        if (fillRef) {
            kube::audit::fillObjectRef(*actx->event->objectRef, doc);
        }

        if (actx->config.level >= Level::Request) {
            actx->event->requestObject = kube::audit::eventObject(
                doc, actx->config.omitManagedFields);
        }

    } catch (...) {
        ngx_http_kube_audit_alert(r, "logging the request object");
    }
}


/* LogResponseObject: the Status of an error (any level above None), the
 * object answered (RequestResponse); streamed answers have none */
void
ngx_http_kube_audit_response(ngx_http_request_t *r,
    const kube::endpoints::HttpResponse &resp)
{
    ngx_http_kube_audit_ctx_t  *actx;

    try {
        if (resp.stream || !ngx_http_kube_audit_enabled(r)) {
            return;
        }

        actx = ngx_http_kube_audit_get(r);
        if (actx == NULL || actx->done
            || (actx->evaluated && actx->event == nullptr))
        {
            return;
        }

        /* before the policy was evaluated: authentication's refusal, which
         * the log phase may audit */
        bool wantObject = actx->event
            && actx->config.level >= Level::RequestResponse;
        /* a Status is an error's answer, or a delete's: its kind comes
         * first (JSON) or right after the envelope's apiVersion (protobuf) */
        bool maybeStatus = resp.status >= 300
            || std::string_view(resp.body).substr(0, 32).find("Status")
               != std::string_view::npos;

        kube::util::json::Document doc;
        bool decoded = (wantObject || maybeStatus)
            && kube::audit::decodeBody(resp.contentType, resp.body, doc);

        actx->response = kube::audit::responseStatusOf(
            resp.status, decoded ? &doc : nullptr);

        if (wantObject && decoded) {
            actx->event->responseObject = kube::audit::eventObject(
                doc, actx->config.omitManagedFields);
        }

    } catch (...) {
        ngx_http_kube_audit_alert(r, "logging the response object");
    }
}


/* WithAuthorization's annotations */
void
ngx_http_kube_audit_authorized(ngx_http_request_t *r, bool allowed,
    std::string_view reason)
{
    ngx_http_kube_audit_ctx_t  *actx;

    try {
        actx = ngx_http_kube_audit_active(r);
        if (actx == NULL) {
            return;
        }

        auto &a = actx->event->annotations;
        a[kube::audit::kDecisionAnnotation] =
            allowed ? kube::audit::kDecisionAllow : kube::audit::kDecisionForbid;
        a[kube::audit::kReasonAnnotation] = std::string(reason);

    } catch (...) {
        ngx_http_kube_audit_alert(r, "annotating the decision");
    }
}


/* LogImpersonatedUser: for the impersonation filter, once it has replaced
 * the request's user; the event keeps the user who authenticated */
void
ngx_http_kube_audit_impersonated(ngx_http_request_t *r,
    const kube::authn::UserInfo &user)
{
    ngx_http_kube_audit_ctx_t  *actx;

    try {
        actx = ngx_http_kube_audit_active(r);
        if (actx) {
            actx->event->impersonatedUser = user;
        }

    } catch (...) {
        ngx_http_kube_audit_alert(r, "logging the impersonated user");
    }
}


/* WithAudit's recover(): the Panic event replaces ResponseComplete */
void
ngx_http_kube_audit_panic(ngx_http_request_t *r, const char *what)
{
    ngx_http_kube_audit_ctx_t  *actx;

    try {
        actx = ngx_http_kube_audit_active(r);
        if (actx == NULL) {
            return;
        }

        actx->done = true;

        std::string fields = "\"status\":\"Failure\",\"message\":";
        kube::util::json::appendQuoted(
            fields, std::string("APIServer panic'd: ") + what);
        fields += ",\"reason\":\"InternalError\"";

        actx->event->responseStatus =
            kube::audit::ResponseStatus{NGX_HTTP_INTERNAL_SERVER_ERROR,
                                        kube::audit::escapeRawJson(fields)};
        ngx_http_kube_audit_process(r, actx, Stage::Panic);

    } catch (...) {
        ngx_http_kube_audit_alert(r, "logging a panic");
    }
}
