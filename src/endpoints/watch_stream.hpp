#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "endpoints/http.hpp"
#include "endpoints/metrics.hpp"
#include "endpoints/responses.hpp"
#include "registry/store.hpp"
#include "storage/cacher/cacher.hpp"
#include "util/event_loop.hpp"
#include "util/fifo.hpp"

namespace kube::endpoints {

// Where a watch starts; mirrors the cacher's handling of resourceVersion,
// sendInitialEvents and allowWatchBookmarks.
struct WatchStart {
    // Send the state at the start as ADDED events first (resourceVersion
    // unset or "0", or sendInitialEvents=true); otherwise replay every change
    // after `revision`.
    bool initialEvents = false;
    storage::Revision revision = 0;
    // After the initial events, a BOOKMARK annotated
    // k8s.io/initial-events-end (sendInitialEvents with bookmarks).
    bool initialEventsEnd = false;
    bool bookmarks = false;
    std::chrono::milliseconds timeout{0};
};

// One watch: a StreamSource for the module and a watcher of the kind's
// watch cache. It writes one JSON line per event (or a one-row Table per
// event, or a length-prefixed protobuf frame), replays history from the
// cache's buffer or the store's log, applies the selectors with kube's
// ADDED/DELETED transitions, sends bookmarks, and ends at its timeout.
// Output is paced by the connection: replays pause while much is unsent;
// live events are passed on and a client that stops reading is cut by the
// sink.
class WatchStream : public StreamSource,
                    public storage::cacher::CacheWatcher,
                    public std::enable_shared_from_this<WatchStream> {
  public:
    // Bytes buffered in the sink above which a replay waits for drained().
    static constexpr size_t kLowWater = 256 * 1024;
    // Items a replay sends before letting the loop serve others.
    static constexpr size_t kReplayBatch = 512;
    // Bytes of objects a replay from the store's log reads ahead of what it
    // sent (at least one object): the log is read again from where it stopped.
    static constexpr size_t kReplayBytes = 4 * 1024 * 1024;
    // Live events held while a replay is under way; past this the watch ends.
    static constexpr size_t kMaxPending = 64 * 1024;
    // Bookmarks go out this often, and ~2 s before the watch's timeout.
    static constexpr std::chrono::seconds kBookmarkInterval{60};

    WatchStream(util::EventLoop& loop, storage::cacher::Cacher& cacher,
                storage::cacher::WatchCache& cache, const registry::KindInfo& kind,
                std::string scope, registry::ListOptions selectors, RenderOptions render,
                WatchStart start);

    // Events' objects are sent as reads make them (a custom resource's
    // schema: registry::Store::storedDecoding); set before start.
    void setStoredDecoding(std::shared_ptr<const registry::StoredDecoding> d) {
        decoding_ = std::move(d);
    }

    void start(StreamSink& sink) override;
    void drained() override;
    void stop() override;

    void onEvent(const storage::cacher::EventRef& event) override;
    void onReset() override;

  private:
    using EventRef = storage::cacher::EventRef;
    using ObjectRef = storage::cacher::ObjectRef;

    void pump();
    void schedulePump();
    bool replayLog();
    void goLive();
    void deliver(const EventRef& e, bool live);
    bool matches(const storage::cacher::CachedObject& o) const;
    void sendEvent(std::string_view type, std::string_view object, const EventRef* shared);
    void sendBookmark(storage::Revision revision, bool initialEventsEnd);
    void sendError(const meta::Status& status);
    void send(std::shared_ptr<const std::string> line);
    void finish();
    void armTimer();
    std::string tableObject(std::string_view stored);
    // `o`'s bytes as a read makes them, `o` having been written at
    // `written`: `held` when they differ from the stored ones (then true),
    // else `o`'s own.
    bool decoded(const storage::cacher::CachedObject& o, storage::Revision written,
                 std::string& held) const;
    std::string_view readable(const storage::cacher::CachedObject& o, storage::Revision written,
                              std::string& held) const {
        return decoded(o, written, held) ? std::string_view(held) : std::string_view(o.bytes);
    }

    util::EventLoop& loop_;
    storage::cacher::Cacher& cacher_;
    storage::cacher::WatchCache& cache_;
    const registry::KindInfo& kind_;
    // apiserver_watch_events_total's series for this kind (metrics.hpp)
    void* eventsSeries_ = nullptr;
    std::string scope_;  // key prefix: the namespace's, or the resource's
    // The label and field selectors; none without them (an idle watch should
    // cost little: most have none).
    std::unique_ptr<registry::ListOptions> selectors_;
    RenderOptions render_;
    WatchStart start_;
    std::shared_ptr<const registry::StoredDecoding> decoding_;
    // What was left of the timeout when the timer was armed, and its delay.
    std::chrono::milliseconds left_{0};
    std::chrono::milliseconds timerDelay_{0};

    StreamSink* sink_ = nullptr;
    bool closed_ = false;
    bool live_ = false;
    bool pumpPosted_ = false;
    bool tableHeaderSent_ = false;
    bool endBookmarkDue_ = false;  // of the replay, below
    bool fromLog_ = false;         // of the replay, below
    bool timerEnds_ = false;
    // Everything up to this revision was sent (or filtered out).
    storage::Revision sentUpTo_ = 0;

    // The replay: initial objects, then events (from the cache's buffer or
    // the store's log), then the live events that arrived meanwhile.
    std::vector<ObjectRef> initial_;
    size_t initialNext_ = 0;
    util::Fifo<EventRef> replay_;
    storage::Revision logNext_ = 0;  // the log is read after this revision
    util::Fifo<EventRef> pending_;

    // The next bookmark, or the end when `timerEnds_`.
    std::unique_ptr<util::EventLoop::Timer> timer_;
};

}  // namespace kube::endpoints
