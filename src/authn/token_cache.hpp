#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <openssl/evp.h>

#include "authn/token_authenticator.hpp"

namespace kube::authn {

// The successes of one worker's token union, kept for a while; mirrors
// kube-apiserver's tokencache wrapping of its token union (success TTL
// --token-success-cache-ttl, 10 s; failures not kept). The key is an
// HMAC-SHA256, under a random key drawn when the cache is made, of the
// token and the audiences asked for, each length-prefixed as kube's
// keyFunc does: no token is kept in memory, and a TokenReview for other
// audiences never sees another's answer. Unlike kube's, an answer is never
// used past its credential's expiry (AuthResult::expires). Bounded: past
// `maxEntries` the oldest entries go. Loop thread only: no locks.
class TokenCache {
  public:
    using Clock = std::chrono::system_clock;
    using Key = std::string;  // 32 bytes of HMAC

    explicit TokenCache(std::chrono::seconds ttl = std::chrono::seconds(10),
                        size_t maxEntries = 4096);
    ~TokenCache();
    TokenCache(const TokenCache&) = delete;
    TokenCache& operator=(const TokenCache&) = delete;

    // The key of `token` asked for `audiences`; "" when hashing failed (the
    // result is then not cached).
    Key keyOf(std::string_view token, const std::vector<std::string>& audiences);

    // The success kept for `key`, or null when none is, or it is stale at `now`.
    const AuthResult* find(const Key& key, Clock::time_point now);

    // Keeps `result` (a success) for `key` from `now` until the TTL or the
    // credential's expiry, whichever is first.
    void put(const Key& key, const AuthResult& result, Clock::time_point now);

    size_t size() const { return entries_.size(); }

  private:
    struct Entry {
        AuthResult result;
        Clock::time_point expires;
        uint64_t seq;
    };

    void evict(Clock::time_point now, size_t more);

    std::chrono::seconds ttl_;
    size_t maxEntries_;
    EVP_MAC_CTX* mac_ = nullptr;
    std::unordered_map<Key, Entry> entries_;
    // Keys in the order they were put, with the put's seq: the oldest go
    // first; a pair whose entry was put again since is skipped.
    std::deque<std::pair<Key, uint64_t>> order_;
    uint64_t seq_ = 0;
};

}  // namespace kube::authn
