#pragma once

// A synchronous EventLoop for unit tests: posted tasks and blocking jobs run
// when the test calls run(); the clock only moves when the test moves it.

#include <deque>

#include "util/event_loop.hpp"

namespace kube::testing {

class FakeLoop : public util::EventLoop {
public:
    void post(Task task) override { queue_.push_back(std::move(task)); }

    void runBlocking(Task job, Task done) override {
        queue_.push_back([job = std::move(job), done = std::move(done)] {
            job();
            done();
        });
    }

    std::chrono::system_clock::time_point now() const override { return now_; }

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

    void advance(std::chrono::seconds s) { now_ += s; }

private:
    std::deque<Task> queue_;
    std::chrono::system_clock::time_point now_ =
        std::chrono::system_clock::from_time_t(1790000000);  // 2026-09-21
};

}  // namespace kube::testing
