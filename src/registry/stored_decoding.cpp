#include "registry/stored_decoding.hpp"

#include <charconv>

#include "registry/encoding.hpp"
#include "util/deep_stack.hpp"
#include "util/json_depth.hpp"

namespace kube::registry {

namespace json = util::json;

std::optional<std::string> StoredDecoding::decode(std::string_view stored) const {
    json::Document doc;
    if (json::parse(stored, doc) || !doc.IsObject()) {
        return std::nullopt;
    }
    // The resourceVersion the stored bytes carry (a deleted object's watch
    // event carries the deletion's), kept where the store's encoding puts it.
    std::string_view rv;
    if (const json::Value* v = json::at(doc, {"metadata", "resourceVersion"}); v && v->IsString()) {
        rv = json::view(*v);
    }
    storage::Revision revision = 0;
    auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), revision);
    bool numeric = !rv.empty() && ec == std::errc() && end == rv.data() + rv.size();
    EncodedObject enc;
    // A walk per level of nesting: a deep object is walked on a stack of its own.
    util::runWithStackFor(doc, [&] {
        apply(doc, doc.GetAllocator());
        enc = encodeObject(doc, numeric);
    });
    std::string out =
        numeric ? storage::spliceRevision(enc.bytes, enc.revisionOffset, revision) : enc.bytes;
    if (out == stored) {
        return std::nullopt;
    }
    return out;
}

bool StoredDecoding::offLoop(std::string_view stored) {
    return stored.size() >= kDecodeOffLoopBytes ||
           (stored.size() >= kDeepCheckBytes &&
            util::json::textNestsDeeperThan(stored, util::kShallowNestingDepth));
}

}  // namespace kube::registry
