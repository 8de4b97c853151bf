#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "storage/interface.hpp"
#include "util/event_loop.hpp"

namespace kube::storage::etcd {

class Client;

// Compacts etcd by kube-apiserver's own protocol, so that any number of
// hosts, and kube-apiserver beside them, share the work and compact once per
// interval (mirrors kube's etcd3 compactor, compact.go). The version of the
// key "compact_rev_key" (outside any prefix, as kube keeps it) is a logical
// clock: at each tick a transaction puts the key if its version is still the
// one this compactor last saw. If it is, this compactor owns the interval and
// compacts etcd to the revision it saw at its previous tick (none on the
// first: kube does not compact at start); if another compactor moved the key
// on, this one only learns the new version and tries again an interval
// later. So etcd keeps between one and two intervals of history, and when the
// owner goes away another takes over within two intervals.
//
// Threads: the loop only; every etcd call is asynchronous.
class Compactor {
  public:
    // `compacted` runs on the loop after each compaction this compactor made.
    Compactor(Client& client, util::EventLoop& loop, std::chrono::milliseconds interval,
              std::function<void(Revision)> compacted);
    ~Compactor();
    Compactor(const Compactor&) = delete;
    Compactor& operator=(const Compactor&) = delete;

  private:
    void arm();
    void tick();

    Client& client_;
    util::EventLoop& loop_;
    std::chrono::milliseconds interval_;
    std::function<void(Revision)> compacted_;
    // compact_rev_key's version as this compactor last knew it (kube's
    // "compact time") and etcd's revision at its last try.
    int64_t version_ = 0;
    int64_t revision_ = 0;
    std::unique_ptr<util::EventLoop::Timer> timer_;
    std::shared_ptr<bool> alive_;
};

}  // namespace kube::storage::etcd
