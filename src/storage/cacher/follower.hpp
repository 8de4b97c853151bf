#pragma once

#include <functional>
#include <string_view>

#include "storage/cacher/watch_cache.hpp"
#include "util/json.hpp"

namespace kube::storage::cacher {

// Keeps an in-process consumer (an authorizer's index, a classifier, a
// readiness check) in step with one watch cache of this worker; the
// counterpart of a client-go informer, whose Reflector lists and watches into
// ResourceEventHandlerFuncs, with the cache in place of the API: it never
// reads the store, and it costs the cache one watcher.
//
// Contract:
// - On construction the follower registers with the cache and hands over the
//   cache's whole state: `replacing`, then `put` for each object it holds, in
//   key order; not `changed` (the owner, who may follow several caches, says
//   when its first state is complete).
// - Then every event the cache applies, in revision order, as it is applied:
//   `put` for Added and Modified (the new state), `remove` for Deleted (the
//   last state, resourceVersion revised to the deletion's); an event without
//   an object is skipped. `changed` follows when `put` or `remove` returned
//   true.
// - When the cache is reset (it lost track of the store and was refilled,
//   where a Reflector would relist after a 410), the whole state is handed
//   over again as on construction, followed by `changed`.
// - `replacing` may decline a hand-over by returning false (its owner has
//   what it waited for): the cache is then not listed and `changed` is not
//   called. Without `replacing` every hand-over is taken.
// - Any handler may be empty. Handlers must not block, must not throw, and
//   must not destroy the follower.
//
// The cache must outlive the follower; destroying the follower unregisters
// it, also while the cache dispatches. Loop thread only.
class Follower final : public CacheWatcher {
  public:
    struct Handlers {
        // The whole state is handed over next: forget what was put before.
        std::function<bool()> replacing;
        // An object the cache holds, or the new state of an event; true when
        // it changed what the owner holds.
        std::function<bool(const CachedObject&)> put;
        // The last state of a deleted object; true as for `put`.
        std::function<bool(const CachedObject&)> remove;
        // After an event that changed something and after a reset's state.
        std::function<void()> changed;
    };

    // Handlers of consumers that read the objects' JSON: each object's bytes
    // are parsed, and one that is not a JSON object is skipped (it changes
    // nothing). Every hand-over is taken.
    struct JsonHandlers {
        // The whole state is handed over next: forget what was put before.
        std::function<void()> replacing;
        std::function<void(const util::json::Value& obj)> put;
        // A deleted object's metadata.namespace and metadata.name ("" when
        // absent); not called when it has no metadata.
        std::function<void(std::string_view namespace_, std::string_view name)> remove;
        std::function<void()> changed;
    };

    Follower(WatchCache& cache, Handlers handlers);
    Follower(WatchCache& cache, JsonHandlers handlers);
    ~Follower() override;
    Follower(const Follower&) = delete;
    Follower& operator=(const Follower&) = delete;

    void onEvent(const EventRef& event) override;
    void onReset() override;

  private:
    // Hands over the cache's state; false when `replacing` declined it.
    bool replay();

    WatchCache& cache_;
    Handlers handlers_;
};

}  // namespace kube::storage::cacher
