#pragma once

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "storage/cacher/cached_object.hpp"
#include "storage/event.hpp"

namespace kube::storage::cacher {

// Receives every event of one resource's cache, in revision order, as it is
// applied; the watcher filters for itself. Mirrors the cacher's cacheWatcher.
class CacheWatcher {
public:
    virtual ~CacheWatcher() = default;
    virtual void onEvent(const EventRef& event) = 0;
    // The cache lost track of the store and was refilled: events may have
    // been missed, so the watch must end (clients then watch again).
    virtual void onReset() = 0;
};

// Turns a deleted object's last state into the DELETED event's object: the
// same bytes with metadata.resourceVersion set to the deletion's revision.
using ReviseFunc = std::function<std::string(std::string_view bytes, Revision revision)>;

// The watch cache of one resource in one worker; mirrors kube-apiserver's
// watchCache: the current state of every object (in key order), a bounded
// buffer of recent events, and the watchers to tell.
//
// Every state it answers for is consistent: `revision()` says which store
// revision it reflects. Loop thread only.
class WatchCache {
public:
    // Events kept for watches and paginated lists that start in the past.
    static constexpr size_t kMaxEvents = 100 * 1024;
    static constexpr std::chrono::seconds kMinEventAge{300};

    WatchCache(std::string prefix, ReviseFunc revise);

    const std::string& prefix() const { return prefix_; }
    // The store revision the state reflects.
    Revision revision() const { return revision_; }

    // Replaces the state with `objects` (from a list of the store at
    // `revision`) and drops the event buffer; watchers get onReset().
    void reset(const std::vector<ObjectView>& objects, Revision revision);

    // Applies one store event (ignored at or below revision()) and tells
    // the watchers.
    void apply(const Event& event, std::chrono::steady_clock::time_point now);
    // Nothing of this resource changed up to `revision`.
    void advance(Revision revision);

    // One page of the objects under `prefix` as they were at `revision`
    // (0 = the current state), from `startKey` on (inclusive), at most `limit`
    // matching `filter` (0 = all; a null filter matches all). False when the
    // event buffer does not reach back to `revision`.
    struct Page {
        std::vector<ObjectRef> items;
        Revision revision = 0;
        // More matching objects follow the page; `remaining` counts them
        // when there is no filter.
        bool more = false;
        uint64_t remaining = 0;
    };
    using Filter = std::function<bool(const CachedObject&)>;
    bool list(std::string_view prefix, std::string_view startKey, size_t limit,
              const Filter& filter, Revision revision, Page* page) const;

    // The buffered events with revision > `after`, oldest first; false when
    // the buffer does not reach back that far (events were trimmed, or
    // happened before the cache was filled).
    bool eventsAfter(Revision after, std::vector<EventRef>* out) const;

    void addWatcher(CacheWatcher* w);
    void removeWatcher(CacheWatcher* w);
    size_t watchers() const;

private:
    void trim(std::chrono::steady_clock::time_point now);
    void dispatch(const EventRef& event);
    void forEachWatcher(const std::function<void(CacheWatcher&)>& fn);

    std::string prefix_;
    ReviseFunc revise_;
    std::map<std::string, ObjectRef, std::less<>> state_;
    Revision revision_ = 0;
    std::deque<EventRef> events_;
    // Every event with revision > bufferStart_ is in events_.
    Revision bufferStart_ = 0;
    // Removal during dispatch leaves a null slot, swept afterwards.
    std::vector<CacheWatcher*> watchers_;
    int dispatching_ = 0;
    bool swept_ = true;
};

}  // namespace kube::storage::cacher
