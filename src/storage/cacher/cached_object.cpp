#include "storage/cacher/cached_object.hpp"

namespace kube::storage::cacher {

namespace {

// What make_shared adds to an object: the control block's two counts and
// vtable pointer.
constexpr size_t kSharedBlock = 2 * sizeof(void*) + 8;

// The heap block of a string (none while it fits the string itself).
size_t heapOf(const std::string& s) {
    return s.capacity() > std::string().capacity() ? s.capacity() + 1 : 0;
}

size_t pairsSize(const std::vector<std::pair<std::string, std::string>>& pairs) {
    size_t n = pairs.capacity() * sizeof(pairs[0]);
    for (const auto& [k, v] : pairs) {
        n += heapOf(k) + heapOf(v);
    }
    return n;
}

}  // namespace

size_t CachedObject::footprint() const {
    size_t n = kSharedBlock + sizeof(CachedObject) + heapOf(key) + heapOf(bytes);
    if (attrs) {
        n += kSharedBlock + sizeof(Attrs) + pairsSize(attrs->labels) + pairsSize(attrs->fields);
    }
    if (protobufRaw) {
        n += kSharedBlock + sizeof(std::string) + heapOf(*protobufRaw);
    }
    return n;
}

}  // namespace kube::storage::cacher
