#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <openssl/evp.h>

#include "util/json.hpp"

namespace kube::authn {

// base64url without padding (Go's base64.RawURLEncoding); decoding refuses
// padding, characters outside the alphabet and impossible lengths.
std::string encodeBase64Url(std::string_view bytes);
std::optional<std::string> decodeBase64Url(std::string_view text);

// An OpenSSL public (or private) key with the JOSE facts derived from it.
// Immutable once loaded; shared between the master and, after fork, the
// workers, and between threads.
class Key {
public:
    Key(EVP_PKEY* pkey, std::string kid);
    ~Key();
    Key(const Key&) = delete;
    Key& operator=(const Key&) = delete;

    EVP_PKEY* pkey() const { return pkey_; }
    // kube's keyIDFromPublicKey: base64url(SHA-256(DER SubjectPublicKeyInfo)),
    // unless the key came from a JWKS naming its own kid.
    const std::string& kid() const { return kid_; }
    bool isRsa() const;
    // The curve's JOSE name ("P-256", "P-384", "P-521"); "" for RSA keys.
    std::string curve() const;
    // The algorithm kube signs with this key: RS256, or ES256/ES384/ES512 by curve.
    std::string signingAlgorithm() const;
    bool hasPrivate() const { return private_; }
    // The public key as one JWK of /openid/v1/jwks (use, kty, kid, alg, n/e or crv/x/y).
    util::json::Value toJwk(util::json::Allocator& a) const;

    // Every key of a PEM file, as kube's keyutil.ParsePublicKeysPEM and
    // ParsePrivateKeyPEM read --service-account-key-file: public keys,
    // certificates' keys, RSA and EC private keys. Empty with `error` set
    // when the file holds none or one that is not RSA or EC.
    static std::vector<std::shared_ptr<const Key>> loadPem(const std::string& path,
                                                          std::string* error);
    // The keys of a JWK Set document (RFC 7517): RSA (n, e) and EC (crv, x,
    // y) keys with "use" absent or "sig"; others are skipped.
    static std::vector<std::shared_ptr<const Key>> fromJwks(std::string_view text,
                                                           std::string* error);

private:
    EVP_PKEY* pkey_;
    std::string kid_;
    bool private_ = false;
};

using KeyRef = std::shared_ptr<const Key>;

// kube's keyIDFromPublicKey.
std::string keyIdOf(EVP_PKEY* pkey);

// A compact JWS (header.payload.signature) parsed but not yet verified.
struct Jws {
    util::json::Document header;
    util::json::Document payload;
    std::string signingInput;  // "header.payload" as sent
    std::string signature;     // decoded
    std::string alg;
    std::string kid;

    // Nullopt when `token` is not three base64url parts whose first two are
    // JSON objects (go-jose's ParseSigned failing).
    static std::optional<Jws> parse(std::string_view token);

    // Checks the signature with `key` for the header's algorithm; the error
    // as go-jose words it ("square/go-jose: error in cryptographic
    // primitive", "square/go-jose: unknown/unsupported algorithm") or "".
    std::string verify(const Key& key) const;
};

// Signs `payload` (a JSON object) with `key` in its signingAlgorithm() and
// returns the compact JWS; the header is {"alg":...,"kid":...}. Empty when
// the key cannot sign.
std::string signJws(const util::json::Value& payload, const Key& key);

// The registered time claims of a payload as go-jose's jwt.Claims.Validate
// checks them with DefaultLeeway (one minute). "" when valid; else
// "expired", "not valid yet" or "issued in the future". A missing claim is
// not checked.
std::string checkTimes(const util::json::Value& payload, std::chrono::system_clock::time_point now);

// The numeric date claim `name` in whole seconds; nullopt when absent or not a number.
std::optional<int64_t> numericDate(const util::json::Value& payload, std::string_view name);

// The "aud" claim: a string or an array of strings (jwt.Audience).
std::vector<std::string> audiences(const util::json::Value& payload);

}  // namespace kube::authn
