#include "util/base64.hpp"

#include <openssl/evp.h>

#include <cstdint>

namespace kube::util {

namespace {

// A character's 6 bits, -1 outside the standard alphabet.
int sextet(char c) {
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

}  // namespace

std::optional<std::string> decodeBase64(std::string_view text) {
    std::string clean;
    std::string_view in = text;
    if (text.find_first_of("\r\n") != std::string_view::npos) {
        for (char c : text) {
            if (c != '\r' && c != '\n') {
                clean.push_back(c);
            }
        }
        in = clean;
    }
    if (in.size() % 4 != 0) {
        return std::nullopt;
    }
    std::string out;
    out.reserve(in.size() / 4 * 3);
    for (size_t i = 0; i < in.size(); i += 4) {
        bool last = i + 4 == in.size();
        int pad = last ? (in[i + 3] == '=') + (in[i + 2] == '=') : 0;
        if (pad == 1 && in[i + 2] == '=') {
            return std::nullopt;
        }
        uint32_t bits = 0;
        for (int k = 0; k < 4 - pad; k++) {
            int v = sextet(in[i + static_cast<size_t>(k)]);
            if (v < 0) {
                return std::nullopt;
            }
            bits |= static_cast<uint32_t>(v) << (18 - 6 * k);
        }
        out.push_back(static_cast<char>(bits >> 16));
        if (pad < 2) {
            out.push_back(static_cast<char>(bits >> 8));
        }
        if (pad < 1) {
            out.push_back(static_cast<char>(bits));
        }
    }
    return out;
}

std::string encodeBase64(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(bytes.data()),
                            static_cast<int>(bytes.size()));
    out.resize(static_cast<size_t>(n));
    return out;
}

}  // namespace kube::util
