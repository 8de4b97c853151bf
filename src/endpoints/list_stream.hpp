#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "endpoints/http.hpp"
#include "endpoints/responses.hpp"
#include "storage/cacher/cached_object.hpp"
#include "util/turns.hpp"

namespace kube::endpoints {

// A large list written while it is produced, from the watch cache's
// immutable objects (no store snapshot is held across a slow client). The
// objects' bytes are not copied: each large item goes out from the cached
// object itself (its stored JSON, its memoized protobuf), which the write
// keeps alive; only the separators, small items and Table rows are copied,
// into small batches. It writes at most kChunk bytes at a time (an object
// larger than that goes out in several parts), pauses while kLowWater bytes
// or more wait unsent (the connection's back-pressure) and takes turns with
// the worker's other large lists in one shared slice per pass of the loop
// (util::Turns), so a huge list neither grows memory with its size nor
// delays the small requests served beside it, however many lists run; at
// most kLowWater + kChunk bytes wait in nginx, well under
// kube_stream_max_buffered. A quarter slice goes to a new list at once,
// outside the turns, so it starts promptly, and a list of a few pieces is
// written whole.
//
// A protobuf list's envelope states the length of everything after it
// before the first item, so the stream first measures: it sums the sizes of
// the items' protobuf encodings, which each cached object memoizes (encoded
// on first use, then shared by every later protobuf list of that version of
// the object); the second pass sends them. Both passes are sliced like the
// sending. An object that cannot be encoded ends the stream where it is, and
// the short body fails the client's decoding.
class ListStream : public StreamSource,
                   public util::Turns::Job,
                   public std::enable_shared_from_this<ListStream> {
  public:
    // A list of up to kChunk goes out in one write; larger writes would only
    // leave more unsent per list.
    static constexpr size_t kChunk = 256 * 1024;
    // Room a batch keeps for an item's separator and the list's tail.
    static constexpr size_t kTailRoom = 64;
    static constexpr size_t kLowWater = 256 * 1024;
    // An item this large goes out from where it is; a smaller one is copied
    // with its neighbours, as a buffer of its own would cost more.
    static constexpr size_t kBorrowFrom = 4096;

    // `items` are the page's objects; `page` gives the list metadata.
    ListStream(util::Turns& turns, RenderOptions render, const registry::ListPage& page,
               std::vector<storage::cacher::ObjectRef> items);

    void start(StreamSink& sink) override;
    void drained() override;
    void stop() override;
    bool runUntil(std::chrono::steady_clock::time_point deadline) override;

  private:
    bool step();
    bool measureNext();
    bool produce();
    void abort();

    util::Turns& turns_;
    RenderOptions render_;
    ListEncoder encoder_;
    std::vector<storage::cacher::ObjectRef> items_;
    size_t next_ = 0;
    bool headSent_ = false;
    // Produced and not yet sent: the parts of the last batch, from
    // pending_[pendingAt_] on (the first may be partly sent).
    std::vector<StreamPart> pending_;
    size_t pendingAt_ = 0;
    // The parts of one write.
    std::vector<StreamPart> out_;
    StreamSink* sink_ = nullptr;
    bool done_ = false;
    // The protobuf first pass: items measured and their total size.
    bool measuring_ = false;
    size_t measured_ = 0;
    size_t itemsSize_ = 0;
};

}  // namespace kube::endpoints
