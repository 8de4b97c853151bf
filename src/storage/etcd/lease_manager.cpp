#include "storage/etcd/lease_manager.hpp"

#include <algorithm>

namespace kube::storage::etcd {

LeaseManager::LeaseManager(Grant grant, std::function<Clock::time_point()> now, Config config)
    : grant_(std::move(grant)), now_(std::move(now)), config_(config) {}

std::chrono::seconds LeaseManager::margin(std::chrono::seconds ttl) const {
    auto percent = std::chrono::seconds(
        static_cast<int64_t>(config_.reusePercent * static_cast<double>(ttl.count())));
    return std::min(percent, config_.reuseDuration);
}

void LeaseManager::getLease(std::chrono::seconds ttl, Granted done) {
    waiters_.push_back(Waiter{ttl, std::move(done)});
    serve();
}

void LeaseManager::forget(int64_t id) {
    if (id == leaseId_) {
        leaseId_ = 0;
        attached_ = 0;
    }
}

void LeaseManager::serve() {
    if (granting_ || serving_) {
        return;
    }
    serving_ = true;
    while (!waiters_.empty() && !granting_) {
        Waiter& w = waiters_.front();
        Clock::time_point now = now_();
        // The lease outlives the key's TTL, by no more than the margin.
        bool valid = leaseId_ != 0 && now + w.ttl < expires_;
        bool sufficient = now + w.ttl + margin(w.ttl) >= expires_;
        if (valid && sufficient && attached_ < config_.maxObjectCount) {
            attached_++;
            Granted done = std::move(w.done);
            waiters_.pop_front();
            done(Error{}, leaseId_);
            continue;
        }
        granting_ = true;
        grants_++;
        std::chrono::seconds ttl = w.ttl + margin(w.ttl);
        grant_(ttl, [this, alive = alive_, asked = now, ttl](const Error& err, int64_t id) {
            if (!*alive) {
                return;
            }
            granting_ = false;
            if (!err.ok()) {
                // Every write waiting now would be told the same.
                std::deque<Waiter> failed;
                failed.swap(waiters_);
                for (Waiter& f : failed) {
                    f.done(err, 0);
                    if (!*alive) {
                        return;
                    }
                }
                return;
            }
            leaseId_ = id;
            expires_ = asked + ttl;
            // The write that asked has it, whatever the clock says now.
            attached_ = 1;
            if (!waiters_.empty()) {
                Granted done = std::move(waiters_.front().done);
                waiters_.pop_front();
                done(Error{}, id);
                if (!*alive) {
                    return;
                }
            }
            serve();
        });
    }
    serving_ = false;
}

}  // namespace kube::storage::etcd
