#pragma once

// A synchronous EventLoop for unit tests: posted tasks and blocking jobs run
// when the test calls run(); the clock only moves when the test moves it.

#include <deque>
#include <map>
#include <memory>

#include "util/event_loop.hpp"

namespace kube::testing {

class FakeLoop : public util::EventLoop {
public:
    void post(Task task) override { queue_.push_back(std::move(task)); }

    void runBlocking(Task job, Task done) override {
        ++blockingJobs_;
        queue_.push_back([job = std::move(job), done = std::move(done)] {
            job();
            done();
        });
    }

    std::chrono::system_clock::time_point now() const override { return now_; }

    // Due when the fake clock reaches it (advance()), then run by run().
    std::unique_ptr<Timer> startTimer(std::chrono::milliseconds delay, Task task) override {
        auto alive = std::make_shared<bool>(true);
        timers_.emplace(now_ + delay, Pending{std::move(task), alive});
        return std::make_unique<FakeTimer>(alive);
    }

    // How many jobs were handed to runBlocking(): work kept off the loop.
    size_t blockingJobs() const { return blockingJobs_; }

    // Runs queued work until none is left; returns how many tasks ran.
    int run() {
        int n = 0;
        while (!queue_.empty()) {
            Task t = std::move(queue_.front());
            queue_.pop_front();
            t();
            n++;
        }
        return n;
    }

    // Moves the clock and queues the timers that fell due, in due order.
    void advance(std::chrono::milliseconds d) {
        now_ += d;
        while (!timers_.empty() && timers_.begin()->first <= now_) {
            Pending p = std::move(timers_.begin()->second);
            timers_.erase(timers_.begin());
            queue_.push_back([p = std::move(p)] {
                if (*p.alive) {
                    *p.alive = false;
                    p.task();
                }
            });
        }
    }

    // Timers started and neither run nor cancelled.
    size_t timersPending() const {
        size_t n = 0;
        for (const auto& [due, p] : timers_) {
            n += *p.alive ? 1 : 0;
        }
        return n;
    }

private:
    size_t blockingJobs_ = 0;

    struct Pending {
        Task task;
        std::shared_ptr<bool> alive;
    };

    class FakeTimer : public Timer {
    public:
        explicit FakeTimer(std::shared_ptr<bool> alive) : alive_(std::move(alive)) {}
        ~FakeTimer() override { *alive_ = false; }

    private:
        std::shared_ptr<bool> alive_;
    };

    std::multimap<std::chrono::system_clock::time_point, Pending> timers_;
    std::deque<Task> queue_;
    std::chrono::system_clock::time_point now_ =
        std::chrono::system_clock::from_time_t(1790000000);  // 2026-09-21
};

}  // namespace kube::testing
