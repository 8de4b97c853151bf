#include "kube_loop.hpp"

namespace kube::module {

namespace {

/* how soon a job refused by a full thread-pool queue is offered again */
constexpr ngx_msec_t kRetryDelay = 10;
/* how often the busy timer looks again; it is deleted as soon as jobs end */
constexpr ngx_msec_t kBusyInterval = 1000;

}  // namespace

struct NginxLoop::Job {
    ngx_thread_task_t task;
    NginxLoop* loop;
    Task job;
    Task done;
};


// One startTimer(): an nginx timer owned by this object. The task may
// destroy its own Timer, so fire() touches nothing of it after the call.
class NginxLoop::NginxTimer : public util::EventLoop::Timer {
public:
    NginxTimer(ngx_msec_t delay, Task task, ngx_log_t* log)
        : task_(std::move(task))
    {
        ev_.handler = fire;
        ev_.data = this;
        ev_.log = log;
        ev_.cancelable = 1;
        ngx_add_timer(&ev_, delay);
    }

    ~NginxTimer() override
    {
        if (ev_.timer_set) {
            ngx_del_timer(&ev_);
        }
    }

private:
    static void fire(ngx_event_t* ev);

    ngx_event_t ev_{};
    Task task_;
};


NginxLoop::NginxLoop(ngx_thread_pool_t* pool, ngx_log_t* log)
    : pool_(pool), log_(log)
{
    posted_.handler = runPosted;
    posted_.data = this;
    posted_.log = log;

    retry_.handler = retryJobs;
    retry_.data = this;
    retry_.log = log;
    retry_.cancelable = 1;

    busy_.handler = stayBusy;
    busy_.data = this;
    busy_.log = log;
}


NginxLoop::~NginxLoop()
{
    if (posted_.posted) {
        ngx_delete_posted_event(&posted_);
    }

    if (retry_.timer_set) {
        ngx_del_timer(&retry_);
    }

    if (busy_.timer_set) {
        ngx_del_timer(&busy_);
    }

    for (Job* job : waiting_) {
        delete job;
    }
}


void
NginxLoop::post(Task task)
{
    tasks_.push_back(std::move(task));

    if (posted_.posted) {
        return;
    }

    if (!running_) {
        ngx_post_event(&posted_, &ngx_posted_events);
        return;
    }

    /* posted by a posted task (a long list's next slice): nginx drains
     * ngx_posted_events in a loop, so it goes to the next pass, after
     * epoll, and other connections get in first; the busy timer keeps an
     * exiting worker until it has run */
    ngx_post_event(&posted_, &ngx_posted_next_events);

    if (!busy_.timer_set) {
        ngx_add_timer(&busy_, kBusyInterval);
    }
}


void
NginxLoop::runPosted(ngx_event_t* ev)
{
    NginxLoop* loop = static_cast<NginxLoop*>(ev->data);
    std::vector<Task> tasks;
    tasks.swap(loop->tasks_);

    loop->running_ = true;

    for (Task& t : tasks) {
        try {
            t();
        } catch (const std::exception& e) {
            ngx_log_error(NGX_LOG_ALERT, loop->log_, 0,
                          "kube-apiserver: posted task failed: %s", e.what());
        } catch (...) {
            ngx_log_error(NGX_LOG_ALERT, loop->log_, 0,
                          "kube-apiserver: posted task failed");
        }
    }

    loop->running_ = false;
    loop->settleBusy();
}


std::unique_ptr<util::EventLoop::Timer>
NginxLoop::startTimer(std::chrono::milliseconds delay, Task task)
{
    ngx_msec_t ms = delay.count() > 0 ? static_cast<ngx_msec_t>(delay.count())
                                      : 0;

    return std::make_unique<NginxTimer>(ms, std::move(task), log_);
}


void
NginxLoop::NginxTimer::fire(ngx_event_t* ev)
{
    NginxTimer* timer = static_cast<NginxTimer*>(ev->data);
    ngx_log_t* log = ev->log;
    Task task = std::move(timer->task_);

    /* from here on the task may destroy the timer */

    try {
        task();
    } catch (const std::exception& e) {
        ngx_log_error(NGX_LOG_ALERT, log, 0,
                      "kube-apiserver: timer task failed: %s", e.what());
    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, log, 0,
                      "kube-apiserver: timer task failed");
    }
}


void
NginxLoop::runBlocking(Task job, Task done)
{
    Job* j = new Job{};
    j->loop = this;
    j->job = std::move(job);
    j->done = std::move(done);
    j->task.ctx = j;
    j->task.handler = runJob;
    j->task.event.handler = jobDone;
    j->task.event.data = j;
    j->task.event.log = log_;

    inFlight_++;
    if (!busy_.timer_set) {
        ngx_add_timer(&busy_, kBusyInterval);
    }
    submit(j);
}


void
NginxLoop::submit(Job* job)
{
    if (ngx_thread_task_post(pool_, &job->task) == NGX_OK) {
        return;
    }

    /* the pool's queue is full (it already logged why): keep the job */
    waiting_.push_back(job);

    if (!retry_.timer_set) {
        ngx_add_timer(&retry_, kRetryDelay);
    }
}


void
NginxLoop::retryJobs(ngx_event_t* ev)
{
    NginxLoop* loop = static_cast<NginxLoop*>(ev->data);
    std::deque<Job*> waiting;
    waiting.swap(loop->waiting_);

    for (Job* job : waiting) {
        loop->submit(job);
    }
}


void
NginxLoop::stayBusy(ngx_event_t* ev)
{
    NginxLoop* loop = static_cast<NginxLoop*>(ev->data);

    if (loop->inFlight_ > 0 || loop->posted_.posted) {
        ngx_add_timer(ev, kBusyInterval);
    }
}


/* the busy timer goes once nothing is in flight and nothing is posted */
void
NginxLoop::settleBusy()
{
    if (inFlight_ == 0 && !posted_.posted && busy_.timer_set) {
        ngx_del_timer(&busy_);
    }
}


/* on a pool thread: no nginx API, nothing the loop owns */
void
NginxLoop::runJob(void* data, ngx_log_t*)
{
    Job* j = static_cast<Job*>(data);

    try {
        j->job();
    } catch (...) {
        /* the job reports its own failures through its result; an
         * exception here is a bug, and must not end the thread */
    }
}


void
NginxLoop::jobDone(ngx_event_t* ev)
{
    Job* j = static_cast<Job*>(ev->data);
    NginxLoop* loop = j->loop;

    loop->inFlight_--;
    loop->settleBusy();

    try {
        j->done();
    } catch (const std::exception& e) {
        ngx_log_error(NGX_LOG_ALERT, loop->log_, 0,
                      "kube-apiserver: job completion failed: %s", e.what());
    } catch (...) {
        ngx_log_error(NGX_LOG_ALERT, loop->log_, 0,
                      "kube-apiserver: job completion failed");
    }

    delete j;
}


std::chrono::system_clock::time_point
NginxLoop::now() const
{
    return std::chrono::system_clock::now();
}

}  // namespace kube::module
