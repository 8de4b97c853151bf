#pragma once

#include <deque>
#include <vector>

#include "ngx.hpp"

#include "util/event_loop.hpp"

namespace kube::module {

// src/'s EventLoop on nginx's event loop: tasks run from a posted event,
// timers are cancelable nginx timers, blocking jobs run on an nginx thread
// pool whose completion event brings `done` back to the loop.
class NginxLoop : public util::EventLoop {
public:
    NginxLoop(ngx_thread_pool_t* pool, ngx_log_t* log);
    ~NginxLoop() override;

    void post(Task task) override;
    void runBlocking(Task job, Task done) override;
    std::unique_ptr<Timer> startTimer(std::chrono::milliseconds delay,
                                      Task task) override;
    std::chrono::system_clock::time_point now() const override;

    // Blocking jobs handed out and not yet completed.
    size_t jobsInFlight() const { return inFlight_; }

private:
    struct Job;
    class NginxTimer;

    static void runPosted(ngx_event_t* ev);
    static void runJob(void* data, ngx_log_t* log);
    static void jobDone(ngx_event_t* ev);
    static void retryJobs(ngx_event_t* ev);
    static void stayBusy(ngx_event_t* ev);
    void submit(Job* job);
    void settleBusy();

    ngx_thread_pool_t* pool_;
    ngx_log_t* log_;
    ngx_event_t posted_{};
    ngx_event_t retry_{};
    // Armed (and non-cancelable) while jobs are in flight or tasks wait for
    // the next pass, so that a worker leaving on reload waits for the
    // commits and answers its requests are parked on.
    ngx_event_t busy_{};
    std::vector<Task> tasks_;
    std::deque<Job*> waiting_;  // refused by a full pool queue; retried
    size_t inFlight_ = 0;
    bool running_ = false;  // runPosted() is running tasks
};

}  // namespace kube::module
