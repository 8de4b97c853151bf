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
// history of recent events, and the watchers to tell.
//
// The state is what lists are served from and is never trimmed. The history
// serves watches and paginated lists that start in the past; it is trimmed
// oldest first to kMaxEvents events, to events younger than kMinEventAge
// beyond the newest kMinEvents, and to `maxHistoryBytes` of memory: the bytes
// its events alone keep alive (an event shares its object with the state
// until a later change replaces it). A watch from before the history reads
// the store's revision log instead; a list at a revision before it is 410
// Expired, as kube's is once etcd compacted that revision.
//
// Every state it answers for is consistent: `revision()` says which store
// revision it reflects. Loop thread only.
class WatchCache {
public:
    static constexpr size_t kMaxEvents = 100 * 1024;
    static constexpr size_t kMinEvents = 1024;
    static constexpr std::chrono::seconds kMinEventAge{300};

    // `resource` names it in metrics ("configmaps", "deployments.apps").
    WatchCache(std::string prefix, std::string resource, ReviseFunc revise, size_t maxHistoryBytes);

    const std::string& prefix() const { return prefix_; }
    const std::string& resource() const { return resource_; }
    // The store revision the state reflects.
    Revision revision() const { return revision_; }

    // Replaces the state with `objects` (from a list of the store at
    // `revision`) and drops the event buffer; watchers get onReset().
    void reset(const std::vector<ObjectView>& objects, Revision revision);

    // Applies one store event (ignored below revision(), and at it unless
    // the last event applied had that revision: the events of one etcd
    // transaction share it), tells the watchers, and trims the history to
    // its limits.
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

    // The history: how many events it holds, the memory they alone keep
    // alive, and the revision of the oldest (0 when empty).
    size_t historyEvents() const { return events_.size(); }
    size_t historyBytes() const { return historyBytes_; }
    Revision oldestEvent() const { return events_.empty() ? 0 : events_.front().event->revision; }
    // Drops the oldest event of the history (the Cacher's per-worker limit).
    void trimOldest();

    // What the cache holds and has done, for metrics.
    struct Stats {
        size_t objects = 0;
        size_t objectBytes = 0;  // the current objects' stored bytes
        size_t events = 0;
        size_t eventBytes = 0;  // historyBytes()
        uint64_t eventsReceived = 0;
        uint64_t initializations = 0;
    };
    Stats stats() const;

    void addWatcher(CacheWatcher* w);
    void removeWatcher(CacheWatcher* w);
    size_t watchers() const;
    // Tells every watcher the cache was reset, the state kept: watches end
    // (their resource is no longer served, as kube's cacher stops when a
    // CustomResourceDefinition's storage is torn down); followers replay.
    void endWatches();

private:
    // One event of the history and the bytes it alone keeps alive.
    struct Held {
        EventRef event;
        size_t bytes = 0;
    };

    void trim(std::chrono::steady_clock::time_point now);
    void dispatch(const EventRef& event);
    void forEachWatcher(const std::function<void(CacheWatcher&)>& fn);
    void putState(std::string_view key, ObjectRef object);
    void dropState(std::map<std::string, ObjectRef, std::less<>>::iterator it);

    std::string prefix_;
    std::string resource_;
    ReviseFunc revise_;
    size_t maxHistoryBytes_;
    std::map<std::string, ObjectRef, std::less<>> state_;
    size_t stateBytes_ = 0;
    Revision revision_ = 0;
    // revision_ came from an applied event: more of its revision may follow.
    bool revisionOpen_ = false;
    std::deque<Held> events_;
    size_t historyBytes_ = 0;
    uint64_t eventsReceived_ = 0;
    uint64_t initializations_ = 0;
    // Every event with revision > bufferStart_ is in events_.
    Revision bufferStart_ = 0;
    // Removal during dispatch leaves a null slot, swept afterwards.
    std::vector<CacheWatcher*> watchers_;
    int dispatching_ = 0;
    bool swept_ = true;
};

}  // namespace kube::storage::cacher
