#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "authz/authorizer.hpp"

namespace kube::authz {

// The answers one RBAC index gave, by what they depend on: the user's name
// and groups, the verb, the namespace, and the group, resource, subresource
// and name of a resource request or the path of another. RBAC reads
// nothing else of a request, so a request asked again is answered without
// visiting its bindings, with the same decision and reason. Every answer is
// dropped when the index changes (its generation moves on) and when
// `maxEntries` are held. Loop thread only.
class DecisionCache {
  public:
    explicit DecisionCache(size_t maxEntries = 4096) : maxEntries_(maxEntries) {}

    // The key of what `attrs` ask: each part length-prefixed, so no two
    // different questions share one.
    static std::string keyOf(const Attributes& attrs);

    // The answer kept for `key` at index `generation`, or null.
    const Result* find(const std::string& key, uint64_t generation);

    void put(std::string key, uint64_t generation, const Result& result);

    size_t size() const { return entries_.size(); }

  private:
    size_t maxEntries_;
    uint64_t generation_ = 0;
    std::unordered_map<std::string, Result> entries_;
};

}  // namespace kube::authz
