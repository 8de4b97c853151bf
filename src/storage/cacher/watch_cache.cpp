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

}  // namespace

WatchCache::WatchCache(std::string prefix, ReviseFunc revise)
    : prefix_(std::move(prefix)), revise_(std::move(revise)) {}

void WatchCache::reset(const std::vector<ObjectView>& objects, Revision revision) {
    state_.clear();
    for (const ObjectView& o : objects) {
        state_.emplace(std::string(o.key), makeObject(o.key, std::string(o.value), o.modRevision,
                                                      o.createRevision));
    }
    revision_ = revision;
    events_.clear();
    bufferStart_ = revision;
    forEachWatcher([](CacheWatcher& w) { w.onReset(); });
}

void WatchCache::apply(const Event& e, std::chrono::steady_clock::time_point now) {
    if (e.revision <= revision_) {
        return;
    }
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
            state_.erase(it);
        }
    } else {
        ev->type = ev->prev ? WatchEvent::Type::Modified : WatchEvent::Type::Added;
        Revision created = ev->prev ? ev->prev->createRevision : e.revision;
        ev->object = makeObject(e.key, std::string(e.value), e.revision, created);
        if (it != state_.end()) {
            it->second = ev->object;
        } else {
            state_.emplace(std::string(e.key), ev->object);
        }
    }
    revision_ = e.revision;
    events_.push_back(ev);
    trim(now);
    dispatch(ev);
}

void WatchCache::advance(Revision revision) {
    revision_ = std::max(revision_, revision);
}

void WatchCache::trim(std::chrono::steady_clock::time_point now) {
    while (!events_.empty() &&
           (events_.size() > kMaxEvents ||
            (events_.size() > 1024 && now - events_.front()->recorded > kMinEventAge))) {
        bufferStart_ = events_.front()->revision;
        events_.pop_front();
    }
}

bool WatchCache::eventsAfter(Revision after, std::vector<EventRef>* out) const {
    if (after < bufferStart_) {
        return false;
    }
    auto first = std::upper_bound(events_.begin(), events_.end(), after,
                                  [](Revision r, const EventRef& e) { return r < e->revision; });
    out->insert(out->end(), first, events_.end());
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
        auto first = std::upper_bound(events_.begin(), events_.end(), revision,
                                      [](Revision r, const EventRef& e) { return r < e->revision; });
        for (auto e = first; e != events_.end(); ++e) {
            std::string_view key = (*e)->object->key;
            if (key.starts_with(prefix) && key >= startKey) {
                undone.emplace(key, (*e)->prev);
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

size_t WatchCache::watchers() const {
    return static_cast<size_t>(
        std::count_if(watchers_.begin(), watchers_.end(), [](CacheWatcher* w) { return w; }));
}

void WatchCache::dispatch(const EventRef& event) {
    forEachWatcher([&event](CacheWatcher& w) { w.onEvent(event); });
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
