/*
 * Waking the other workers (spec/nginx-module.md §7): one eventfd per
 * worker, made by the master before fork. A worker that committed writes
 * 1 to every other worker's eventfd; a woken worker reads the store's change
 * feed from where it stopped. A safety poll every second covers a wake-up
 * that was lost (a worker respawned, the old workers of a reload).
 */

#include <sys/eventfd.h>

#include "kube_module.hpp"

namespace {

/* how often a worker reads the change feed without being woken */
constexpr ngx_msec_t kSafetyPollInterval = 1000;

/* The eventfds of one cycle, indexed by ngx_worker. */
struct ngx_http_kube_wake_fds_t {
    ngx_uint_t   n;
    int         *fd;
};

/* the current cycle's, inherited by the workers */
ngx_http_kube_wake_fds_t  *ngx_http_kube_wake_fds;

/* this worker's own eventfd, as a connection in the event loop */
ngx_connection_t          *ngx_http_kube_wake_conn;
ngx_event_t                ngx_http_kube_wake_poll;
ngx_event_t                ngx_http_kube_wake_safety;


void
ngx_http_kube_wake_close_fds(void *data)
{
    ngx_uint_t                 i;
    ngx_http_kube_wake_fds_t  *fds;

    fds = static_cast<ngx_http_kube_wake_fds_t *>(data);

    for (i = 0; i < fds->n; i++) {
        if (fds->fd[i] != -1) {
            (void) close(fds->fd[i]);
            fds->fd[i] = -1;
        }
    }

    if (ngx_http_kube_wake_fds == fds) {
        ngx_http_kube_wake_fds = NULL;
    }
}


/* posted: one change-feed read however many wake-ups came meanwhile */
void
ngx_http_kube_wake_poll_handler(ngx_event_t *ev)
{
    kube::server::Server  *server = ngx_http_kube_server();

    /* a seat freed on another worker dispatched one of ours */
    ngx_http_kube_flowcontrol_resume();

    if (server == NULL) {
        return;
    }

    try {
        server->pollChanges();

    } catch (const std::exception &e) {
        ngx_log_error(NGX_LOG_ALERT, ev->log, 0,
                      "kube-apiserver: reading the change feed failed: %s",
                      e.what());
    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, ev->log, 0,
                      "kube-apiserver: reading the change feed failed");
    }
}


void
ngx_http_kube_wake_post_poll()
{
    if (!ngx_http_kube_wake_poll.posted) {
        ngx_post_event(&ngx_http_kube_wake_poll, &ngx_posted_events);
    }
}


void
ngx_http_kube_wake_read_handler(ngx_event_t *rev)
{
    uint64_t           value;
    ngx_connection_t  *c = static_cast<ngx_connection_t *>(rev->data);

    if (c->close) {
        /* the worker is shutting down; exit_process closes us */
        return;
    }

    /* one read resets the counter; read until empty all the same */
    while (read(c->fd, &value, sizeof(value)) == sizeof(value)) {
        /* void */
    }

    rev->ready = 0;

    ngx_http_kube_wake_post_poll();
}


void
ngx_http_kube_wake_safety_handler(ngx_event_t *ev)
{
    ngx_http_kube_wake_post_poll();

    if (!ngx_exiting) {
        ngx_add_timer(ev, kSafetyPollInterval);
    }
}

}  // namespace


/* init_module, in the master: one eventfd for each worker to come */
ngx_int_t
ngx_http_kube_wake_create(ngx_cycle_t *cycle)
{
    ngx_uint_t                 i;
    ngx_core_conf_t           *ccf;
    ngx_pool_cleanup_t        *cln;
    ngx_http_kube_wake_fds_t  *fds;

    ccf = reinterpret_cast<ngx_core_conf_t *>(
        ngx_get_conf(cycle->conf_ctx, ngx_core_module));

    cln = ngx_pool_cleanup_add(cycle->pool, sizeof(ngx_http_kube_wake_fds_t));
    if (cln == NULL) {
        return NGX_ERROR;
    }

    fds = static_cast<ngx_http_kube_wake_fds_t *>(cln->data);
    fds->n = 0;
    fds->fd = static_cast<int *>(
        ngx_palloc(cycle->pool, ccf->worker_processes * sizeof(int)));
    if (fds->fd == NULL) {
        return NGX_ERROR;
    }

    cln->handler = ngx_http_kube_wake_close_fds;

    for (i = 0; i < static_cast<ngx_uint_t>(ccf->worker_processes); i++) {
        fds->fd[i] = eventfd(0, EFD_NONBLOCK|EFD_CLOEXEC);
        if (fds->fd[i] == -1) {
            ngx_log_error(NGX_LOG_EMERG, cycle->log, ngx_errno,
                          "eventfd() failed");
            return NGX_ERROR;
        }
        fds->n++;
    }

    ngx_http_kube_wake_fds = fds;

    return NGX_OK;
}


/* init_process: this worker listens on its eventfd and polls */
ngx_int_t
ngx_http_kube_wake_init_worker(ngx_cycle_t *cycle)
{
    ngx_connection_t          *c;
    ngx_http_kube_wake_fds_t  *fds = ngx_http_kube_wake_fds;

    /* data is never NULL: nginx's debug log reads a connection from it */
    ngx_http_kube_wake_poll.handler = ngx_http_kube_wake_poll_handler;
    ngx_http_kube_wake_poll.data = cycle;
    ngx_http_kube_wake_poll.log = cycle->log;

    ngx_http_kube_wake_safety.handler = ngx_http_kube_wake_safety_handler;
    ngx_http_kube_wake_safety.data = cycle;
    ngx_http_kube_wake_safety.log = cycle->log;
    ngx_http_kube_wake_safety.cancelable = 1;
    ngx_add_timer(&ngx_http_kube_wake_safety, kSafetyPollInterval);

    /* single-process mode and a worker beyond the count: polling only */
    if (fds == NULL || ngx_worker >= fds->n) {
        return NGX_OK;
    }

    c = ngx_get_connection(fds->fd[ngx_worker], cycle->log);
    if (c == NULL) {
        return NGX_ERROR;
    }

    c->log = cycle->log;
    c->read->handler = ngx_http_kube_wake_read_handler;
    c->read->log = cycle->log;
    c->write->log = cycle->log;

    if (ngx_handle_read_event(c->read, 0) != NGX_OK) {
        ngx_free_connection(c);
        return NGX_ERROR;
    }

    ngx_http_kube_wake_conn = c;

    return NGX_OK;
}


/* the storage commit listener: this worker wrote; wake the others */
void
ngx_http_kube_wake_commit()
{
    ngx_uint_t                 i;
    ngx_http_kube_wake_fds_t  *fds = ngx_http_kube_wake_fds;
    static const uint64_t      one = 1;

    if (fds != NULL) {
        for (i = 0; i < fds->n; i++) {
            if (i == ngx_worker || fds->fd[i] == -1) {
                continue;
            }

            /* EAGAIN: the counter is full, the worker is woken anyway */
            if (write(fds->fd[i], &one, sizeof(one)) == -1
                && ngx_errno != NGX_EAGAIN)
            {
                ngx_log_error(NGX_LOG_ALERT, ngx_cycle->log, ngx_errno,
                              "kube-apiserver: write() to eventfd failed");
            }
        }
    }

    ngx_http_kube_wake_post_poll();
}


/* the etcd replica moved on: every worker has its own, feed our watchers */
void
ngx_http_kube_wake_self()
{
    ngx_http_kube_wake_post_poll();
}


/* flow control dispatched a request that worker `slot` parked */
void
ngx_http_kube_wake_worker(ngx_int_t slot)
{
    ngx_http_kube_wake_fds_t  *fds = ngx_http_kube_wake_fds;
    static const uint64_t      one = 1;

    if (slot == static_cast<ngx_int_t>(ngx_worker)) {
        ngx_http_kube_wake_post_poll();
        return;
    }

    if (fds == NULL || slot < 0 || static_cast<ngx_uint_t>(slot) >= fds->n
        || fds->fd[slot] == -1)
    {
        return;
    }

    if (write(fds->fd[slot], &one, sizeof(one)) == -1
        && ngx_errno != NGX_EAGAIN)
    {
        ngx_log_error(NGX_LOG_ALERT, ngx_cycle->log, ngx_errno,
                      "kube-apiserver: write() to eventfd failed");
    }
}


void
ngx_http_kube_wake_exit_worker(ngx_cycle_t *cycle)
{
    ngx_http_kube_wake_fds_t  *fds = ngx_http_kube_wake_fds;

    if (ngx_http_kube_wake_safety.timer_set) {
        ngx_del_timer(&ngx_http_kube_wake_safety);
    }

    if (ngx_http_kube_wake_poll.posted) {
        ngx_delete_posted_event(&ngx_http_kube_wake_poll);
    }

    if (ngx_http_kube_wake_conn == NULL) {
        return;
    }

    /* this closes the fd; the cycle's cleanup must not close it again */
    ngx_close_connection(ngx_http_kube_wake_conn);
    ngx_http_kube_wake_conn = NULL;

    if (fds != NULL && ngx_worker < fds->n) {
        fds->fd[ngx_worker] = -1;
    }
}
