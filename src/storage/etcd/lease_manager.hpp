#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>

#include "storage/interface.hpp"

namespace kube::storage::etcd {

// The etcd leases that keys which expire are written with (events, kube's
// --event-ttl); mirrors kube's etcd3 leaseManager. Leases are costly to
// etcd, so one is kept and reused: a lease is granted a little longer than
// asked (5% of the TTL, at most a minute) and every write wanting the same
// TTL that it still covers within that margin attaches to it, up to 1,000
// keys; then the next write asks for a new one. With the default hour, etcd
// grants about one lease a minute however many events are written.
//
// Asynchronous: `grant` asks etcd (its answer comes later, on the loop);
// writes that want a lease while one is being granted wait for it rather
// than ask again.
//
// Threads: the loop only. `done` may run inside getLease() when a lease is
// at hand.
class LeaseManager {
  public:
    using Clock = std::chrono::steady_clock;
    // Called with the lease etcd granted (id, and its TTL) or why not.
    using Granted = std::function<void(const Error& err, int64_t id)>;
    // Asks etcd for a lease of `ttl`; calls `granted` once, on the loop.
    using Grant = std::function<void(std::chrono::seconds ttl, Granted granted)>;

    struct Config {
        // A lease is reused while it outlives the TTL wanted by no more than
        // the least of these (kube's ReuseDurationSeconds and 5%).
        std::chrono::seconds reuseDuration{60};
        double reusePercent = 0.05;
        // Keys attached to one lease at most (kube's MaxObjectCount).
        int64_t maxObjectCount = 1000;
    };

    LeaseManager(Grant grant, std::function<Clock::time_point()> now, Config config);
    explicit LeaseManager(Grant grant) : LeaseManager(std::move(grant), &Clock::now, Config{}) {}
    ~LeaseManager() { *alive_ = false; }
    LeaseManager(const LeaseManager&) = delete;
    LeaseManager& operator=(const LeaseManager&) = delete;

    // Calls `done` with a lease that keeps a key at least `ttl` and at most
    // `ttl` plus the reuse margin, or with why none could be granted.
    void getLease(std::chrono::seconds ttl, Granted done);

    // etcd does not know lease `id` (revoked, or etcd restored from a
    // backup): the next write asks for a new one.
    void forget(int64_t id);

    // How many leases were asked of etcd.
    uint64_t grants() const { return grants_; }

  private:
    struct Waiter {
        std::chrono::seconds ttl;
        Granted done;
    };

    std::chrono::seconds margin(std::chrono::seconds ttl) const;
    void serve();

    Grant grant_;
    std::function<Clock::time_point()> now_;
    Config config_;
    int64_t leaseId_ = 0;
    Clock::time_point expires_{};
    int64_t attached_ = 0;
    std::deque<Waiter> waiters_;
    bool granting_ = false;
    bool serving_ = false;
    uint64_t grants_ = 0;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::storage::etcd
