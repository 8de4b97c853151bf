#include "registry/continue_token.hpp"

#include <openssl/evp.h>

#include "util/json.hpp"

namespace kube::registry {

namespace json = util::json;

namespace {

std::string base64Url(std::string_view in) {
    std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(in.data()),
                            static_cast<int>(in.size()));
    out.resize(static_cast<size_t>(n));
    while (!out.empty() && out.back() == '=') {
        out.pop_back();
    }
    for (char& c : out) {
        c = c == '+' ? '-' : c == '/' ? '_' : c;
    }
    return out;
}

std::optional<std::string> unbase64Url(std::string_view in) {
    std::string s(in);
    for (char& c : s) {
        c = c == '-' ? '+' : c == '_' ? '/' : c;
    }
    size_t pad = (4 - s.size() % 4) % 4;
    if (pad == 3) {
        return std::nullopt;
    }
    s.append(pad, '=');
    std::string out(s.size() / 4 * 3 + 3, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(s.data()),
                            static_cast<int>(s.size()));
    if (n < 0) {
        return std::nullopt;
    }
    out.resize(static_cast<size_t>(n) - pad);
    return out;
}

}  // namespace

std::string ContinueToken::encode() const {
    std::string body =
        "{\"v\":\"meta.k8s.io/v1\",\"rv\":" + std::to_string(revision) + ",\"start\":";
    json::appendQuoted(body, start);
    body += "}";
    return base64Url(body);
}

std::optional<ContinueToken> ContinueToken::decode(std::string_view token, std::string* error) {
    std::optional<std::string> raw = unbase64Url(token);
    if (!raw) {
        *error = "continue key is not valid: illegal base64 data";
        return std::nullopt;
    }
    json::Document doc;
    if (json::parse(*raw, doc) || !doc.IsObject()) {
        *error = "continue key is not valid: the token is not a JSON object";
        return std::nullopt;
    }
    if (json::stringMember(doc, "v") != "meta.k8s.io/v1") {
        *error = "continue key is not valid: server does not recognize this encoded version";
        return std::nullopt;
    }
    const json::Value* rv = json::member(doc, "rv");
    const json::Value* start = json::member(doc, "start");
    if (!rv || !rv->IsUint64() || rv->GetUint64() == 0) {
        *error =
            "continue key is not valid: incorrect encoded start resourceVersion "
            "(version meta.k8s.io/v1)";
        return std::nullopt;
    }
    if (!start || !start->IsString() || start->GetStringLength() == 0) {
        *error = "continue key is not valid: encoded start key empty";
        return std::nullopt;
    }
    std::string_view s = json::view(*start);
    // A start key may not climb out of the list's prefix.
    if (s.find("..") != std::string_view::npos || s.starts_with("/")) {
        *error = "continue key is not valid: the start key leaves the list's prefix";
        return std::nullopt;
    }
    return ContinueToken{rv->GetUint64(), std::string(s)};
}

std::optional<ContinueToken> ContinueToken::decode(std::string_view token, meta::Status* error) {
    std::string why;
    auto parsed = decode(token, &why);
    if (!parsed) {
        *error = meta::Status::badRequest("invalid continue token: " + why);
    }
    return parsed;
}

std::string ContinueToken::after(storage::Revision revision, std::string_view lastKey,
                                 std::string_view prefix) {
    return ContinueToken{revision, std::string(lastKey.substr(prefix.size())) + '\0'}.encode();
}

}  // namespace kube::registry
