/*
 * Flow control as the kube_flowcontrol*.cpp files share it (the design is
 * told at the top of kube_flowcontrol.cpp):
 *
 *   kube_flowcontrol.cpp           the PREACCESS handler: classify, admit,
 *                                  park, resume, release
 *   kube_flowcontrol_zone.cpp      the shared zone, this worker as one of
 *                                  its owners, the configuration applied
 *   kube_flowcontrol_response.cpp  X-Kubernetes-PF-* headers, the 429 answer
 */

#pragma once

#include "kube_module.hpp"

#include "flowcontrol/queue_set.hpp"

enum ngx_http_kube_fc_state_e {
    NGX_HTTP_KUBE_FC_WAITING = 0,
    NGX_HTTP_KUBE_FC_EXECUTING,
    NGX_HTTP_KUBE_FC_REJECTED,
    NGX_HTTP_KUBE_FC_RELEASED
};

/* One request under flow control; in the request pool, destroyed (and its
 * seat released) by a pool cleanup. */
struct ngx_http_kube_fc_request_t {
    ngx_http_request_t  *r = nullptr;
    ngx_queue_t          parked{};   /* in the worker's parked list */
    /* the wait limit's timer; posted to resume the request once it is
     * dispatched */
    ngx_event_t          wait_timer{};
    ngx_uint_t           state = NGX_HTTP_KUBE_FC_WAITING;
    kube::flowcontrol::Seat    seat;
    kube::flowcontrol::Ticket  ticket;
    /* X-Kubernetes-PF-* (APF only), in the request pool */
    ngx_str_t            flow_schema_uid = ngx_null_string;
    ngx_str_t            priority_level_uid = ngx_null_string;
    bool                 headers_set = false;
    /* an APF watch: its seat goes back as soon as it starts */
    bool                 watch = false;
    /* apiserver_flowcontrol_* (APF with kube_metrics on): the names of
     * what classified it, when it arrived and began executing */
    bool                 metrics = false;
    bool                 exempt = false;
    bool                 reject = false;    /* a Reject level */
    bool                 executing_counted = false;
    ngx_http_kube_flow_series_t  *series = nullptr;
    std::int64_t         arrived_ns = 0;
    std::int64_t         started_ns = 0;
    /* its level as this worker's leases know it: the level's name (its
     * address), under the zone's configuration generation */
    const char          *level_key = nullptr;
    std::uint64_t        generation = 0;
};

#define NGX_HTTP_KUBE_FC_LEASES  8

/* A seat this worker keeps between requests (Dispatcher::keepAsLease):
 * requests whose level's name is `key` take it without the zone's lock
 * while the zone's configuration is still `generation`. */
struct ngx_http_kube_fc_lease_t {
    const char          *key = nullptr;
    int                  level = -1;
    std::uint64_t        generation = 0;
};

/* What this worker knows of the zone. */
struct ngx_http_kube_fc_worker_t {
    int                  owner = -1;
    ngx_queue_t          parked{};
    ngx_event_t          resume{};
    const kube::flowcontrol::Classifier                   *classifier = nullptr;
    std::shared_ptr<const kube::flowcontrol::Configuration>  applied;
    /* the attributes classified, refilled for every request: assigning
     * keeps the strings' memory, so a request allocates nothing here */
    kube::authz::Attributes                                  attrs;
    ngx_http_kube_fc_lease_t              leases[NGX_HTTP_KUBE_FC_LEASES];
    ngx_uint_t                                               next_lease = 0;
};

extern ngx_http_kube_fc_worker_t  *ngx_http_kube_fc_worker;

/* kube_flowcontrol_zone.cpp */
std::int64_t ngx_http_kube_fc_now();
ngx_slab_pool_t *ngx_http_kube_fc_shpool();
kube::flowcontrol::SharedState *ngx_http_kube_fc_state();
void ngx_http_kube_fc_wake(kube::flowcontrol::SharedState *state,
    const kube::flowcontrol::Wakes &wakes);
void ngx_http_kube_fc_apply(kube::flowcontrol::SharedState *state,
    const std::shared_ptr<const kube::flowcontrol::Configuration> &config);

/* kube_flowcontrol.cpp */
void ngx_http_kube_fc_resume_handler(ngx_event_t *ev);

/* kube_flowcontrol_response.cpp */
ngx_int_t ngx_http_kube_fc_set_headers(ngx_http_request_t *r,
    ngx_http_kube_fc_request_t *fc);
ngx_int_t ngx_http_kube_fc_too_many(ngx_http_request_t *r,
    ngx_http_kube_fc_request_t *fc);
