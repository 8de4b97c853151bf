#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "storage/interface.hpp"
#include "util/json.hpp"

namespace kube::registry {

// What a read makes of a stored object before anyone sees it, for a kind
// whose schema can change under stored objects (a custom resource); mirrors
// the decoding of kube's storage codec (crdHandler's schemaCoercingDecoder,
// unstructuredDefaulter, then schemaCoercingConverter to the version
// served). Storage is not rewritten: the next write of the object stores
// what the read made of it.
struct StoredDecoding {
    // Objects last written after this revision were written under the
    // current schema, which left them as a read would: they are served as
    // stored, at no cost. Older ones are decoded on every read.
    storage::Revision settledAfter = std::numeric_limits<storage::Revision>::max();
    // Changes a parsed stored object as a read does. Touches nothing of the
    // loop's: it may run on a thread.
    std::function<void(util::json::Value& obj, util::json::Allocator& a)> apply;

    // Whether an object last written at `modRevision` may read otherwise
    // than stored.
    bool needed(storage::Revision modRevision) const { return modRevision <= settledAfter; }

    // `stored` as a read makes it, encoded as the store encodes objects;
    // nullopt when it reads as stored (or is no JSON object, served as is).
    // Throws std::runtime_error when a deep object finds no thread to be
    // walked on.
    std::optional<std::string> decode(std::string_view stored) const;
    // Whether decoding `stored` would hold the loop: it is large, or nests
    // deep enough for its walk to need a stack of its own.
    static bool offLoop(std::string_view stored);
    // Objects this large are decoded on a thread rather than on the loop, as
    // they are rendered (endpoints::respondObject) and updated there.
    static constexpr size_t kDecodeOffLoopBytes = 256 * 1024;
    // Smaller ones are when they nest deep, which below this size costs too
    // little to look for.
    static constexpr size_t kDeepCheckBytes = 16 * 1024;
};

}  // namespace kube::registry
