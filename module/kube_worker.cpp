/*
 * What each worker process owns: its event-loop bridge, its handle on the
 * storage (the shared LMDB store or an etcd client, opened after fork, never
 * in the master), and the embedded API server.
 */

#include <sys/eventfd.h>

#include "kube_loop.hpp"
#include "kube_module.hpp"

#include "registry/service/allocation_bitmap.hpp"
#include "server/etcd_value_codec.hpp"
#include "util/file.hpp"
#include "storage/etcd/etcd_store.hpp"
#include "storage/lmdb/lmdb_store.hpp"

/* jemalloc's control interface; present only when nginx runs with
 * libjemalloc preloaded (a module cannot load it itself: static TLS) */
extern "C" int mallctl(const char *name, void *oldp, size_t *oldlenp,
    void *newp, size_t newlen) __attribute__((weak));

namespace {

/* stale LMDB reader slots (of killed workers) pin pages; this often they
 * are cleared */
constexpr ngx_msec_t kReaderCheckInterval = 10000;

/* a graceful stop waits this long at most for the server to let go of what
 * it holds in etcd (its master lease) */
constexpr ngx_msec_t kStopHoldLimit = 3000;

struct Worker {
    std::unique_ptr<kube::module::NginxLoop>    loop;
    std::unique_ptr<kube::storage::Interface>   storage;
    /* one of them, the same object as storage */
    kube::storage::lmdb::Store                 *lmdb = nullptr;
    kube::storage::etcd::Store                 *etcd = nullptr;
    std::unique_ptr<kube::server::Server>       server;
    ngx_event_t                                 reader_check{};
    /* etcd: gRPC's thread writes it when answers wait for the loop; it is
     * marked idle, so that a graceful stop calls its handler first
     * (ngx_close_idle_connections) */
    ngx_connection_t                           *etcd_wake = nullptr;
    /* not cancelable: the worker stays until the server has stopped */
    ngx_event_t                                 stop_hold{};
};

Worker *ngx_http_kube_worker;


void
ngx_http_kube_reader_check(ngx_event_t *ev)
{
    Worker *w = static_cast<Worker *>(ev->data);

    try {
        w->lmdb->checkStaleReaders();
    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, ev->log, 0,
                      "kube-apiserver: stale reader check failed");
    }

    if (!ngx_exiting) {
        ngx_add_timer(ev, kReaderCheckInterval);
    }
}

}  // namespace


void
ngx_http_kube_log_heap(ngx_log_t *log)
{
    const char  *version = NULL;
    size_t       len = sizeof(version);

    if (mallctl != NULL
        && mallctl("version", &version, &len, NULL, 0) == 0
        && version != NULL)
    {
        ngx_log_error(NGX_LOG_NOTICE, log, 0,
                      "kube-apiserver: jemalloc %s is the heap", version);
        return;
    }

    ngx_log_error(NGX_LOG_NOTICE, log, 0,
                  "kube-apiserver: jemalloc is not active, the heap is the C "
                  "library's malloc (run nginx with LD_PRELOAD="
                  "libjemalloc.so.2)");
}


namespace {

void
ngx_http_kube_stop_hold_handler(ngx_event_t *ev)
{
    ngx_log_error(NGX_LOG_WARN, ev->log, 0,
                  "kube-apiserver: the server did not stop in %M ms, exiting",
                  kStopHoldLimit);
}


/* A graceful stop (or the old workers of a reload) has begun: the server
 * lets go of its master lease while the worker waits, up to
 * kStopHoldLimit; a fast stop (SIGTERM) leaves the lease to run out. */
void
ngx_http_kube_stop_server(Worker *w, ngx_log_t *log)
{
    w->stop_hold.handler = ngx_http_kube_stop_hold_handler;
    w->stop_hold.data = w;
    w->stop_hold.log = log;
    ngx_add_timer(&w->stop_hold, kStopHoldLimit);

    try {
        w->server->stop([] {
            Worker *cur = ngx_http_kube_worker;
            if (cur != NULL && cur->stop_hold.timer_set) {
                ngx_del_timer(&cur->stop_hold);
            }
        });

    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, log, 0,
                      "kube-apiserver: stopping the server failed");
        ngx_del_timer(&w->stop_hold);
    }
}


/* etcd answers are waiting: run them on the loop */
void
ngx_http_kube_etcd_wake_handler(ngx_event_t *rev)
{
    uint64_t           value;
    ngx_connection_t  *c = static_cast<ngx_connection_t *>(rev->data);
    Worker            *w = ngx_http_kube_worker;

    if (c->close) {
        /* ngx_close_idle_connections: the worker stops; the connection
         * keeps bringing etcd's answers until the process exits */
        c->close = 0;
        c->idle = 0;
        if (w != NULL && w->server != NULL) {
            ngx_http_kube_stop_server(w, c->log);
        }
    }

    while (read(c->fd, &value, sizeof(value)) == sizeof(value)) {
        /* void */
    }

    rev->ready = 0;

    if (w == NULL || w->etcd == NULL) {
        return;
    }

    try {
        w->etcd->drain();

    } catch (const std::exception &e) {
        ngx_log_error(NGX_LOG_ALERT, rev->log, 0,
                      "kube-apiserver: handling etcd answers failed: %s",
                      e.what());
    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, rev->log, 0,
                      "kube-apiserver: handling etcd answers failed");
    }
}


/* kube_storage etcd:...: an eventfd gRPC's thread wakes the loop with, and
 * the replica, which loads from etcd in the background (the worker serves
 * meanwhile: 503 for the API, /readyz fails until it is loaded) */
ngx_int_t
ngx_http_kube_open_etcd(ngx_cycle_t *cycle, ngx_http_kube_main_conf_t *kmcf,
    Worker *w)
{
    int                fd;
    ngx_connection_t  *c;

    fd = eventfd(0, EFD_NONBLOCK|EFD_CLOEXEC);
    if (fd == -1) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, ngx_errno,
                      "eventfd() failed");
        return NGX_ERROR;
    }

    c = ngx_get_connection(fd, cycle->log);
    if (c == NULL) {
        (void) close(fd);
        return NGX_ERROR;
    }

    c->log = cycle->log;
    c->idle = 1;
    c->read->handler = ngx_http_kube_etcd_wake_handler;
    c->read->log = cycle->log;
    c->write->log = cycle->log;

    if (ngx_handle_read_event(c->read, 0) != NGX_OK) {
        ngx_close_connection(c);
        return NGX_ERROR;
    }

    w->etcd_wake = c;

    kube::storage::etcd::Options opts;
    std::string urls(reinterpret_cast<char *>(kmcf->etcd_endpoints.data),
                     kmcf->etcd_endpoints.len);
    size_t start = 0;
    while (start <= urls.size()) {
        size_t comma = urls.find(',', start);
        if (comma == std::string::npos) {
            comma = urls.size();
        }
        opts.endpoints.push_back(urls.substr(start, comma - start));
        start = comma + 1;
    }
    if (kmcf->etcd_prefix.data != NULL) {
        opts.prefix.assign(
            reinterpret_cast<char *>(kmcf->etcd_prefix.data),
            kmcf->etcd_prefix.len);
    }

    opts.eventTtl = std::chrono::seconds(kmcf->etcd_event_ttl);
    opts.caFile.assign(reinterpret_cast<char *>(kmcf->etcd_cacert.data),
                       kmcf->etcd_cacert.len);
    opts.certFile.assign(reinterpret_cast<char *>(kmcf->etcd_cert.data),
                         kmcf->etcd_cert.len);
    opts.keyFile.assign(reinterpret_cast<char *>(kmcf->etcd_key.data),
                        kmcf->etcd_key.len);

    /* one compactor per host, by kube-apiserver's protocol, so that hosts
     * and kube-apiservers sharing the etcd compact once per interval */
    if (ngx_worker == 0) {
        opts.compactionInterval =
            std::chrono::milliseconds(kmcf->compaction_interval);
    }

    /* values in kube-apiserver's encoding, so that it shares the etcd */
    opts.codec = kube::server::kubeValueCodec();

    /* the worker serves meanwhile (503 for the API) */
    ngx_log_t *log = cycle->log;
    opts.loadFailed = [log, urls](const std::string &why) {
        ngx_log_error(NGX_LOG_WARN, log, 0,
                      "kube-apiserver: etcd:%s cannot be read yet, retrying: %s",
                      urls.c_str(), why.c_str());
    };

    std::string error;
    auto etcd = kube::storage::etcd::Store::open(opts, *w->loop,
        [fd] {
            static const uint64_t one = 1;
            /* EAGAIN: the counter is full, the loop is woken anyway */
            (void) !write(fd, &one, sizeof(one));
        },
        &error);
    if (etcd == nullptr) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "kube-apiserver: cannot open storage \"etcd:%s\": %s",
                      urls.c_str(), error.c_str());
        return NGX_ERROR;
    }

    w->etcd = etcd.get();
    w->storage = std::move(etcd);

    return NGX_OK;
}



/*
 * What the `kubernetes` Service's endpoints name: kube_advertise_address
 * (else the first listening socket's address when it is a specific IPv4
 * one, else 127.0.0.1), and the port of the first listening socket that
 * serves TLS (else the first one), as kube's --advertise-address and
 * --secure-port.
 */
void
ngx_http_kube_advertised(ngx_cycle_t *cycle, ngx_http_kube_main_conf_t *kmcf,
    kube::server::ServerOptions *options)
{
    ngx_uint_t           i;
    ngx_listening_t     *ls, *chosen;
    struct sockaddr_in  *sin;

    chosen = NULL;
    ls = static_cast<ngx_listening_t *>(cycle->listening.elts);

    for (i = 0; i < cycle->listening.nelts; i++) {
        if (ls[i].sockaddr->sa_family != AF_INET) {
            continue;
        }
        if (chosen == NULL) {
            chosen = &ls[i];
        }
#if (NGX_HTTP_SSL)
        ngx_http_port_t *port = static_cast<ngx_http_port_t *>(ls[i].servers);
        if (port != NULL && port->naddrs > 0) {
            ngx_http_in_addr_t *addr =
                static_cast<ngx_http_in_addr_t *>(port->addrs);
            if (addr[0].conf.ssl) {
                chosen = &ls[i];
                break;
            }
        }
#endif
    }

    if (chosen != NULL) {
        sin = reinterpret_cast<struct sockaddr_in *>(chosen->sockaddr);
        options->securePort = ntohs(sin->sin_port);
        if (sin->sin_addr.s_addr != INADDR_ANY) {
            options->advertiseAddress = kube::registry::service::formatIPv4(
                ntohl(sin->sin_addr.s_addr));
        }
    }

    if (kmcf->advertise_address.data != NULL) {
        options->advertiseAddress.assign(
            reinterpret_cast<char *>(kmcf->advertise_address.data),
            kmcf->advertise_address.len);
    }

    /* the CAs the extension-apiserver-authentication ConfigMap shows: the
     * first ssl_client_certificate, and kube_requestheader_client_ca_file */
    std::string error;
#if (NGX_HTTP_SSL)
    ngx_http_core_main_conf_t *cmcf = static_cast<ngx_http_core_main_conf_t *>(
        ngx_http_cycle_get_module_main_conf(cycle, ngx_http_core_module));
    ngx_http_core_srv_conf_t **cscfp =
        static_cast<ngx_http_core_srv_conf_t **>(cmcf->servers.elts);

    for (i = 0; i < cmcf->servers.nelts; i++) {
        ngx_http_ssl_srv_conf_t *sscf = static_cast<ngx_http_ssl_srv_conf_t *>(
            cscfp[i]->ctx->srv_conf[ngx_http_ssl_module.ctx_index]);
        if (sscf == NULL || sscf->client_certificate.len == 0) {
            continue;
        }
        /* made a full path when the ssl module read it */
        std::string path(reinterpret_cast<char *>(sscf->client_certificate.data),
                         sscf->client_certificate.len);
        options->clientCA = kube::util::readFile(path, &error).value_or("");
        break;
    }
#endif
    if (!kmcf->authn->request_header_ca_path.empty()) {
        options->requestHeaderCA =
            kube::util::readFile(kmcf->authn->request_header_ca_path, &error)
                .value_or("");
    }
}

ngx_int_t
ngx_http_kube_start_worker(ngx_cycle_t *cycle)
try {
    ngx_http_kube_main_conf_t  *kmcf;

    kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_http_cycle_get_module_main_conf(cycle,
                                            ngx_http_kube_apiserver_module));
    if (kmcf == NULL || !kmcf->enabled) {
        return NGX_OK;
    }

    ngx_thread_pool_t *pool =
        ngx_thread_pool_get(cycle, &kmcf->thread_pool_name);
    if (pool == NULL) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "kube-apiserver: thread pool \"%V\" not found",
                      &kmcf->thread_pool_name);
        return NGX_ERROR;
    }

    auto w = std::make_unique<Worker>();
    w->loop = std::make_unique<kube::module::NginxLoop>(pool, cycle->log);

    if (kmcf->etcd_endpoints.data != NULL) {
        if (ngx_http_kube_open_etcd(cycle, kmcf, w.get()) != NGX_OK) {
            return NGX_ERROR;
        }

    } else {
        kube::storage::lmdb::Options opts;
        opts.dir.assign(reinterpret_cast<char *>(kmcf->storage_dir.data),
                        kmcf->storage_dir.len);
        opts.mapSize = kmcf->map_size;
        opts.maxReaders = static_cast<unsigned>(kmcf->max_readers);

        std::string error;
        auto lmdb = kube::storage::lmdb::Store::open(opts, *w->loop, &error);
        if (lmdb == nullptr) {
            ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                          "kube-apiserver: cannot open storage \"%s\": %s",
                          opts.dir.c_str(), error.c_str());
            return NGX_ERROR;
        }
        w->lmdb = lmdb.get();
        w->storage = std::move(lmdb);
    }

    kube::server::ServerOptions options;
    options.watchCache = kmcf->watch_cache;
    options.watchCacheHistory.workerBytes = kmcf->watch_cache_size;
    options.watchCacheHistory.resourceBytes = kmcf->watch_cache_resource_size;
    options.compactionInterval =
        std::chrono::milliseconds(kmcf->compaction_interval);
    /* one compactor per host (etcd's compacts by kube's protocol) */
    options.compactor = (ngx_worker == 0 && w->etcd == NULL);
    /* one bootstrap RBAC policy reconciler and aggregator per host */
    options.rbacPolicyOwner = (ngx_worker == 0);
    options.minRequestTimeout = std::chrono::seconds(kmcf->min_request_timeout);
    if (w->etcd != NULL) {
        /* the health check's name, as kube-apiserver's */
        options.storageName = "etcd";
    }
    options.serviceClusterIPRange.assign(
        reinterpret_cast<char *>(kmcf->service_cluster_ip_range.data),
        kmcf->service_cluster_ip_range.len);
    options.serviceNodePortRange.assign(
        reinterpret_cast<char *>(kmcf->service_node_port_range.data),
        kmcf->service_node_port_range.len);
    ngx_http_kube_advertised(cycle, kmcf, &options);
    options.endpointLeases = (kmcf->endpoint_reconciler == 1);
    options.endpointReconcilerTtl =
        std::chrono::seconds(kmcf->endpoint_reconciler_ttl);
    /* hosts on one etcd each keep a lease of their address */
    options.sharedStorage = (w->etcd != NULL);

    w->server = std::make_unique<kube::server::Server>(*w->loop, *w->storage,
                                                       options);

    if (w->etcd != NULL) {
        /* each worker watches etcd itself: feed our watchers only */
        w->storage->setCommitListener([](kube::storage::Revision) {
            ngx_http_kube_wake_self();
        });

    } else {
        /* this worker's commits: wake the other workers and feed our
         * watchers */
        w->storage->setCommitListener([](kube::storage::Revision) {
            ngx_http_kube_wake_commit();
        });
    }

    w->server->setAuthentication(kmcf->authn->config);
    w->server->setMetricsSource(ngx_http_kube_metrics_text);
    /* /readyz fails its "shutdown" check once a graceful stop has begun */
    w->server->health().setShutdownSignal([] {
        return ngx_exiting || ngx_quit || ngx_terminate;
    });
    ngx_http_kube_metrics_init_worker(cycle);
    /* APF's levels share max-requests-inflight + max-mutating-... */
    w->server->setServerConcurrencyLimit(
        ngx_http_kube_flowcontrol_server_concurrency(cycle));
    if (w->etcd != NULL && !w->etcd->loaded()) {
        /* bootstrap and watch caches once the replica is there (always
         * later: it loads in the background) */
        kube::server::Server *server = w->server.get();
        ngx_log_t *log = cycle->log;
        w->etcd->whenLoaded([server, log] {
            ngx_log_error(NGX_LOG_NOTICE, log, 0,
                          "kube-apiserver: etcd was read, starting");
            server->start();
        });

    } else {
        w->server->start();
    }
    ngx_http_kube_flowcontrol_set_classifier(&w->server->flowClassifier());

    ngx_http_kube_authz_init_worker(cycle, w->server.get());

    if (w->lmdb != NULL) {
        w->reader_check.handler = ngx_http_kube_reader_check;
        w->reader_check.data = w.get();
        w->reader_check.log = cycle->log;
        w->reader_check.cancelable = 1;
        ngx_add_timer(&w->reader_check, kReaderCheckInterval);
    }

    ngx_http_kube_worker = w.release();

    if (ngx_http_kube_wake_init_worker(cycle) != NGX_OK) {
        return NGX_ERROR;
    }

    return NGX_OK;

} catch (const std::exception &e) {
    ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                  "kube-apiserver: worker start failed: %s", e.what());
    return NGX_ERROR;
}

}  // namespace


/*
 * A worker may signal its master (ngx_http_kube_init_worker) only if its uid
 * is the master's real or saved uid. A master running as root keeps its real
 * and effective uid 0 and takes the worker user as its saved uid.
 */
void
ngx_http_kube_let_workers_stop_master(ngx_cycle_t *cycle)
{
    ngx_core_conf_t  *ccf;

    ccf = reinterpret_cast<ngx_core_conf_t *>(
        ngx_get_conf(cycle->conf_ctx, ngx_core_module));

    if (ngx_test_config || !ccf->master || geteuid() != 0
        || ccf->user == (ngx_uid_t) NGX_CONF_UNSET_UINT)
    {
        return;
    }

    if (setresuid((uid_t) -1, (uid_t) -1, ccf->user) == -1) {
        ngx_log_error(NGX_LOG_ALERT, cycle->log, ngx_errno,
                      "kube-apiserver: setresuid(-1, -1, %d) failed",
                      ccf->user);
    }
}


/*
 * A worker that cannot start exits with code 2, which nginx's master takes
 * as "do not respawn": it would go on holding the port with no one to serve
 * it, and clients would hang in the TLS handshake. Such a worker stops its
 * master instead (a fast shutdown: the other workers, and on a reload the
 * old ones, cannot serve this configuration either). The master opens the
 * store as the worker user before any worker starts (kube_paths.cpp), so
 * this is the rare failure that check cannot foresee.
 */
ngx_int_t
ngx_http_kube_init_worker(ngx_cycle_t *cycle)
{
    if (ngx_http_kube_start_worker(cycle) == NGX_OK) {
        return NGX_OK;
    }

    /* only the master that spawned us, never whoever inherited us */
    if (ngx_process == NGX_PROCESS_WORKER && getppid() == ngx_parent) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                      "kube-apiserver: the worker cannot start, "
                      "stopping nginx");

        if (kill(ngx_parent, SIGTERM) == -1) {
            ngx_log_error(NGX_LOG_ALERT, cycle->log, ngx_errno,
                          "kube-apiserver: kill(%P, SIGTERM) failed",
                          ngx_parent);
        }
    }

    return NGX_ERROR;
}


void
ngx_http_kube_exit_worker(ngx_cycle_t *cycle)
{
    Worker *w = ngx_http_kube_worker;

    if (w == NULL) {
        return;
    }

    try {
        ngx_http_kube_wake_exit_worker(cycle);

        /* streams still open are abandoned with the process; their sources
         * let go of the server first */
        ngx_http_kube_streams_release(cycle);
        ngx_http_kube_metrics_exit_worker();

        ngx_http_kube_worker = NULL;

        ngx_http_kube_authz_exit_worker();
        ngx_http_kube_flowcontrol_set_classifier(NULL);

        if (w->reader_check.timer_set) {
            ngx_del_timer(&w->reader_check);
        }
        if (w->stop_hold.timer_set) {
            ngx_del_timer(&w->stop_hold);
        }
        w->server.reset();
        /* joins gRPC's thread before its eventfd goes */
        w->storage.reset();
        if (w->etcd_wake != NULL) {
            ngx_close_connection(w->etcd_wake);
        }
        w->loop.reset();
        delete w;

    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, cycle->log, 0,
                      "kube-apiserver: worker exit failed");
    }
}


kube::server::Server *
ngx_http_kube_server()
{
    return ngx_http_kube_worker ? ngx_http_kube_worker->server.get() : NULL;
}
