#include "server/bootstrap_sync.hpp"

namespace kube::server {

namespace cacher = storage::cacher;

BootstrapSync::BootstrapSync(const std::vector<cacher::WatchCache*>& caches,
                             std::vector<std::string> keys, std::function<void()> done)
    : missing_(std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end())),
      done_(std::move(done)) {
    // Crosses off the keys each cache's state and events show; once done,
    // resets are not even listed. A bootstrap object deleted meanwhile is
    // written again, so deletions count for nothing.
    cacher::Follower::Handlers h;
    h.replacing = [this] { return !this->done(); };
    h.put = [this](const cacher::CachedObject& obj) { return missing_.erase(obj.key) > 0; };
    h.changed = [this] { check(); };
    for (cacher::WatchCache* cache : caches) {
        followers_.push_back(std::make_unique<cacher::Follower>(*cache, h));
    }
    check();
}

BootstrapSync::~BootstrapSync() = default;

void BootstrapSync::check() {
    if (missing_.empty() && done_) {
        // Called once; the followers stay (removing a watcher while its
        // cache dispatches is allowed, but nothing is gained).
        auto done = std::move(done_);
        done_ = nullptr;
        done();
    }
}

}  // namespace kube::server
