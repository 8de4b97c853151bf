#include "util/turns.hpp"

namespace kube::util {

Turns::Turns(EventLoop& loop, std::chrono::microseconds slice)
    : loop_(loop), slice_(slice), self_(std::make_shared<Turns*>(this)) {}

void Turns::ready(const std::shared_ptr<Job>& job) {
    if (job->queued_) {
        return;
    }
    job->queued_ = true;
    queue_.push(job);
    post();
}

void Turns::post() {
    if (posted_) {
        return;
    }
    posted_ = true;
    loop_.post([weak = std::weak_ptr<Turns*>(self_)] {
        if (auto self = weak.lock()) {
            (*self)->run();
        }
    });
}

void Turns::run() {
    posted_ = false;
    auto deadline = std::chrono::steady_clock::now() + slice_;
    // Each job waiting now gets at most one turn in this pass; a job that
    // becomes ready meanwhile waits for the next.
    for (size_t n = queue_.size(); n > 0 && !queue_.empty(); n--) {
        std::shared_ptr<Job> job = queue_.pop().lock();
        if (!job) {
            continue;
        }
        job->queued_ = false;
        if (job->runUntil(deadline)) {
            ready(job);
            break;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            break;
        }
    }
    if (!queue_.empty()) {
        post();
    }
}

}  // namespace kube::util
