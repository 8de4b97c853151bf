#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "storage/interface.hpp"

namespace kube::storage::cacher {

// What label and field selectors see of an object; mirrors the cacher's
// GetAttrs result (labels.Set, fields.Set).
struct Attrs {
    std::vector<std::pair<std::string, std::string>> labels;
    std::vector<std::pair<std::string, std::string>> fields;
};

// One version of one object as a watch cache holds it: immutable once made
// and shared by the cache's state, its event buffer, in-flight responses and
// every watcher's queue, so that thousands of watchers cost one copy.
struct CachedObject {
    std::string key;
    std::string bytes;
    Revision modRevision = 0;
    Revision createRevision = 0;
    // Computed on first use by a selector; loop thread only.
    mutable std::shared_ptr<const Attrs> attrs;
    // The object's protobuf message (without the envelope), encoded on
    // first use by a protobuf list and kept for the next ones, as clients
    // that list in protobuf list again; loop thread only.
    mutable std::shared_ptr<const std::string> protobufRaw;

    ObjectView view() const { return {key, bytes, modRevision, createRevision}; }

    // The heap memory this version keeps alive (its allocation, strings and
    // memos), counted when the watch cache becomes its only holder.
    size_t footprint() const;
};

using ObjectRef = std::shared_ptr<const CachedObject>;

// One change of one object; mirrors the cacher's watchCacheEvent.
struct WatchEvent {
    enum class Type { Added, Modified, Deleted };

    Type type = Type::Added;
    Revision revision = 0;
    // Added/Modified: the new state. Deleted: the last state, carrying the
    // deletion's resourceVersion.
    ObjectRef object;
    // The state before this change: null for Added, and null when the event
    // was replayed from the store's log without it (then selectors treat the
    // object as not having matched before, as kube's etcd watcher does).
    ObjectRef prev;
    std::chrono::steady_clock::time_point recorded;
    // The JSON watch line for this event as is, built by the first watcher
    // that sends it while the cache dispatches the event and shared by the
    // others; dropped when the dispatch ends (a replay builds its own), so
    // that the cache's history holds objects only. Loop thread only.
    mutable std::shared_ptr<const std::string> jsonLine;
    // The same for protobuf watchers: the event's length-prefixed frame.
    mutable std::shared_ptr<const std::string> protobufFrame;
};

using EventRef = std::shared_ptr<const WatchEvent>;

}  // namespace kube::storage::cacher
