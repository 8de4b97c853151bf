#include "authn/jwt.hpp"

#include <cmath>
#include <cstring>
#include <sstream>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "util/file.hpp"

namespace kube::authn {

namespace json = util::json;

namespace {

constexpr const char* kCryptoError = "square/go-jose: error in cryptographic primitive";
constexpr const char* kUnsupportedAlg = "square/go-jose: unknown/unsupported algorithm";
// go-jose's jwt.DefaultLeeway.
constexpr std::chrono::seconds kLeeway{60};

struct BnFree {
    void operator()(BIGNUM* b) const { BN_free(b); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;

struct MdCtxFree {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

int8_t base64UrlValue(char c) {
    if (c >= 'A' && c <= 'Z') {
        return static_cast<int8_t>(c - 'A');
    }
    if (c >= 'a' && c <= 'z') {
        return static_cast<int8_t>(c - 'a' + 26);
    }
    if (c >= '0' && c <= '9') {
        return static_cast<int8_t>(c - '0' + 52);
    }
    if (c == '-') {
        return 62;
    }
    if (c == '_') {
        return 63;
    }
    return -1;
}

std::string bnBytes(const BIGNUM* bn, size_t width = 0) {
    size_t n = static_cast<size_t>(BN_num_bytes(bn));
    std::string out(std::max(n, width), '\0');
    BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(out.size()));
    return out;
}

// The field size in bytes of a JOSE curve, 0 for an unknown one.
size_t curveBytes(std::string_view crv) {
    if (crv == "P-256") {
        return 32;
    }
    if (crv == "P-384") {
        return 48;
    }
    if (crv == "P-521") {
        return 66;
    }
    return 0;
}

const char* opensslCurve(std::string_view crv) {
    if (crv == "P-256") {
        return "prime256v1";
    }
    if (crv == "P-384") {
        return "secp384r1";
    }
    return "secp521r1";
}

struct AlgInfo {
    const EVP_MD* md;
    enum { RSA, PSS, EC } family;
    std::string_view curve;
};

std::optional<AlgInfo> algInfo(std::string_view alg) {
    // JWA's signature algorithms kube accepts: digest, key family, curve.
    static const std::pair<std::string_view, AlgInfo> kAlgorithms[] = {
        {"RS256", {EVP_sha256(), AlgInfo::RSA, ""}},
        {"RS384", {EVP_sha384(), AlgInfo::RSA, ""}},
        {"RS512", {EVP_sha512(), AlgInfo::RSA, ""}},
        {"PS256", {EVP_sha256(), AlgInfo::PSS, ""}},
        {"PS384", {EVP_sha384(), AlgInfo::PSS, ""}},
        {"PS512", {EVP_sha512(), AlgInfo::PSS, ""}},
        {"ES256", {EVP_sha256(), AlgInfo::EC, "P-256"}},
        {"ES384", {EVP_sha384(), AlgInfo::EC, "P-384"}},
        {"ES512", {EVP_sha512(), AlgInfo::EC, "P-521"}},
    };
    for (const auto& [name, info] : kAlgorithms) {
        if (name == alg) {
            return info;
        }
    }
    return std::nullopt;
}

// A key from one PEM block, or null (a block of another kind is skipped).
EVP_PKEY* keyFromPem(std::string_view name, const unsigned char* data, long len, bool* priv) {
    const unsigned char* p = data;
    *priv = false;
    if (name == "PUBLIC KEY") {
        return d2i_PUBKEY(nullptr, &p, len);
    }
    if (name == "RSA PUBLIC KEY") {
        return d2i_PublicKey(EVP_PKEY_RSA, nullptr, &p, len);
    }
    if (name == "CERTIFICATE") {
        X509* cert = d2i_X509(nullptr, &p, len);
        if (!cert) {
            return nullptr;
        }
        EVP_PKEY* k = X509_get_pubkey(cert);
        X509_free(cert);
        return k;
    }
    if (name == "PRIVATE KEY" || name == "RSA PRIVATE KEY" || name == "EC PRIVATE KEY") {
        *priv = true;
        if (name == "RSA PRIVATE KEY") {
            return d2i_PrivateKey(EVP_PKEY_RSA, nullptr, &p, len);
        }
        if (name == "EC PRIVATE KEY") {
            return d2i_PrivateKey(EVP_PKEY_EC, nullptr, &p, len);
        }
        return d2i_AutoPrivateKey(nullptr, &p, len);
    }
    return nullptr;
}

// An EC key's raw r||s signature from OpenSSL's DER, each half `width` bytes.
std::string derToRaw(const unsigned char* der, size_t len, size_t width) {
    const unsigned char* p = der;
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(len));
    if (!sig) {
        return {};
    }
    std::string out = bnBytes(ECDSA_SIG_get0_r(sig), width) + bnBytes(ECDSA_SIG_get0_s(sig), width);
    ECDSA_SIG_free(sig);
    return out;
}

std::string rawToDer(std::string_view raw) {
    ECDSA_SIG* sig = ECDSA_SIG_new();
    size_t half = raw.size() / 2;
    BIGNUM* r = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data()),
                          static_cast<int>(half), nullptr);
    BIGNUM* s = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data() + half),
                          static_cast<int>(half), nullptr);
    ECDSA_SIG_set0(sig, r, s);
    unsigned char* der = nullptr;
    int n = i2d_ECDSA_SIG(sig, &der);
    std::string out;
    if (n > 0) {
        out.assign(reinterpret_cast<char*>(der), static_cast<size_t>(n));
        OPENSSL_free(der);
    }
    ECDSA_SIG_free(sig);
    return out;
}

EVP_PKEY* rsaFromJwk(const json::Value& jwk) {
    auto n = decodeBase64Url(json::stringMember(jwk, "n"));
    auto e = decodeBase64Url(json::stringMember(jwk, "e"));
    if (!n || !e || n->empty() || e->empty()) {
        return nullptr;
    }
    Bn bn(BN_bin2bn(reinterpret_cast<const unsigned char*>(n->data()), static_cast<int>(n->size()),
                    nullptr));
    Bn be(BN_bin2bn(reinterpret_cast<const unsigned char*>(e->data()), static_cast<int>(e->size()),
                    nullptr));
    OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn.get());
    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be.get());
    OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY* pkey = nullptr;
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr);
    if (ctx && params && EVP_PKEY_fromdata_init(ctx) > 0) {
        EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params);
    }
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    return pkey;
}

EVP_PKEY* ecFromJwk(const json::Value& jwk) {
    std::string_view crv = json::stringMember(jwk, "crv");
    size_t width = curveBytes(crv);
    auto x = decodeBase64Url(json::stringMember(jwk, "x"));
    auto y = decodeBase64Url(json::stringMember(jwk, "y"));
    if (!width || !x || !y || x->size() != width || y->size() != width) {
        return nullptr;
    }
    std::string point = "\x04" + *x + *y;
    OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, opensslCurve(crv), 0);
    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size());
    OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY* pkey = nullptr;
    EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr);
    if (ctx && params && EVP_PKEY_fromdata_init(ctx) > 0) {
        EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params);
    }
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    return pkey;
}

void addString(json::Value& obj, const char* name, std::string_view value, json::Allocator& a) {
    obj.AddMember(json::Value(name, a), json::stringValue(value, a), a);
}

}  // namespace

std::string encodeBase64Url(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(bytes.data()),
                            static_cast<int>(bytes.size()));
    out.resize(static_cast<size_t>(n));
    while (!out.empty() && out.back() == '=') {
        out.pop_back();
    }
    for (char& c : out) {
        if (c == '+') {
            c = '-';
        } else if (c == '/') {
            c = '_';
        }
    }
    return out;
}

std::optional<std::string> decodeBase64Url(std::string_view text) {
    if (text.size() % 4 == 1) {
        return std::nullopt;
    }
    std::string out;
    out.reserve(text.size() * 3 / 4);
    uint32_t acc = 0;
    int bits = 0;
    for (char c : text) {
        int8_t v = base64UrlValue(c);
        if (v < 0) {
            return std::nullopt;
        }
        acc = (acc << 6) | static_cast<uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xff));
        }
    }
    // Go's strict decoder refuses non-zero padding bits; so does this one.
    if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) {
        return std::nullopt;
    }
    return out;
}

Key::Key(EVP_PKEY* pkey, std::string kid) : pkey_(pkey), kid_(std::move(kid)) {
    if (kid_.empty()) {
        kid_ = keyIdOf(pkey_);
    }
    BIGNUM* d = nullptr;
    private_ = EVP_PKEY_get_bn_param(
                   pkey_, isRsa() ? OSSL_PKEY_PARAM_RSA_D : OSSL_PKEY_PARAM_PRIV_KEY, &d) == 1;
    BN_clear_free(d);
}

Key::~Key() {
    EVP_PKEY_free(pkey_);
}

bool Key::isRsa() const {
    return EVP_PKEY_is_a(pkey_, "RSA");
}

std::string Key::curve() const {
    if (isRsa()) {
        return "";
    }
    char name[64] = {0};
    size_t len = 0;
    if (EVP_PKEY_get_utf8_string_param(pkey_, OSSL_PKEY_PARAM_GROUP_NAME, name, sizeof(name),
                                       &len) != 1) {
        return "";
    }
    std::string_view n(name, len);
    if (n == "prime256v1" || n == "P-256") {
        return "P-256";
    }
    if (n == "secp384r1" || n == "P-384") {
        return "P-384";
    }
    if (n == "secp521r1" || n == "P-521") {
        return "P-521";
    }
    return "";
}

std::string Key::signingAlgorithm() const {
    if (isRsa()) {
        return "RS256";
    }
    std::string crv = curve();
    if (crv == "P-256") {
        return "ES256";
    }
    if (crv == "P-384") {
        return "ES384";
    }
    if (crv == "P-521") {
        return "ES512";
    }
    return "";
}

json::Value Key::toJwk(json::Allocator& a) const {
    json::Value jwk(rapidjson::kObjectType);
    addString(jwk, "use", "sig", a);
    addString(jwk, "kty", isRsa() ? "RSA" : "EC", a);
    addString(jwk, "kid", kid_, a);
    if (isRsa()) {
        addString(jwk, "alg", "RS256", a);
        BIGNUM* n = nullptr;
        BIGNUM* e = nullptr;
        EVP_PKEY_get_bn_param(pkey_, OSSL_PKEY_PARAM_RSA_N, &n);
        EVP_PKEY_get_bn_param(pkey_, OSSL_PKEY_PARAM_RSA_E, &e);
        addString(jwk, "n", encodeBase64Url(n ? bnBytes(n) : ""), a);
        addString(jwk, "e", encodeBase64Url(e ? bnBytes(e) : ""), a);
        BN_free(n);
        BN_free(e);
        return jwk;
    }
    std::string crv = curve();
    addString(jwk, "alg", signingAlgorithm(), a);
    addString(jwk, "crv", crv, a);
    BIGNUM* x = nullptr;
    BIGNUM* y = nullptr;
    EVP_PKEY_get_bn_param(pkey_, OSSL_PKEY_PARAM_EC_PUB_X, &x);
    EVP_PKEY_get_bn_param(pkey_, OSSL_PKEY_PARAM_EC_PUB_Y, &y);
    size_t width = curveBytes(crv);
    addString(jwk, "x", encodeBase64Url(x ? bnBytes(x, width) : ""), a);
    addString(jwk, "y", encodeBase64Url(y ? bnBytes(y, width) : ""), a);
    BN_free(x);
    BN_free(y);
    return jwk;
}

std::vector<KeyRef> Key::loadPem(const std::string& path, std::string* error) {
    std::vector<KeyRef> keys;
    auto text = util::readFile(path, error);
    if (!text) {
        return keys;
    }
    BIO* bio = BIO_new_mem_buf(text->data(), static_cast<int>(text->size()));
    for (;;) {
        char* name = nullptr;
        char* header = nullptr;
        unsigned char* data = nullptr;
        long len = 0;
        if (PEM_read_bio(bio, &name, &header, &data, &len) != 1) {
            break;
        }
        bool priv = false;
        EVP_PKEY* pkey = keyFromPem(name, data, len, &priv);
        std::string blockName = name;
        OPENSSL_free(name);
        OPENSSL_free(header);
        OPENSSL_free(data);
        if (!pkey) {
            if (blockName == "EC PARAMETERS") {
                continue;
            }
            *error =
                "data does not contain a valid RSA or ECDSA key (PEM block \"" + blockName + "\")";
            keys.clear();
            break;
        }
        if (!EVP_PKEY_is_a(pkey, "RSA") && !EVP_PKEY_is_a(pkey, "EC")) {
            EVP_PKEY_free(pkey);
            *error = "data does not contain a valid RSA or ECDSA key";
            keys.clear();
            break;
        }
        keys.push_back(std::make_shared<Key>(pkey, ""));
    }
    BIO_free(bio);
    ERR_clear_error();
    if (keys.empty() && error->empty()) {
        *error = "data does not contain any valid RSA or ECDSA public keys";
    }
    return keys;
}

std::vector<KeyRef> Key::fromJwks(std::string_view text, std::string* error) {
    std::vector<KeyRef> keys;
    json::Document doc;
    if (auto why = json::parse(text, doc)) {
        *error = *why;
        return keys;
    }
    const json::Value* list = json::member(doc, "keys");
    if (!list || !list->IsArray()) {
        *error = "a JWK Set needs a \"keys\" array";
        return keys;
    }
    for (const json::Value& jwk : list->GetArray()) {
        std::string_view use = json::stringMember(jwk, "use");
        if (!use.empty() && use != "sig") {
            continue;
        }
        std::string_view kty = json::stringMember(jwk, "kty");
        EVP_PKEY* pkey = kty == "RSA" ? rsaFromJwk(jwk) : kty == "EC" ? ecFromJwk(jwk) : nullptr;
        if (!pkey) {
            continue;
        }
        keys.push_back(std::make_shared<Key>(pkey, std::string(json::stringMember(jwk, "kid"))));
    }
    ERR_clear_error();
    if (keys.empty()) {
        *error = "the JWK Set holds no RSA or EC signing key";
    }
    return keys;
}

std::string keyIdOf(EVP_PKEY* pkey) {
    unsigned char* der = nullptr;
    int n = i2d_PUBKEY(pkey, &der);
    if (n <= 0) {
        return "";
    }
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(der, static_cast<size_t>(n), digest);
    OPENSSL_free(der);
    return encodeBase64Url(std::string_view(reinterpret_cast<char*>(digest), sizeof(digest)));
}

std::optional<Jws> Jws::parse(std::string_view token) {
    size_t first = token.find('.');
    if (first == std::string_view::npos) {
        return std::nullopt;
    }
    size_t second = token.find('.', first + 1);
    if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
        return std::nullopt;
    }
    auto header = decodeBase64Url(token.substr(0, first));
    auto payload = decodeBase64Url(token.substr(first + 1, second - first - 1));
    auto signature = decodeBase64Url(token.substr(second + 1));
    if (!header || !payload || !signature) {
        return std::nullopt;
    }
    Jws jws;
    if (json::parse(*header, jws.header) || !jws.header.IsObject() ||
        json::parse(*payload, jws.payload) || !jws.payload.IsObject()) {
        return std::nullopt;
    }
    const json::Value* alg = json::member(jws.header, "alg");
    if (!alg || !alg->IsString()) {
        return std::nullopt;
    }
    jws.alg = json::view(*alg);
    jws.kid = json::stringMember(jws.header, "kid");
    jws.signingInput = std::string(token.substr(0, second));
    jws.signature = std::move(*signature);
    return jws;
}

std::string Jws::verify(const Key& key) const {
    auto info = algInfo(alg);
    if (!info) {
        return kUnsupportedAlg;
    }
    bool rsaAlg = info->family != AlgInfo::EC;
    if (rsaAlg != key.isRsa()) {
        return kCryptoError;
    }
    std::string sig = signature;
    if (info->family == AlgInfo::EC) {
        if (key.curve() != info->curve || sig.size() != 2 * curveBytes(info->curve)) {
            return kCryptoError;
        }
        sig = rawToDer(sig);
    }
    std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
    EVP_PKEY_CTX* pctx = nullptr;
    if (EVP_DigestVerifyInit(ctx.get(), &pctx, info->md, nullptr, key.pkey()) != 1) {
        ERR_clear_error();
        return kCryptoError;
    }
    if (info->family == AlgInfo::PSS) {
        EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
        EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_AUTO);
    }
    int ok = EVP_DigestVerify(
        ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
        reinterpret_cast<const unsigned char*>(signingInput.data()), signingInput.size());
    ERR_clear_error();
    return ok == 1 ? "" : kCryptoError;
}

std::string signJws(const json::Value& payload, const Key& key) {
    std::string alg = key.signingAlgorithm();
    auto info = algInfo(alg);
    if (!info || !key.hasPrivate()) {
        return "";
    }
    json::Document header(rapidjson::kObjectType);
    addString(header, "alg", alg, header.GetAllocator());
    addString(header, "kid", key.kid(), header.GetAllocator());
    std::string input =
        encodeBase64Url(json::serialize(header)) + "." + encodeBase64Url(json::serialize(payload));
    std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
    size_t len = 0;
    if (EVP_DigestSignInit(ctx.get(), nullptr, info->md, nullptr, key.pkey()) != 1 ||
        EVP_DigestSign(ctx.get(), nullptr, &len,
                       reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1) {
        ERR_clear_error();
        return "";
    }
    std::string sig(len, '\0');
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                       reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1) {
        ERR_clear_error();
        return "";
    }
    sig.resize(len);
    if (info->family == AlgInfo::EC) {
        sig = derToRaw(reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                       curveBytes(info->curve));
        if (sig.empty()) {
            return "";
        }
    }
    return input + "." + encodeBase64Url(sig);
}

std::optional<int64_t> numericDate(const json::Value& payload, std::string_view name) {
    const json::Value* v = json::member(payload, name);
    if (!v || !v->IsNumber()) {
        return std::nullopt;
    }
    if (v->IsInt64()) {
        return v->GetInt64();
    }
    double d = v->GetDouble();
    if (!std::isfinite(d) || d > 9.2e18 || d < -9.2e18) {
        return std::nullopt;
    }
    return static_cast<int64_t>(d);
}

std::string checkTimes(const json::Value& payload, std::chrono::system_clock::time_point now) {
    int64_t t = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    int64_t leeway = kLeeway.count();
    if (auto nbf = numericDate(payload, "nbf"); nbf && t + leeway < *nbf) {
        return "not valid yet";
    }
    if (auto exp = numericDate(payload, "exp"); exp && t - leeway > *exp) {
        return "expired";
    }
    if (auto iat = numericDate(payload, "iat"); iat && t + leeway < *iat) {
        return "issued in the future";
    }
    return "";
}

std::vector<std::string> audiences(const json::Value& payload) {
    std::vector<std::string> out;
    const json::Value* aud = json::member(payload, "aud");
    if (!aud) {
        return out;
    }
    if (aud->IsString()) {
        out.emplace_back(json::view(*aud));
    } else if (aud->IsArray()) {
        for (const json::Value& v : aud->GetArray()) {
            if (v.IsString()) {
                out.emplace_back(json::view(v));
            }
        }
    }
    return out;
}

}  // namespace kube::authn
