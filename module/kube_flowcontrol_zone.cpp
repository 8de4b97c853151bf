/*
 * The flow-control zone: the seats and queues of every level
 * (kube::flowcontrol::SharedState), made once and kept across reloads.
 * Each worker registers as an owner in it at start and gives back what it
 * holds at exit; it applies the classifier's configuration when that
 * changes, and wakes the owners whose requests a critical section
 * dispatched.
 */

#include <signal.h>
#include <time.h>

#include <cerrno>

#include "kube_flowcontrol.hpp"

#include "flowcontrol/max_in_flight.hpp"

using kube::flowcontrol::Dispatcher;
using kube::flowcontrol::SharedState;
using kube::flowcontrol::Wakes;

namespace {

ngx_shm_zone_t  *ngx_http_kube_fc_zone;


void *
ngx_http_kube_fc_make(ngx_slab_pool_t *shpool)
{
    SharedState  *state;

    state = static_cast<SharedState *>(
        ngx_slab_alloc(shpool, sizeof(SharedState)));
    if (state != NULL) {
        Dispatcher(*state).initialize();
    }

    return state;
}


}  // namespace


ngx_http_kube_fc_worker_t  *ngx_http_kube_fc_worker;


std::int64_t
ngx_http_kube_fc_now()
{
    struct timespec  ts;

    /* one clock for every process of the host */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}


ngx_slab_pool_t *
ngx_http_kube_fc_shpool()
{
    return reinterpret_cast<ngx_slab_pool_t *>(ngx_http_kube_fc_zone->shm.addr);
}


SharedState *
ngx_http_kube_fc_state()
{
    if (ngx_http_kube_fc_zone == NULL || ngx_http_kube_fc_zone->data == NULL) {
        return NULL;
    }

    return static_cast<SharedState *>(ngx_http_kube_fc_zone->data);
}


/* After a critical section: wakes the owners whose requests it
 * dispatched; this worker's own are resumed from a posted event. */
void
ngx_http_kube_fc_wake(SharedState *state, const Wakes &wakes)
{
    int                         i;
    std::uint64_t               bits;
    ngx_http_kube_fc_worker_t  *w = ngx_http_kube_fc_worker;

    /* the owners set, a word of the mask at a time (mostly none) */
    for (int word = 0; word < kube::flowcontrol::kMaxOwners / 64; word++) {
        for (bits = wakes.mask[word]; bits != 0; bits &= bits - 1) {
            i = word * 64 + __builtin_ctzll(bits);

            if (w != NULL && i == w->owner) {
                if (!w->resume.posted) {
                    ngx_post_event(&w->resume, &ngx_posted_events);
                }
                continue;
            }

            /* the slot is read without the lock: a stale one costs a
             * spurious wake-up, and the poll every second covers a lost
             * one */
            ngx_http_kube_wake_worker(state->owner[i].workerSlot);
        }
    }
}


/* Applies the classifier's configuration to the zone when it changed
 * since this worker last did (every worker follows the same objects). */
void
ngx_http_kube_fc_apply(SharedState *state,
    const std::shared_ptr<const kube::flowcontrol::Configuration> &config)
{
    Wakes                       wakes;
    ngx_slab_pool_t            *shpool;
    ngx_http_kube_fc_worker_t  *w = ngx_http_kube_fc_worker;

    if (config == nullptr || config == w->applied) {
        return;
    }

    shpool = ngx_http_kube_fc_shpool();

    ngx_shmtx_lock(&shpool->mutex);
    bool complete = Dispatcher(*state).applyConfiguration(
        *config, ngx_http_kube_fc_now(), wakes);
    ngx_shmtx_unlock(&shpool->mutex);

    if (!complete) {
        ngx_log_error(NGX_LOG_WARN, ngx_cycle->log, 0,
                      "kube-apiserver: flow control keeps at most %d "
                      "priority levels", kube::flowcontrol::kMaxLevels);
    }

    w->applied = config;
    ngx_http_kube_fc_wake(state, wakes);

    /* the seats are fixed at their nominal figures (borrowing happens at
     * dispatch time), so the limits are too */
    for (const auto &level : config->levels) {
        if (!level->exempt) {
            ngx_http_kube_metrics_flow_level(level->name, level->nominalSeats,
                                             level->nominalSeats,
                                             level->nominalSeats);
        }
    }
}


ngx_int_t
ngx_http_kube_flowcontrol_add_zone(ngx_conf_t *cf)
{
    ngx_str_t  name = ngx_string("kube_apiserver_flowcontrol");

    /* the state, and the slab allocator's own pages */
    size_t size = ngx_align(sizeof(SharedState), ngx_pagesize)
                  + 16 * ngx_pagesize;

    /* a reload keeps the seats its old workers still hold */
    ngx_http_kube_fc_zone =
        ngx_http_kube_shm_zone_add<ngx_http_kube_fc_make>(
            cf, &name, size, &ngx_http_kube_apiserver_module);

    return ngx_http_kube_fc_zone ? NGX_OK : NGX_ERROR;
}


/* init_process: this worker becomes an owner in the zone; the owners whose
 * process is gone (a worker that crashed) give back what they held */
ngx_int_t
ngx_http_kube_flowcontrol_init_worker(ngx_cycle_t *cycle)
try {
    Wakes                       wakes;
    SharedState                *state;
    ngx_slab_pool_t            *shpool;
    ngx_http_kube_main_conf_t  *kmcf;

    state = ngx_http_kube_fc_state();
    if (state == NULL) {
        return NGX_OK;
    }

    kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_http_cycle_get_module_main_conf(cycle,
                                            ngx_http_kube_apiserver_module));

    auto w = std::make_unique<ngx_http_kube_fc_worker_t>();
    ngx_queue_init(&w->parked);
    w->resume.handler = ngx_http_kube_fc_resume_handler;
    w->resume.data = cycle;
    w->resume.log = cycle->log;

    Dispatcher d(*state);
    std::int64_t now = ngx_http_kube_fc_now();

    shpool = ngx_http_kube_fc_shpool();
    ngx_shmtx_lock(&shpool->mutex);
    w->owner = d.registerOwner(
        static_cast<std::int32_t>(ngx_pid), static_cast<std::int32_t>(ngx_worker),
        now, [](std::int32_t pid) {
            return kill(pid, 0) == 0 || errno == EPERM;
        }, wakes);
    ngx_shmtx_unlock(&shpool->mutex);

    if (w->owner < 0) {
        ngx_log_error(NGX_LOG_ALERT, cycle->log, 0,
                      "kube-apiserver: flow control has no room for this "
                      "worker, its requests are not limited");
    }

    ngx_http_kube_fc_worker = w.release();
    ngx_http_kube_fc_wake(state, wakes);

    if (!kmcf->priority_and_fairness) {
        ngx_http_kube_fc_apply(state,
            kube::flowcontrol::maxInFlightConfiguration(
                static_cast<int>(kmcf->max_requests_inflight),
                static_cast<int>(kmcf->max_mutating_requests_inflight)));
    }

    return NGX_OK;

} catch (const std::exception &e) {
    ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                  "kube-apiserver: flow control: %s", e.what());
    return NGX_ERROR;
}


/* exit_process: anything this worker still holds goes back */
void
ngx_http_kube_flowcontrol_exit_worker(ngx_cycle_t *cycle)
{
    Wakes                       wakes;
    SharedState                *state;
    ngx_slab_pool_t            *shpool;
    ngx_http_kube_fc_worker_t  *w = ngx_http_kube_fc_worker;

    if (w == NULL) {
        return;
    }

    try {
        state = ngx_http_kube_fc_state();

        if (w->resume.posted) {
            ngx_delete_posted_event(&w->resume);
        }

        if (state != NULL && w->owner >= 0) {
            shpool = ngx_http_kube_fc_shpool();
            ngx_shmtx_lock(&shpool->mutex);
            Dispatcher(*state).dropOwner(w->owner, ngx_http_kube_fc_now(),
                                         wakes);
            ngx_shmtx_unlock(&shpool->mutex);

            w->owner = -1;
            ngx_http_kube_fc_wake(state, wakes);
        }

        ngx_http_kube_fc_worker = NULL;
        delete w;

    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, cycle->log, 0,
                      "kube-apiserver: flow control did not stop cleanly");
    }
}


/* The wake-up poll (kube_wake.cpp): resumes what was dispatched. */
void
ngx_http_kube_flowcontrol_resume()
{
    ngx_http_kube_fc_worker_t  *w = ngx_http_kube_fc_worker;

    if (w != NULL && !ngx_queue_empty(&w->parked) && !w->resume.posted) {
        ngx_post_event(&w->resume, &ngx_posted_events);
    }
}


/* The coordinator's wiring: this worker's APF classifier (loop thread
 * only; NULL until there is one: requests pass). */
void
ngx_http_kube_flowcontrol_set_classifier(
    const kube::flowcontrol::Classifier *classifier)
{
    if (ngx_http_kube_fc_worker != NULL) {
        ngx_http_kube_fc_worker->classifier = classifier;
        ngx_http_kube_fc_worker->applied.reset();
    }
}


/* kube's APF total: --max-requests-inflight + --max-mutating-requests-
 * inflight, from which the levels' nominal seats are computed */
int
ngx_http_kube_flowcontrol_server_concurrency(ngx_cycle_t *cycle)
{
    ngx_http_kube_main_conf_t  *kmcf;

    kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_http_cycle_get_module_main_conf(cycle,
                                            ngx_http_kube_apiserver_module));

    return static_cast<int>(kmcf->max_requests_inflight
                            + kmcf->max_mutating_requests_inflight);
}
