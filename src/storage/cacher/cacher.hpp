#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "storage/cacher/watch_cache.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"

namespace kube::storage::cacher {

// How much event history the watch caches of one worker keep, in bytes of
// memory (kube_watch_cache_size): all caches together, and each one. The
// current objects are not counted: they are kept whatever the limits.
struct HistoryLimits {
    static constexpr size_t kDefaultBytes = size_t(64) << 20;

    size_t workerBytes = kDefaultBytes;
    size_t resourceBytes = kDefaultBytes;
};

// The watch caches of one worker and the change feed that keeps them in
// step with the store (spec/storage.md §4): every write, by any process,
// lands in the store's revision log; poll() reads the log from the last
// revision seen and applies each entry to the cache of its resource, which
// tells its watchers. Caches are filled on first use. Past the worker's
// history limit, the oldest event of any cache goes first, so that every
// cache keeps the same span of recent revisions.
//
// The store must answer reads inline (LMDB, memory). Loop thread only.
class Cacher {
public:
    // Log entries read and applied per step; a longer backlog continues in
    // a posted task so that other requests are served in between.
    static constexpr size_t kChunk = 4096;

    Cacher(Interface& storage, util::EventLoop& loop, ReviseFunc revise, HistoryLimits limits = {});
    ~Cacher();
    Cacher(const Cacher&) = delete;
    Cacher& operator=(const Cacher&) = delete;

    // The cache of the resource whose keys start with `prefix`
    // ("/registry/configmaps/"), filled from the store on first use; null
    // with `error` set when the store could not be read. `resource` names it
    // in metrics ("deployments.apps"; by default the prefix's resource).
    WatchCache* cache(const std::string& prefix, Error* error, std::string_view resource = {});
    // The cache of `prefix` if it was filled already; null otherwise.
    WatchCache* find(std::string_view prefix);

    // Applies what the store logged since the last poll.
    void poll();

    // Brings every cache up to the store's latest revision before returning
    // (a consistent read); an error when the store could not be read.
    Error sync();

    Interface& storage() { return storage_; }

    const HistoryLimits& limits() const { return limits_; }
    // The memory the histories of every cache keep alive.
    size_t historyBytes() const { return historyBytes_; }
    // Every cache, in prefix order.
    void forEachCache(const std::function<void(const WatchCache&)>& fn) const;

private:
    // Reads and applies one chunk; `*more` when the log has more.
    Error step(bool* more);
    Error refill(WatchCache& cache);
    void resetAll();
    void trimToLimit();

    Interface& storage_;
    util::EventLoop& loop_;
    ReviseFunc revise_;
    HistoryLimits limits_;
    size_t historyBytes_ = 0;
    std::map<std::string, std::unique_ptr<WatchCache>, std::less<>> caches_;
    Revision seen_ = 0;
    bool pollPosted_ = false;
    std::shared_ptr<bool> alive_;
};

}  // namespace kube::storage::cacher
