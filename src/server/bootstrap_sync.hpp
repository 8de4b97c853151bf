#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "storage/cacher/follower.hpp"

namespace kube::server {

// Tells when this worker's watch caches hold a bootstrap: every one of a set
// of storage keys is in one of the caches. A PostStartHook of a worker that
// does not write the bootstrap itself (another worker of the host does)
// finishes with it, so the worker is ready only once its authorizer and
// classifier, which read these caches, see the bootstrap objects. It follows
// the caches' events (no store reads, no scans after the first); once done
// it stays done. Loop thread only.
class BootstrapSync {
public:
    // `done` is called once, when every key of `keys` is held by one of
    // `caches` (at once when they already hold them all). The caches outlive
    // this object.
    BootstrapSync(const std::vector<storage::cacher::WatchCache*>& caches,
                  std::vector<std::string> keys, std::function<void()> done);
    ~BootstrapSync();

    BootstrapSync(const BootstrapSync&) = delete;
    BootstrapSync& operator=(const BootstrapSync&) = delete;

    bool done() const { return missing_.empty(); }
    // How many keys the caches do not hold yet.
    size_t missing() const { return missing_.size(); }

private:
    void check();

    std::set<std::string, std::less<>> missing_;
    std::function<void()> done_;
    std::vector<std::unique_ptr<storage::cacher::Follower>> followers_;
};

}  // namespace kube::server
