#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "storage/cacher/cached_object.hpp"
#include "storage/interface.hpp"
#include "util/json.hpp"

namespace kube::registry {

// What a read makes of a stored object before anyone sees it, for a kind
// whose schema can change under stored objects (a custom resource); mirrors
// the decoding of kube's storage codec (crdHandler's schemaCoercingDecoder,
// unstructuredDefaulter, then schemaCoercingConverter to the version
// served). Storage is not rewritten: the next write of the object stores
// what the read made of it.
//
// As kube's watch cache holds each object decoded once, reads remember what
// they made of each object (by key and revision, up to kRememberedBytes):
// an object is decoded once per change of it or of the schema, then read at
// the cost of a lookup.
class StoredDecoding {
  public:
    // Changes a parsed stored object as a read does. Touches nothing of the
    // loop's: it may run on a thread.
    using Apply = std::function<void(util::json::Value& obj, util::json::Allocator& a)>;

    // Objects last written after `settledAfter` were written under the
    // current schema, which left them as a read would: they are served as
    // stored, at no cost (the default: none was).
    explicit StoredDecoding(
        Apply apply, storage::Revision settledAfter = std::numeric_limits<storage::Revision>::max())
        : apply_(std::move(apply)), settledAfter_(settledAfter) {}

    storage::Revision settledAfter() const { return settledAfter_; }
    const Apply& apply() const { return apply_; }

    // Whether an object last written at `modRevision` may read otherwise
    // than stored.
    bool needed(storage::Revision modRevision) const { return modRevision <= settledAfter_; }

    // `stored` as a read makes it, encoded as the store encodes objects;
    // nullopt when it reads as stored (or is no JSON object, served as is).
    // Throws std::runtime_error when a deep object finds no thread to be
    // walked on. Any thread.
    std::optional<std::string> decode(std::string_view stored) const;

    // What a read made of the object `o` (at its key and modRevision)
    // before: `*found` is the object as read, null when it reads as stored;
    // false when it was not read since it last changed. Loop thread only.
    bool recall(const storage::ObjectView& o, storage::cacher::ObjectRef* found) const;
    // Remembers that `o` reads as `decoded` (null: as stored). Loop thread only.
    void remember(const storage::ObjectView& o, storage::cacher::ObjectRef decoded) const;
    // `o` as read: recalled, or decoded here and remembered; null when it
    // reads as stored. Throws as decode. Loop thread only.
    storage::cacher::ObjectRef read(const storage::ObjectView& o) const;

    // Whether decoding `stored` would hold the loop: it is large, or nests
    // deep enough for its walk to need a stack of its own.
    static bool offLoop(std::string_view stored);
    // Objects this large are decoded on a thread rather than on the loop, as
    // they are rendered (endpoints::respondObject) and updated there.
    static constexpr size_t kDecodeOffLoopBytes = 256 * 1024;
    // Smaller ones are when they nest deep, which below this size costs too
    // little to look for.
    static constexpr size_t kDeepCheckBytes = 16 * 1024;
    // What is remembered, in bytes (keys and decoded objects); past it the
    // memory starts over.
    static constexpr size_t kRememberedBytes = 64 * 1024 * 1024;

  private:
    struct Remembered {
        storage::Revision modRevision = 0;
        storage::cacher::ObjectRef decoded;
    };
    struct KeyHash {
        using is_transparent = void;
        size_t operator()(std::string_view k) const { return std::hash<std::string_view>()(k); }
    };

    Apply apply_;
    storage::Revision settledAfter_;
    mutable std::unordered_map<std::string, Remembered, KeyHash, std::equal_to<>> remembered_;
    mutable size_t rememberedBytes_ = 0;
};

}  // namespace kube::registry
