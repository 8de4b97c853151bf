#include "storage/cacher/watch_cache.hpp"

#include <algorithm>

namespace kube::storage::cacher {

namespace {

ObjectRef makeObject(std::string_view key, std::string bytes, Revision mod, Revision create) {
    auto o = std::make_shared<CachedObject>();
    o->key = std::string(key);
    o->bytes = std::move(bytes);
    o->modRevision = mod;
    o->createRevision = create;
    return o;
}

// Orders the history by revision for binary searches.
constexpr auto laterThan = [](Revision r, const auto& held) { return r < held.event->revision; };

// What an event costs beside the objects it holds: its own allocation (with
// make_shared's control block) and its place in the history.
constexpr size_t kEventOverhead =
    sizeof(WatchEvent) + 2 * sizeof(void*) + 8 + sizeof(EventRef) + sizeof(size_t);

}  // namespace

WatchCache::WatchCache(std::string prefix, std::string resource, ReviseFunc revise,
                       size_t maxHistoryBytes)
    : prefix_(std::move(prefix)),
      resource_(std::move(resource)),
      revise_(std::move(revise)),
      maxHistoryBytes_(maxHistoryBytes) {}

void WatchCache::reset(const std::vector<ObjectView>& objects, Revision revision) {
    state_.clear();
    stateBytes_ = 0;
    for (const ObjectView& o : objects) {
        putState(o.key, makeObject(o.key, std::string(o.value), o.modRevision, o.createRevision));
    }
    revision_ = revision;
    revisionOpen_ = false;
    events_.clear();
    historyBytes_ = 0;
    bufferStart_ = revision;
    initializations_++;
    forEachWatcher([](CacheWatcher& w) { w.onReset(); });
}

void WatchCache::putState(std::string_view key, ObjectRef object) {
    stateBytes_ += object->bytes.size();
    auto it = state_.find(key);
    if (it == state_.end()) {
        state_.emplace(std::string(key), std::move(object));
        return;
    }
    stateBytes_ -= it->second->bytes.size();
    it->second = std::move(object);
}

void WatchCache::dropState(std::map<std::string, ObjectRef, std::less<>>::iterator it) {
    stateBytes_ -= it->second->bytes.size();
    state_.erase(it);
}

void WatchCache::apply(const Event& e, std::chrono::steady_clock::time_point now) {
    // One etcd transaction writes several keys at one revision: the events
    // of the revision last applied may go on arriving, never those of one
    // the cache was filled or advanced to.
    if (e.revision < revision_ || (e.revision == revision_ && !revisionOpen_)) {
        return;
    }
    eventsReceived_++;
    auto ev = std::make_shared<WatchEvent>();
    ev->revision = e.revision;
    ev->recorded = now;
    auto it = state_.find(e.key);
    if (it != state_.end()) {
        ev->prev = it->second;
    }
    if (e.type == Event::Delete) {
        ev->type = WatchEvent::Type::Deleted;
        Revision created = ev->prev ? ev->prev->createRevision : 0;
        ev->object = makeObject(e.key, revise_(e.value, e.revision), e.revision, created);
        if (it != state_.end()) {
            dropState(it);
        }
    } else {
        ev->type = ev->prev ? WatchEvent::Type::Modified : WatchEvent::Type::Added;
        Revision created = ev->prev ? ev->prev->createRevision : e.revision;
        ev->object = makeObject(e.key, std::string(e.value), e.revision, created);
        putState(e.key, ev->object);
    }
    revision_ = e.revision;
    revisionOpen_ = true;
    events_.push_back({ev, 0});
    dispatch(ev);
    // Measured after the dispatch, which may have memoized the selectors'
    // view of the objects. The previous state is no longer current: from now
    // on only the history keeps it (an older event holding it as its object
    // is trimmed first). A DELETED event's object was never current.
    size_t bytes = kEventOverhead;
    if (ev->prev) {
        bytes += ev->prev->footprint();
    }
    if (ev->type == WatchEvent::Type::Deleted) {
        bytes += ev->object->footprint();
    }
    events_.back().bytes = bytes;
    historyBytes_ += bytes;
    trim(now);
}

void WatchCache::advance(Revision revision) {
    if (revision >= revision_) {
        revisionOpen_ = false;
    }
    revision_ = std::max(revision_, revision);
}

void WatchCache::trim(std::chrono::steady_clock::time_point now) {
    while (!events_.empty() && (events_.size() > kMaxEvents || historyBytes_ > maxHistoryBytes_ ||
                                (events_.size() > kMinEvents &&
                                 now - events_.front().event->recorded > kMinEventAge))) {
        trimOldest();
    }
}

void WatchCache::trimOldest() {
    if (events_.empty()) {
        return;
    }
    bufferStart_ = events_.front().event->revision;
    historyBytes_ -= events_.front().bytes;
    events_.pop_front();
}

WatchCache::Stats WatchCache::stats() const {
    Stats s;
    s.objects = state_.size();
    s.objectBytes = stateBytes_;
    s.events = events_.size();
    s.eventBytes = historyBytes_;
    s.eventsReceived = eventsReceived_;
    s.initializations = initializations_;
    return s;
}

bool WatchCache::eventsAfter(Revision after, std::vector<EventRef>* out) const {
    if (after < bufferStart_) {
        return false;
    }
    auto first = std::upper_bound(events_.begin(), events_.end(), after, laterThan);
    for (auto e = first; e != events_.end(); ++e) {
        out->push_back(e->event);
    }
    return true;
}

bool WatchCache::list(std::string_view prefix, std::string_view startKey, size_t limit,
                      const Filter& filter, Revision revision, Page* page) const {
    page->items.clear();
    page->more = false;
    page->remaining = 0;
    if (revision == 0 || revision >= revision_) {
        revision = revision_;
    }
    page->revision = revision;
    // The state at `revision` is the current state with every later change
    // undone: the first later event of a key holds what the key was then.
    std::map<std::string_view, ObjectRef> undone;
    if (revision < revision_) {
        if (revision < bufferStart_) {
            return false;
        }
        auto first = std::upper_bound(events_.begin(), events_.end(), revision, laterThan);
        for (auto e = first; e != events_.end(); ++e) {
            std::string_view key = e->event->object->key;
            if (key.starts_with(prefix) && key >= startKey) {
                undone.emplace(key, e->event->prev);
            }
        }
    }
    std::string_view from = std::max(prefix, startKey);
    auto cur = state_.lower_bound(from);
    auto old = undone.begin();
    auto take = [&](const ObjectRef& o) {
        if (filter && !filter(*o)) {
            return;
        }
        if (limit != 0 && page->items.size() >= limit) {
            page->more = true;
            page->remaining++;
            return;
        }
        page->items.push_back(o);
    };
    while (true) {
        bool curOk = cur != state_.end() && std::string_view(cur->first).starts_with(prefix);
        bool oldOk = old != undone.end();
        if (!curOk && !oldOk) {
            break;
        }
        if (page->more && filter) {
            break;  // with a filter, remaining is not counted (kube's etcd store)
        }
        if (oldOk && (!curOk || old->first <= std::string_view(cur->first))) {
            if (curOk && old->first == std::string_view(cur->first)) {
                ++cur;
            }
            if (old->second) {
                // The key's state at `revision` is an older version.
                take(old->second);
            }
            ++old;
        } else {
            take(cur->second);
            ++cur;
        }
    }
    return true;
}

void WatchCache::addWatcher(CacheWatcher* w) {
    watchers_.push_back(w);
}

void WatchCache::removeWatcher(CacheWatcher* w) {
    auto it = std::find(watchers_.begin(), watchers_.end(), w);
    if (it == watchers_.end()) {
        return;
    }
    if (dispatching_ > 0) {
        *it = nullptr;
        swept_ = false;
    } else {
        watchers_.erase(it);
    }
}

void WatchCache::endWatches() {
    forEachWatcher([](CacheWatcher& w) { w.onReset(); });
}

size_t WatchCache::watchers() const {
    return static_cast<size_t>(
        std::count_if(watchers_.begin(), watchers_.end(), [](CacheWatcher* w) { return w; }));
}

void WatchCache::dispatch(const EventRef& event) {
    forEachWatcher([&event](CacheWatcher& w) { w.onEvent(event); });
    // The watchers' connections keep what they still have to send.
    event->jsonLine.reset();
    event->protobufFrame.reset();
}

void WatchCache::forEachWatcher(const std::function<void(CacheWatcher&)>& fn) {
    dispatching_++;
    // Watchers added meanwhile are not called; removed ones leave a null.
    size_t n = watchers_.size();
    for (size_t i = 0; i < n; i++) {
        if (CacheWatcher* w = watchers_[i]) {
            fn(*w);
        }
    }
    dispatching_--;
    if (dispatching_ == 0 && !swept_) {
        watchers_.erase(std::remove(watchers_.begin(), watchers_.end(), nullptr), watchers_.end());
        swept_ = true;
    }
}

}  // namespace kube::storage::cacher
