#include "authz/decision_cache.hpp"

namespace kube::authz {

namespace {

void append(std::string& key, std::string_view s) {
    uint32_t n = static_cast<uint32_t>(s.size());
    key.append(reinterpret_cast<const char*>(&n), sizeof n);
    key.append(s);
}

}  // namespace

std::string DecisionCache::keyOf(const Attributes& attrs) {
    std::string key;
    key.reserve(128);
    append(key, attrs.user.name);
    uint32_t groups = static_cast<uint32_t>(attrs.user.groups.size());
    key.append(reinterpret_cast<const char*>(&groups), sizeof groups);
    for (const std::string& g : attrs.user.groups) {
        append(key, g);
    }
    append(key, attrs.verb);
    append(key, attrs.namespace_);
    if (attrs.isResourceRequest) {
        key += 'R';
        append(key, attrs.apiGroup);
        append(key, attrs.resource);
        append(key, attrs.subresource);
        append(key, attrs.name);
    } else {
        key += 'N';
        append(key, attrs.path);
    }
    return key;
}

const Result* DecisionCache::find(const std::string& key, uint64_t generation) {
    if (generation != generation_) {
        entries_.clear();
        generation_ = generation;
        return nullptr;
    }
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
}

void DecisionCache::put(std::string key, uint64_t generation, const Result& result) {
    if (generation != generation_ || entries_.size() >= maxEntries_) {
        entries_.clear();
        generation_ = generation;
    }
    entries_.emplace(std::move(key), result);
}

}  // namespace kube::authz
