#include "authn/token_cache.hpp"

#include <openssl/core_names.h>
#include <openssl/rand.h>

namespace kube::authn {

namespace {

void writeLength(EVP_MAC_CTX* ctx, size_t n) {
    unsigned char b[4] = {static_cast<unsigned char>(n >> 24), static_cast<unsigned char>(n >> 16),
                          static_cast<unsigned char>(n >> 8), static_cast<unsigned char>(n)};
    EVP_MAC_update(ctx, b, sizeof b);
}

void writeString(EVP_MAC_CTX* ctx, std::string_view s) {
    writeLength(ctx, s.size());
    EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(s.data()), s.size());
}

}  // namespace

TokenCache::TokenCache(std::chrono::seconds ttl, size_t maxEntries)
    : ttl_(ttl), maxEntries_(maxEntries == 0 ? 1 : maxEntries) {
    unsigned char secret[32];
    if (RAND_bytes(secret, sizeof secret) != 1) {
        return;  // keyOf answers "": nothing is cached
    }
    EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    if (!mac) {
        return;
    }
    mac_ = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                           OSSL_PARAM_construct_end()};
    if (mac_ && EVP_MAC_init(mac_, secret, sizeof secret, params) != 1) {
        EVP_MAC_CTX_free(mac_);
        mac_ = nullptr;
    }
    OPENSSL_cleanse(secret, sizeof secret);
}

TokenCache::~TokenCache() {
    EVP_MAC_CTX_free(mac_);
}

TokenCache::Key TokenCache::keyOf(std::string_view token,
                                  const std::vector<std::string>& audiences) {
    // a null key reuses the one given first
    if (!mac_ || EVP_MAC_init(mac_, nullptr, 0, nullptr) != 1) {
        return {};
    }
    writeString(mac_, token);
    writeLength(mac_, audiences.size());
    for (const std::string& a : audiences) {
        writeString(mac_, a);
    }
    unsigned char out[EVP_MAX_MD_SIZE];
    size_t len = 0;
    if (EVP_MAC_final(mac_, out, &len, sizeof out) != 1) {
        return {};
    }
    return Key(reinterpret_cast<const char*>(out), len);
}

const AuthResult* TokenCache::find(const Key& key, Clock::time_point now) {
    if (key.empty()) {
        return nullptr;
    }
    auto it = entries_.find(key);
    if (it == entries_.end()) {
        return nullptr;
    }
    if (now >= it->second.expires) {
        entries_.erase(it);
        return nullptr;
    }
    return &it->second.result;
}

void TokenCache::put(const Key& key, const AuthResult& result, Clock::time_point now) {
    if (key.empty() || !result.ok()) {
        return;
    }
    Clock::time_point expires = now + ttl_;
    if (result.expires && *result.expires < expires) {
        expires = *result.expires;
    }
    if (expires <= now) {
        return;
    }
    evict(now, entries_.count(key) ? 0 : 1);
    uint64_t seq = ++seq_;
    entries_.insert_or_assign(key, Entry{result, expires, seq});
    order_.emplace_back(key, seq);
}

// Makes room for `more` entries: drops the oldest pairs that are stale,
// or expired, or over the bound.
void TokenCache::evict(Clock::time_point now, size_t more) {
    while (!order_.empty()) {
        auto& [key, seq] = order_.front();
        auto it = entries_.find(key);
        bool current = it != entries_.end() && it->second.seq == seq;
        if (current && now < it->second.expires && entries_.size() + more <= maxEntries_) {
            break;
        }
        if (current) {
            entries_.erase(it);
        }
        order_.pop_front();
    }
}

}  // namespace kube::authn
