/*
 * Flow control, as kube-apiserver's WithPriorityAndFairness or, with
 * kube_priority_and_fairness off, WithMaxInFlightLimit: a PREACCESS handler
 * that runs after authentication, audit and impersonation, before
 * authorization.
 *
 * The seats and queues of every level live in one shared memory zone
 * (kube::flowcontrol::SharedState), so that the limits hold for the host,
 * whichever worker a request reaches; each worker is an "owner" there. The
 * zone's mutex guards short critical sections only (src/flowcontrol/
 * queue_set.hpp); while nothing waits, a worker keeps a finished request's
 * seat as its lease and seats its next request at that level without the
 * mutex (the worker's leases table maps the level's name to its slot). A
 * request that must wait is parked: the handler answers
 * NGX_AGAIN and the event loop goes on. A seat freed on any worker
 * dispatches the next request in fair-queuing order and wakes the worker
 * that parked it (kube_wake.cpp: that worker's eventfd; the wake-up poll
 * every second covers a lost one); the woken worker resumes the request's
 * phases. A request waiting longer than kube's request wait limit (15 s),
 * over a Reject level's seats, or beyond a full queue, gets kube's 429. The
 * seat is released when the request is freed (a pool cleanup: also when the
 * client goes away), or, under max-in-flight, once a streamed list starts
 * streaming.
 *
 * Long-running requests (watch, proxy, exec, attach, log, portforward) take
 * no seat; but APF classifies a watch and seats it until it starts, as kube
 * holds a watch's seat until the watch is initialized. With APF on and no
 * configuration read yet, requests pass.
 */

#include <new>

#include "kube_flowcontrol.hpp"

#include "flowcontrol/max_in_flight.hpp"

using kube::flowcontrol::Admission;
using kube::flowcontrol::Dispatcher;
using kube::flowcontrol::Seat;
using kube::flowcontrol::SharedState;
using kube::flowcontrol::Wakes;

namespace {

/* ---- apiserver_flowcontrol_*, where kube's queueset and filter count */

void
ngx_http_kube_fc_note_queued(ngx_http_kube_fc_request_t *fc, ngx_int_t delta)
{
    if (fc->metrics) {
        ngx_http_kube_metrics_flow_add(fc->series,
                                       NGX_HTTP_KUBE_FLOW_INQUEUE, delta);
    }
}


/* Dispatched: counted, its wait observed, executing until finished (an
 * exempt request is counted and timed only, as kube's). */
void
ngx_http_kube_fc_note_executing(ngx_http_kube_fc_request_t *fc,
    std::int64_t now)
{
    if (!fc->metrics) {
        return;
    }

    ngx_http_kube_metrics_flow_add(fc->series, NGX_HTTP_KUBE_FLOW_DISPATCHED,
                                   1);
    fc->started_ns = now;
    fc->executing_counted = true;

    if (fc->exempt) {
        return;
    }

    ngx_http_kube_metrics_flow_observe(fc->series,
        NGX_HTTP_KUBE_FLOW_WAIT_EXECUTED,
        static_cast<uint64_t>(now - fc->arrived_ns));
    ngx_http_kube_metrics_flow_add(fc->series, NGX_HTTP_KUBE_FLOW_EXECUTING, 1);
    ngx_http_kube_metrics_flow_add(fc->series,
                                   NGX_HTTP_KUBE_FLOW_SEATS_IN_USE, 1);
}


void
ngx_http_kube_fc_note_finished(ngx_http_kube_fc_request_t *fc,
    std::int64_t now)
{
    if (!fc->executing_counted) {
        return;
    }

    fc->executing_counted = false;

    ngx_http_kube_metrics_flow_observe(fc->series,
        fc->watch ? NGX_HTTP_KUBE_FLOW_EXECUTION_WATCH
                  : NGX_HTTP_KUBE_FLOW_EXECUTION,
        static_cast<uint64_t>(now - fc->started_ns));

    if (fc->exempt) {
        return;
    }

    ngx_http_kube_metrics_flow_add(fc->series, NGX_HTTP_KUBE_FLOW_EXECUTING,
                                   -1);
    ngx_http_kube_metrics_flow_add(fc->series,
                                   NGX_HTTP_KUBE_FLOW_SEATS_IN_USE, -1);
}


/* reason: queue-full, concurrency-limit, time-out, cancelled */
void
ngx_http_kube_fc_note_rejected(ngx_http_kube_fc_request_t *fc,
    std::string_view reason, std::int64_t now)
{
    if (!fc->metrics) {
        return;
    }

    ngx_http_kube_metrics_flow_rejected(fc->series, reason);
    ngx_http_kube_metrics_flow_observe(fc->series,
        NGX_HTTP_KUBE_FLOW_WAIT_REJECTED,
        static_cast<uint64_t>(now - fc->arrived_ns));
}


/* The lease of the request's level, if this worker has one. */
ngx_http_kube_fc_lease_t *
ngx_http_kube_fc_find_lease(ngx_http_kube_fc_worker_t *w, const char *key)
{
    for (ngx_http_kube_fc_lease_t &lease : w->leases) {
        if (lease.key == key && key != nullptr) {
            return &lease;
        }
    }

    return NULL;
}


void
ngx_http_kube_fc_remember_lease(ngx_http_kube_fc_request_t *fc)
{
    ngx_http_kube_fc_lease_t   *lease;
    ngx_http_kube_fc_worker_t  *w = ngx_http_kube_fc_worker;

    lease = ngx_http_kube_fc_find_lease(w, fc->level_key);
    if (lease == NULL) {
        lease = &w->leases[w->next_lease++ % NGX_HTTP_KUBE_FC_LEASES];
    }

    lease->key = fc->level_key;
    lease->level = fc->seat.level;
    lease->generation = fc->generation;
}


/* Gives back the request's seat, or its place in a queue: a leased seat
 * without the lock while it can, else under it, where the seat may become
 * this worker's lease. */
void
ngx_http_kube_fc_release(ngx_http_kube_fc_request_t *fc)
{
    Wakes             wakes;
    SharedState      *state;
    ngx_slab_pool_t  *shpool;

    if (fc->wait_timer.timer_set) {
        ngx_del_timer(&fc->wait_timer);
    }

    if (fc->wait_timer.posted) {
        ngx_delete_posted_event(&fc->wait_timer);
    }

    if (fc->state == NGX_HTTP_KUBE_FC_WAITING) {
        ngx_queue_remove(&fc->parked);
    }

    state = ngx_http_kube_fc_state();

    if (state == NULL || ngx_http_kube_fc_worker == NULL
        || (fc->state != NGX_HTTP_KUBE_FC_WAITING
            && fc->state != NGX_HTTP_KUBE_FC_EXECUTING))
    {
        fc->state = NGX_HTTP_KUBE_FC_RELEASED;
        if (fc->executing_counted) {
            /* an exempt request */
            ngx_http_kube_fc_note_finished(fc, ngx_http_kube_fc_now());
        }
        return;
    }

    Dispatcher d(*state);
    std::int64_t now = ngx_http_kube_fc_now();
    int owner = ngx_http_kube_fc_worker->owner;

    if (fc->state == NGX_HTTP_KUBE_FC_EXECUTING && d.returnLease(fc->seat, owner)) {
        ngx_http_kube_fc_note_finished(fc, now);
        fc->state = NGX_HTTP_KUBE_FC_RELEASED;
        return;
    }

    shpool = ngx_http_kube_fc_shpool();
    ngx_shmtx_lock(&shpool->mutex);

    bool cancelled = false;
    bool leased = false;

    if (fc->state == NGX_HTTP_KUBE_FC_WAITING) {
        std::optional<Seat> seat = d.cancel(fc->ticket, false, now, wakes);
        if (seat) {
            d.release(*seat, owner, now, wakes);
        }
        cancelled = true;

    } else {
        /* a lease only for the configuration the request was classified
         * under: its level's name is this worker's key to it */
        leased = fc->level_key != nullptr && d.generation() == fc->generation
                 && d.keepAsLease(fc->seat, owner, now);
        if (!leased) {
            d.release(fc->seat, owner, now, wakes);
        }
    }

    ngx_shmtx_unlock(&shpool->mutex);

    if (leased) {
        ngx_http_kube_fc_remember_lease(fc);
    }

    if (cancelled) {
        /* the client went away while it waited */
        ngx_http_kube_fc_note_queued(fc, -1);
        ngx_http_kube_fc_note_rejected(fc, "cancelled", now);
    } else {
        ngx_http_kube_fc_note_finished(fc, now);
    }

    fc->state = NGX_HTTP_KUBE_FC_RELEASED;
    ngx_http_kube_fc_wake(state, wakes);
}


void
ngx_http_kube_fc_cleanup(void *data)
{
    ngx_http_kube_fc_request_t *fc =
        static_cast<ngx_http_kube_fc_request_t *>(data);

    ngx_http_kube_fc_release(fc);
    fc->~ngx_http_kube_fc_request_t();
}


/* The request's flow-control state: it survives internal redirects, which
 * clear the module contexts, so a redirected request keeps its one seat. */
ngx_http_kube_fc_request_t *
ngx_http_kube_fc_find(ngx_http_request_t *r)
{
    ngx_pool_cleanup_t  *cln;

    for (cln = r->pool->cleanup; cln; cln = cln->next) {
        if (cln->handler == ngx_http_kube_fc_cleanup) {
            return static_cast<ngx_http_kube_fc_request_t *>(cln->data);
        }
    }

    return NULL;
}


ngx_http_kube_fc_request_t *
ngx_http_kube_fc_create(ngx_http_request_t *r)
{
    ngx_pool_cleanup_t          *cln;
    ngx_http_kube_fc_request_t  *fc;

    cln = ngx_pool_cleanup_add(r->pool, sizeof(ngx_http_kube_fc_request_t));
    if (cln == NULL) {
        return NULL;
    }

    fc = new (cln->data) ngx_http_kube_fc_request_t();
    fc->r = r;
    fc->state = NGX_HTTP_KUBE_FC_RELEASED;
    cln->handler = ngx_http_kube_fc_cleanup;

    return fc;
}


/* The wait limit passed, or (posted) the request was dispatched: its
 * phases go on, and the handler answers by its state. */
void
ngx_http_kube_fc_wait_event(ngx_event_t *ev)
{
    Wakes                        wakes;
    SharedState                 *state;
    ngx_slab_pool_t             *shpool;
    ngx_connection_t            *c;
    ngx_http_request_t          *r;
    ngx_http_kube_fc_request_t  *fc;

    fc = static_cast<ngx_http_kube_fc_request_t *>(ev->data);
    r = fc->r;
    c = r->connection;
    state = ngx_http_kube_fc_state();

    if (fc->state == NGX_HTTP_KUBE_FC_WAITING && state != NULL) {
        std::int64_t now = ngx_http_kube_fc_now();

        shpool = ngx_http_kube_fc_shpool();
        ngx_shmtx_lock(&shpool->mutex);
        std::optional<Seat> seat = Dispatcher(*state).cancel(
            fc->ticket, true, now, wakes);
        ngx_shmtx_unlock(&shpool->mutex);

        ngx_queue_remove(&fc->parked);
        ngx_http_kube_fc_note_queued(fc, -1);

        if (seat) {
            /* dispatched meanwhile: it runs after all */
            fc->seat = *seat;
            fc->state = NGX_HTTP_KUBE_FC_EXECUTING;
            ngx_http_kube_fc_note_executing(fc, now);
        } else {
            fc->state = NGX_HTTP_KUBE_FC_REJECTED;
            ngx_http_kube_fc_note_rejected(fc, "time-out", now);
        }

        ngx_http_kube_fc_wake(state, wakes);
    }

    /* the phases may finalize and free the request: its connection was
     * kept, as nginx's event handlers keep it */
    r->read_event_handler = ngx_http_block_reading;
    r->write_event_handler = ngx_http_core_run_phases;
    ngx_http_core_run_phases(r);
    ngx_http_run_posted_requests(c);
}


/* What classification reads of authz::attributesOf (the user's name and
 * groups, not its uid or extra), into attributes kept from the last request,
 * whose strings keep their buffers */
void
ngx_http_kube_fc_attributes(kube::authz::Attributes &a,
    const kube::authn::UserInfo &user, const kube::endpoints::RequestInfo &info)
{
    a.user.name = user.name;
    a.user.groups = user.groups;
    a.verb = info.verb;
    a.isResourceRequest = info.isResourceRequest;
    a.namespace_ = info.namespace_;
    a.apiGroup = info.apiGroup;
    a.apiVersion = info.apiVersion;
    a.resource = info.resource;
    a.subresource = info.subresource;
    a.name = info.name;
    a.path = info.path;
}


ngx_int_t
ngx_http_kube_fc_copy(ngx_pool_t *pool, std::string_view from, ngx_str_t &to)
{
    to.len = from.size();
    to.data = NULL;

    if (to.len == 0) {
        return NGX_OK;
    }

    to.data = static_cast<u_char *>(ngx_pnalloc(pool, to.len));
    if (to.data == NULL) {
        return NGX_ERROR;
    }

    ngx_memcpy(to.data, from.data(), to.len);
    return NGX_OK;
}


/* The level a request goes to and how its flow is told apart; false when
 * it passes unlimited (no configuration read yet). */
bool
ngx_http_kube_fc_classify(ngx_http_kube_main_conf_t *kmcf,
    ngx_http_kube_ctx_t *ctx, SharedState *state,
    ngx_http_kube_fc_request_t *fc, std::string_view &level,
    std::uint64_t &hash)
{
    ngx_http_kube_fc_worker_t  *w = ngx_http_kube_fc_worker;

    if (!kmcf->priority_and_fairness) {
        level = kube::flowcontrol::isMutatingVerb(ctx->info.verb)
                    ? kube::flowcontrol::kMutatingLevel
                    : kube::flowcontrol::kReadOnlyLevel;
        hash = 0;
        return true;
    }

    if (w->classifier == NULL) {
        return false;
    }

    ngx_http_kube_fc_apply(state, w->classifier->configuration());

    ngx_http_kube_fc_attributes(w->attrs, ctx->user, ctx->info);

    const kube::flowcontrol::Decision *decision =
        w->classifier->classify(w->attrs);
    if (decision == nullptr || decision->level == nullptr) {
        return false;
    }

    level = decision->level->name;
    hash = decision->flowHash;
    if (ngx_http_kube_fc_copy(fc->r->pool, decision->flowSchemaUid,
                              fc->flow_schema_uid) != NGX_OK
        || ngx_http_kube_fc_copy(fc->r->pool, decision->level->uid,
                                 fc->priority_level_uid) != NGX_OK)
    {
        throw std::bad_alloc();
    }
    fc->exempt = decision->level->exempt;
    fc->reject = decision->level->reject;
    if (fc->metrics) {
        fc->series = ngx_http_kube_metrics_flow_series(
            decision->flowSchemaName, decision->level->name);
    }

    return true;
}


bool
ngx_http_kube_fc_privileged(const kube::authn::UserInfo &user)
{
    for (const std::string &g : user.groups) {
        if (g == "system:masters") {
            return true;
        }
    }

    return false;
}

}  // namespace


/* Resumes this worker's parked requests that were dispatched, each from
 * its own posted event (one may end another's connection). */
void
ngx_http_kube_fc_resume_handler(ngx_event_t *ev)
{
    ngx_queue_t                 *q, *next;
    SharedState                 *state;
    ngx_slab_pool_t             *shpool;
    ngx_http_kube_fc_worker_t   *w = ngx_http_kube_fc_worker;
    ngx_http_kube_fc_request_t  *fc;

    state = ngx_http_kube_fc_state();
    if (w == NULL || state == NULL || ngx_queue_empty(&w->parked)) {
        return;
    }

    Dispatcher d(*state);

    shpool = ngx_http_kube_fc_shpool();
    ngx_shmtx_lock(&shpool->mutex);

    for (q = ngx_queue_head(&w->parked);
         q != ngx_queue_sentinel(&w->parked);
         q = next)
    {
        next = ngx_queue_next(q);
        fc = ngx_queue_data(q, ngx_http_kube_fc_request_t, parked);

        bool gone = false;
        std::optional<Seat> seat = d.poll(fc->ticket, gone);
        if (!seat && !gone) {
            continue;
        }

        ngx_queue_remove(q);
        if (fc->wait_timer.timer_set) {
            ngx_del_timer(&fc->wait_timer);
        }

        /* a ticket the zone forgot (its owner was swept) runs unlimited */
        fc->state = seat ? NGX_HTTP_KUBE_FC_EXECUTING
                         : NGX_HTTP_KUBE_FC_RELEASED;
        ngx_http_kube_fc_note_queued(fc, -1);
        if (seat) {
            fc->seat = *seat;
            ngx_http_kube_fc_note_executing(fc, ngx_http_kube_fc_now());
        }

        ngx_post_event(&fc->wait_timer, &ngx_posted_events);
    }

    ngx_shmtx_unlock(&shpool->mutex);
}


/* mirrors WithPriorityAndFairness / WithMaxInFlightLimit */
ngx_int_t
ngx_http_kube_flowcontrol_handler(ngx_http_request_t *r)
try {
    Wakes                        wakes;
    SharedState                 *state;
    ngx_slab_pool_t             *shpool;
    ngx_http_kube_ctx_t         *ctx;
    ngx_http_kube_loc_conf_t    *klcf;
    ngx_http_kube_main_conf_t   *kmcf;
    ngx_http_kube_fc_request_t  *fc;

    if (r != r->main) {
        return NGX_DECLINED;
    }

    fc = ngx_http_kube_fc_find(r);
    if (fc != NULL) {
        switch (fc->state) {
        case NGX_HTTP_KUBE_FC_WAITING:
            return NGX_AGAIN;
        case NGX_HTTP_KUBE_FC_REJECTED:
            fc->state = NGX_HTTP_KUBE_FC_RELEASED;
            return ngx_http_kube_fc_too_many(r, fc);
        case NGX_HTTP_KUBE_FC_EXECUTING:
            if (ngx_http_kube_fc_set_headers(r, fc) != NGX_OK) {
                return NGX_HTTP_INTERNAL_SERVER_ERROR;
            }
            if (fc->watch) {
                ngx_http_kube_fc_release(fc);
            }
            return NGX_DECLINED;
        default:
            return NGX_DECLINED;
        }
    }

    klcf = static_cast<ngx_http_kube_loc_conf_t *>(
        ngx_http_get_module_loc_conf(r, ngx_http_kube_apiserver_module));
    if (!klcf->api) {
        return NGX_DECLINED;
    }

    ctx = ngx_http_kube_get_ctx(r);
    if (ctx == NULL || ctx->route == kube::server::Route::None
        || !ctx->authenticated)
    {
        return NGX_DECLINED;
    }

    kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_http_get_module_main_conf(r, ngx_http_kube_apiserver_module));

    /* APF classifies and seats a watch too, until it starts (kube holds
     * the seat until the watch is initialized); the other long-running
     * requests, and every one under max-in-flight, pass */
    bool watch = kmcf->priority_and_fairness && ctx->info.verb == "watch";

    if (!watch && kube::flowcontrol::isLongRunning(ctx->info)) {
        return NGX_DECLINED;
    }

    state = ngx_http_kube_fc_state();
    if (state == NULL || ngx_http_kube_fc_worker == NULL
        || ngx_http_kube_fc_worker->owner < 0)
    {
        return NGX_DECLINED;
    }

    fc = ngx_http_kube_fc_create(r);
    if (fc == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    fc->watch = watch;
    fc->metrics = kmcf->priority_and_fairness && klcf->metrics;

    std::string_view level;
    std::uint64_t hash = 0;
    if (!ngx_http_kube_fc_classify(kmcf, ctx, state, fc, level, hash)) {
        return NGX_DECLINED;
    }

    int owner = ngx_http_kube_fc_worker->owner;
    std::int64_t now = ngx_http_kube_fc_now();
    fc->arrived_ns = now;

    Dispatcher d(*state);
    fc->level_key = level.data();
    fc->generation = d.generation();

    /* this worker's lease at the level, else the zone under its lock */
    Admission a;
    ngx_http_kube_fc_lease_t *lease =
        ngx_http_kube_fc_find_lease(ngx_http_kube_fc_worker, fc->level_key);

    if (lease != NULL && lease->generation == fc->generation
        && d.takeLease(lease->level, owner, lease->generation))
    {
        a.outcome = Admission::Outcome::Execute;
        a.seat = {lease->level, -1, now, true, lease->generation};

    } else {
        shpool = ngx_http_kube_fc_shpool();
        ngx_shmtx_lock(&shpool->mutex);
        a = d.admit(level, hash, owner, now, wakes);
        ngx_shmtx_unlock(&shpool->mutex);

        ngx_http_kube_fc_wake(state, wakes);
    }

    switch (a.outcome) {

    case Admission::Outcome::Execute:
        fc->seat = a.seat;
        fc->state = NGX_HTTP_KUBE_FC_EXECUTING;
        ngx_http_kube_fc_note_executing(fc, now);
        if (ngx_http_kube_fc_set_headers(r, fc) != NGX_OK) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }
        if (fc->watch) {
            ngx_http_kube_fc_release(fc);
        }
        return NGX_DECLINED;

    case Admission::Outcome::Queued:
        fc->ticket = a.ticket;
        fc->state = NGX_HTTP_KUBE_FC_WAITING;
        ngx_http_kube_fc_note_queued(fc, 1);
        ngx_queue_insert_tail(&ngx_http_kube_fc_worker->parked, &fc->parked);

        fc->wait_timer.handler = ngx_http_kube_fc_wait_event;
        fc->wait_timer.data = fc;
        fc->wait_timer.log = r->connection->log;
        ngx_add_timer(&fc->wait_timer, kube::flowcontrol::kRequestWaitLimitMs);

        /* as limit_req's delay: a client that goes away ends the wait */
        r->read_event_handler = ngx_http_test_reading;
        r->write_event_handler = ngx_http_request_empty_handler;
        return NGX_AGAIN;

    case Admission::Outcome::Rejected:
        /* max-in-flight serves system:masters whatever the load */
        if (!kmcf->priority_and_fairness
            && ngx_http_kube_fc_privileged(ctx->user))
        {
            return NGX_DECLINED;
        }
        /* a Reject level has no queues; a queuing level's were full */
        ngx_http_kube_fc_note_rejected(
            fc, fc->reject ? "concurrency-limit" : "queue-full", now);
        return ngx_http_kube_fc_too_many(r, fc);

    case Admission::Outcome::Exempt:
        /* counted and timed from here to its end, as kube's */
        ngx_http_kube_fc_note_executing(fc, now);
        if (fc->watch) {
            ngx_http_kube_fc_note_finished(fc, now);
        }
        if (ngx_http_kube_fc_set_headers(r, fc) != NGX_OK) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }
        return NGX_DECLINED;

    default:
        if (ngx_http_kube_fc_set_headers(r, fc) != NGX_OK) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }
        return NGX_DECLINED;
    }

} catch (...) {
    ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                  "kube-apiserver: flow control: unexpected exception");
    return ngx_http_kube_reject(r, kube::endpoints::HttpResponse::fromStatus(
        kube::meta::Status::internalError("unexpected error in flow control")));
}


/* A streamed list holds no max-in-flight seat once it streams (long-running
 * from then). Under APF it keeps its seat until it is written, as kube's
 * filter holds a list's seat until its handler has written the whole
 * answer: a flood of large lists takes its level's seats, not every core. */
void
ngx_http_kube_flowcontrol_release(ngx_http_request_t *r)
{
    ngx_http_kube_fc_request_t  *fc;
    ngx_http_kube_main_conf_t   *kmcf;

    kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_http_get_module_main_conf(r, ngx_http_kube_apiserver_module));
    if (kmcf->priority_and_fairness) {
        return;
    }

    fc = ngx_http_kube_fc_find(r->main);
    if (fc != NULL && fc->state == NGX_HTTP_KUBE_FC_EXECUTING) {
        ngx_http_kube_fc_release(fc);
    }
}
