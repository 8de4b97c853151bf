#include "server/bootstrap_sync.hpp"

namespace kube::server {

namespace cacher = storage::cacher;

// Crosses off the keys of one cache as its state and events show them.
class BootstrapSync::Follower : public cacher::CacheWatcher {
public:
    Follower(BootstrapSync& sync, cacher::WatchCache& cache) : sync_(sync), cache_(cache) {
        cache_.addWatcher(this);
    }
    ~Follower() override { cache_.removeWatcher(this); }

    // What the cache holds now.
    void scan() {
        cacher::WatchCache::Page page;
        if (!cache_.list(cache_.prefix(), "", 0, nullptr, 0, &page)) {
            return;
        }
        for (const cacher::ObjectRef& obj : page.items) {
            sync_.missing_.erase(obj->key);
        }
    }

    void onEvent(const cacher::EventRef& event) override {
        if (sync_.done() || !event->object) {
            return;
        }
        if (event->type == cacher::WatchEvent::Type::Deleted) {
            return;  // a bootstrap object deleted meanwhile is written again
        }
        sync_.found(event->object->key);
    }

    void onReset() override {
        if (!sync_.done()) {
            scan();
            sync_.check();
        }
    }

private:
    BootstrapSync& sync_;
    cacher::WatchCache& cache_;
};

BootstrapSync::BootstrapSync(const std::vector<cacher::WatchCache*>& caches,
                             std::vector<std::string> keys, std::function<void()> done)
    : missing_(std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end())),
      done_(std::move(done)) {
    for (cacher::WatchCache* cache : caches) {
        followers_.push_back(std::make_unique<Follower>(*this, *cache));
        followers_.back()->scan();
    }
    check();
}

BootstrapSync::~BootstrapSync() = default;

void BootstrapSync::found(const std::string& key) {
    if (missing_.erase(key) > 0) {
        check();
    }
}

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
