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
        apply_(doc, doc.GetAllocator());
        enc = encodeObject(doc, numeric);
    });
    std::string out =
        numeric ? storage::spliceRevision(enc.bytes, enc.revisionOffset, revision) : enc.bytes;
    if (out == stored) {
        return std::nullopt;
    }
    return out;
}

bool StoredDecoding::recall(const storage::ObjectView& o, storage::cacher::ObjectRef* found) const {
    auto it = remembered_.find(o.key);
    if (it == remembered_.end() || it->second.modRevision != o.modRevision) {
        return false;
    }
    *found = it->second.decoded;
    return true;
}

void StoredDecoding::remember(const storage::ObjectView& o,
                              storage::cacher::ObjectRef decoded) const {
    // The entry's own cost counts too: objects read as stored are remembered as well.
    size_t bytes = o.key.size() + sizeof(Remembered) + (decoded ? decoded->bytes.size() : 0);
    if (rememberedBytes_ + bytes > kRememberedBytes) {
        remembered_.clear();
        rememberedBytes_ = 0;
    }
    auto it = remembered_.find(o.key);
    if (it == remembered_.end()) {
        it = remembered_.emplace(std::string(o.key), Remembered{}).first;
    } else {
        rememberedBytes_ -= o.key.size() + sizeof(Remembered) +
                            (it->second.decoded ? it->second.decoded->bytes.size() : 0);
    }
    it->second = {o.modRevision, std::move(decoded)};
    rememberedBytes_ += bytes;
}

storage::cacher::ObjectRef StoredDecoding::read(const storage::ObjectView& o) const {
    storage::cacher::ObjectRef found;
    if (recall(o, &found)) {
        return found;
    }
    if (std::optional<std::string> d = decode(o.value)) {
        auto obj = std::make_shared<storage::cacher::CachedObject>();
        obj->key = std::string(o.key);
        obj->bytes = std::move(*d);
        obj->modRevision = o.modRevision;
        obj->createRevision = o.createRevision;
        found = std::move(obj);
    }
    remember(o, found);
    return found;
}

bool StoredDecoding::offLoop(std::string_view stored) {
    return stored.size() >= kDecodeOffLoopBytes ||
           (stored.size() >= kDeepCheckBytes &&
            util::json::textNestsDeeperThan(stored, util::kShallowNestingDepth));
}

}  // namespace kube::registry
