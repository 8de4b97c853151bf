#include "endpoints/watch_stream.hpp"

#include "endpoints/protobuf_encoder.hpp"
#include "registry/encoding.hpp"
#include "storage/event.hpp"
#include "util/json.hpp"

namespace kube::endpoints {

namespace json = util::json;
using storage::cacher::CachedObject;
using storage::cacher::WatchEvent;

namespace {

const char* typeName(WatchEvent::Type t) {
    switch (t) {
        case WatchEvent::Type::Added:
            return "ADDED";
        case WatchEvent::Type::Modified:
            return "MODIFIED";
        case WatchEvent::Type::Deleted:
            return "DELETED";
    }
    return "ERROR";
}

std::string jsonLine(std::string_view type, std::string_view object) {
    std::string line;
    line.reserve(object.size() + 32);
    line += "{\"type\":\"";
    line += type;
    line += "\",\"object\":";
    line += object;
    line += "}\n";
    return line;
}

}  // namespace

WatchStream::WatchStream(util::EventLoop& loop, storage::cacher::Cacher& cacher,
                         storage::cacher::WatchCache& cache, const registry::KindInfo& kind,
                         std::string scope, registry::ListOptions selectors, RenderOptions render,
                         WatchStart start)
    : loop_(loop),
      cacher_(cacher),
      cache_(cache),
      kind_(kind),
      scope_(std::move(scope)),
      render_(std::move(render)),
      start_(start) {
    if (!selectors.labelSelector.empty() || !selectors.fieldSelector.empty()) {
        selectors_ = std::make_unique<registry::ListOptions>(std::move(selectors));
    }
}

void WatchStream::start(StreamSink& sink) {
    sink_ = &sink;
    if (metrics::WatchEventSink* events = metrics::watchEventSink()) {
        eventsSeries_ = events->series(kind_.group, kind_.version, kind_.kind);
    }
    left_ = start_.timeout;
    cache_.addWatcher(this);
    if (start_.initialEvents) {
        storage::cacher::WatchCache::Page page;
        storage::cacher::WatchCache::Filter filter;
        if (selectors_) {
            filter = [this](const CachedObject& o) { return matches(o); };
        }
        cache_.list(scope_, "", 0, filter, 0, &page);
        initial_ = std::move(page.items);
        sentUpTo_ = page.revision;
        endBookmarkDue_ = start_.initialEventsEnd;
    } else {
        sentUpTo_ = start_.revision;
        std::vector<EventRef> buffered;
        if (start_.revision >= cache_.revision()) {
            // Nothing to replay: events after the revision arrive live.
        } else if (start_.revision + 1 >= cacher_.storage().compactedRevision() &&
                   cache_.eventsAfter(start_.revision, &buffered)) {
            // The cache may hold events the store compacted: those are gone
            // all the same (the log path below answers 410), as with etcd.
            for (EventRef& e : buffered) {
                replay_.push(std::move(e));
            }
        } else {
            fromLog_ = true;
            logNext_ = start_.revision;
        }
    }
    armTimer();
    pump();
}

void WatchStream::drained() {
    if (!live_ && !closed_) {
        pump();
    }
}

void WatchStream::stop() {
    closed_ = true;
    if (sink_) {
        cache_.removeWatcher(this);
    }
    sink_ = nullptr;
    timer_.reset();
    initial_.clear();
    replay_.clear();
    pending_.clear();
}

void WatchStream::onEvent(const EventRef& e) {
    if (closed_) {
        return;
    }
    if (live_) {
        deliver(e, true);
        return;
    }
    if (pending_.size() >= kMaxPending) {
        // The replay cannot keep up with the live events: give up, as kube's
        // cacher ends a watcher whose buffer is full.
        finish();
        return;
    }
    pending_.push(e);
}

void WatchStream::onReset() {
    finish();
}

void WatchStream::schedulePump() {
    if (pumpPosted_) {
        return;
    }
    pumpPosted_ = true;
    std::weak_ptr<WatchStream> self = weak_from_this();
    loop_.post([self] {
        if (auto s = self.lock()) {
            s->pumpPosted_ = false;
            if (!s->closed_ && !s->live_) {
                s->pump();
            }
        }
    });
}

// Sends the replay in batches while the connection keeps up.
void WatchStream::pump() {
    size_t sent = 0;
    while (!closed_ && !live_) {
        if (sink_->buffered() >= kLowWater) {
            return;  // drained() continues
        }
        if (sent++ == kReplayBatch) {
            schedulePump();
            return;
        }
        if (initialNext_ < initial_.size()) {
            const ObjectRef& o = initial_[initialNext_++];
            std::string held;
            sendEvent("ADDED", readable(*o, o->modRevision, held), nullptr);
            continue;
        }
        if (endBookmarkDue_) {
            endBookmarkDue_ = false;
            initial_.clear();
            sendBookmark(sentUpTo_, true);
            continue;
        }
        if (!replay_.empty()) {
            deliver(replay_.pop(), false);
            continue;
        }
        if (fromLog_) {
            if (!replayLog()) {
                return;
            }
            continue;
        }
        goLive();
    }
}

// Reads the next chunk of the store's log into the replay; false when the
// watch ended (the revision was compacted, or the store failed).
bool WatchStream::replayLog() {
    bool ok = true;
    bool done = false;
    cacher_.storage().history(
        logNext_, storage::cacher::Cacher::kChunk,
        [&](const storage::Error& err, std::span<const storage::Event> events) {
            if (err.code == storage::ErrorCode::Compacted) {
                storage::Revision oldest = cacher_.storage().compactedRevision();
                sendError(meta::Status::expired(
                    "too old resource version: " + std::to_string(start_.revision) + " (" +
                    std::to_string(oldest > 0 ? oldest - 1 : 0) + ")"));
                ok = false;
                return;
            }
            if (!err.ok()) {
                sendError(meta::Status::internalError(err.message));
                ok = false;
                return;
            }
            auto now = std::chrono::steady_clock::now();
            size_t read = 0;
            bool cut = false;
            for (const storage::Event& e : events) {
                if (read >= kReplayBytes) {
                    cut = true;
                    break;
                }
                logNext_ = e.revision;
                if (!e.key.starts_with(scope_)) {
                    continue;
                }
                read += e.value.size();
                auto ev = std::make_shared<WatchEvent>();
                ev->revision = e.revision;
                ev->recorded = now;
                auto obj = std::make_shared<CachedObject>();
                obj->key = std::string(e.key);
                obj->modRevision = e.revision;
                if (e.type == storage::Event::Delete) {
                    ev->type = WatchEvent::Type::Deleted;
                    obj->bytes = registry::withResourceVersion(e.value, e.revision);
                } else {
                    ev->type = e.created ? WatchEvent::Type::Added : WatchEvent::Type::Modified;
                    obj->bytes = std::string(e.value);
                }
                ev->object = std::move(obj);
                replay_.push(std::move(ev));
            }
            done = !cut && events.size() < storage::cacher::Cacher::kChunk;
        });
    if (!ok) {
        finish();
        return false;
    }
    if (done) {
        // The log is read to its end; what follows comes live (pending_).
        fromLog_ = false;
    }
    return true;
}

void WatchStream::goLive() {
    live_ = true;
    util::Fifo<EventRef> pending = std::move(pending_);
    pending_.clear();
    while (!pending.empty() && !closed_) {
        deliver(pending.pop(), false);
    }
}

bool WatchStream::matches(const CachedObject& o) const {
    return registry::selectorsMatch(kind_, *selectors_, o);
}

// Mirrors cacheWatcher.convertToWatchEvent: with selectors, an object that
// starts matching is ADDED and one that stops matching is DELETED (its
// previous state at the event's revision). `live`: the cache is dispatching
// the event, whose encoding the watchers then share (the cache drops it after).
void WatchStream::deliver(const EventRef& e, bool live) {
    if (e->revision <= sentUpTo_ || closed_) {
        return;
    }
    sentUpTo_ = e->revision;
    if (!std::string_view(e->object->key).starts_with(scope_)) {
        return;
    }
    std::string held;
    // A DELETED event's object carries the deletion's revision; its content
    // was written with its previous state (unknown: decoded).
    storage::Revision written = e->object->modRevision;
    if (e->type == WatchEvent::Type::Deleted) {
        written = e->prev ? e->prev->modRevision : 0;
    }
    if (!selectors_) {
        // An object read otherwise than stored is this watcher's to send.
        bool own = decoded(*e->object, written, held);
        sendEvent(typeName(e->type), own ? std::string_view(held) : e->object->bytes,
                  live && !own ? &e : nullptr);
        return;
    }
    bool cur = e->type != WatchEvent::Type::Deleted && matches(*e->object);
    bool old = e->prev && matches(*e->prev);
    if (cur && !old) {
        sendEvent("ADDED", readable(*e->object, written, held), nullptr);
    } else if (cur && old) {
        sendEvent("MODIFIED", readable(*e->object, written, held), nullptr);
    } else if (!cur && old) {
        if (e->type == WatchEvent::Type::Deleted) {
            sendEvent("DELETED", readable(*e->object, written, held), nullptr);
        } else {
            sendEvent("DELETED",
                      registry::withResourceVersion(readable(*e->prev, e->prev->modRevision, held),
                                                    e->revision),
                      nullptr);
        }
    }
}

bool WatchStream::decoded(const CachedObject& o, storage::Revision written,
                          std::string& held) const {
    if (!decoding_ || !decoding_->needed(written)) {
        return false;
    }
    try {
        // An object at its own revision is remembered (the next watcher, or
        // list, reads it at a lookup's cost); a deleted one is decoded.
        if (written == o.modRevision) {
            storage::cacher::ObjectRef read = decoding_->read(o.view());
            if (!read) {
                return false;
            }
            held = read->bytes;
            return true;
        }
        std::optional<std::string> d = decoding_->decode(o.bytes);
        if (!d) {
            return false;
        }
        held = std::move(*d);
        return true;
    } catch (const std::exception&) {
        // No thread for a deep object's walk: it goes out as stored.
        return false;
    }
}

// `shared`, when the event goes out unchanged: its JSON line or protobuf
// frame is built once and shared by every watcher.
void WatchStream::sendEvent(std::string_view type, std::string_view object,
                            const EventRef* shared) {
    // Watchers at the storage version share the event's encodings; one at
    // another version gets the object converted, and its own copy.
    std::string served;
    // Table cells read the stored shape.
    bool table = render_.output.form == OutputForm::Table;
    if (!kind_.servedAtStorageVersion() && !(table && kind_.storedAs)) {
        served = registry::servedObject(kind_, object);
        object = served;
        shared = nullptr;
    }
    if (render_.output.form == OutputForm::Protobuf) {
        if (shared && (*shared)->protobufFrame) {
            send((*shared)->protobufFrame);
            return;
        }
        std::string envelope;
        if (encodeProtobufObject(object, kind_.apiVersion(), kind_.kind, &envelope)) {
            // kube's watch server ends a watch whose object cannot be encoded.
            finish();
            return;
        }
        auto frame = std::make_shared<const std::string>(protobufWatchFrame(type, envelope));
        if (shared) {
            (*shared)->protobufFrame = frame;
        }
        send(std::move(frame));
        return;
    }
    if (render_.output.form == OutputForm::Table) {
        std::string table = tableObject(object);
        send(std::make_shared<const std::string>(jsonLine(type, table)));
        return;
    }
    if (shared) {
        const WatchEvent& e = **shared;
        if (!e.jsonLine) {
            e.jsonLine = std::make_shared<const std::string>(jsonLine(type, object));
        }
        send(e.jsonLine);
        return;
    }
    send(std::make_shared<const std::string>(jsonLine(type, object)));
}

std::string WatchStream::tableObject(std::string_view stored) {
    bool first = !tableHeaderSent_;
    tableHeaderSent_ = true;
    return watchTable(stored, render_, first);
}

// A BOOKMARK's object is an empty object of the kind carrying only the
// revision (and, at the end of the initial events, kube's annotation).
void WatchStream::sendBookmark(storage::Revision revision, bool initialEventsEnd) {
    std::string obj = "{\"kind\":";
    json::appendQuoted(obj, kind_.kind);
    obj += ",\"apiVersion\":";
    json::appendQuoted(obj, kind_.apiVersion());
    obj += ",\"metadata\":{\"resourceVersion\":\"" + std::to_string(revision) +
           "\",\"creationTimestamp\":null";
    if (initialEventsEnd) {
        obj += ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}";
    }
    obj += "}}";
    if (render_.output.form == OutputForm::Protobuf) {
        sendEvent("BOOKMARK", obj, nullptr);
        return;
    }
    send(std::make_shared<const std::string>(jsonLine("BOOKMARK", obj)));
}

void WatchStream::sendError(const meta::Status& status) {
    if (render_.output.form == OutputForm::Protobuf) {
        send(std::make_shared<const std::string>(
            protobufWatchFrame("ERROR", encodeProtobufStatus(status))));
        return;
    }
    send(std::make_shared<const std::string>(jsonLine("ERROR", status.toJson())));
}

void WatchStream::send(std::shared_ptr<const std::string> line) {
    if (closed_ || !sink_) {
        return;
    }
    if (eventsSeries_ && line) {
        metrics::watchEventSink()->event(eventsSeries_, line->size());
    }
    if (!sink_->send(std::move(line))) {
        closed_ = true;
    }
}

void WatchStream::finish() {
    if (closed_ || !sink_) {
        closed_ = true;
        return;
    }
    closed_ = true;
    sink_->finish();
}

// One timer for the watch's two clocks (an idle watch should cost little):
// the next bookmark, when they were asked for, and the end. Bookmarks mirror
// cacheWatcher.nextBookmarkTime: every minute, and about two seconds before
// the watch times out.
// The times are counted in the timer's own delays, so that they follow the
// loop's clock.
void WatchStream::armTimer() {
    if (closed_) {
        return;
    }
    timerDelay_ = std::max(left_, std::chrono::milliseconds::zero());
    timerEnds_ = true;
    if (start_.bookmarks) {
        std::chrono::milliseconds bookmark =
            std::min<std::chrono::milliseconds>(kBookmarkInterval, left_ - std::chrono::seconds(2));
        if (bookmark > std::chrono::milliseconds::zero()) {
            timerDelay_ = bookmark;
            timerEnds_ = false;
        }
    }
    std::weak_ptr<WatchStream> self = weak_from_this();
    timer_ = loop_.startTimer(timerDelay_, [self] {
        auto s = self.lock();
        if (!s || s->closed_) {
            return;
        }
        s->left_ -= s->timerDelay_;
        if (s->timerEnds_) {
            s->finish();
            return;
        }
        if (s->live_) {
            s->sentUpTo_ = std::max(s->sentUpTo_, s->cache_.revision());
            s->sendBookmark(s->sentUpTo_, false);
        }
        s->armTimer();
    });
}

}  // namespace kube::endpoints
