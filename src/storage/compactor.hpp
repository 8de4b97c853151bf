#pragma once

#include <chrono>
#include <memory>

#include "storage/interface.hpp"
#include "util/event_loop.hpp"

namespace kube::storage {

// Compacts the store's history on a timer; mirrors kube-apiserver's etcd
// compactor: at every tick it compacts to the revision it saw at the
// previous tick, so history between one and two intervals old is kept and
// no client loses a revision it read less than one interval ago.
class Compactor {
public:
    Compactor(Interface& storage, util::EventLoop& loop, std::chrono::milliseconds interval);

    // The revision the last finished compaction compacted to.
    Revision compacted() const { return compacted_; }

private:
    void arm();
    void tick();

    Interface& storage_;
    util::EventLoop& loop_;
    std::chrono::milliseconds interval_;
    Revision previous_ = 0;  // the store's revision at the previous tick
    Revision compacted_ = 0;
    bool inFlight_ = false;
    std::unique_ptr<util::EventLoop::Timer> timer_;
    std::shared_ptr<bool> alive_;
};

}  // namespace kube::storage
