#include "util/uid.hpp"

#include <openssl/rand.h>

#include <array>
#include <cstdio>
#include <stdexcept>

namespace kube::util {

namespace {

template <size_t N>
std::array<unsigned char, N> randomBytes() {
    std::array<unsigned char, N> b{};
    if (RAND_bytes(b.data(), static_cast<int>(N)) != 1) {
        // The kernel's entropy source failing is not a request-driven outcome.
        throw std::runtime_error("RAND_bytes failed");
    }
    return b;
}

}  // namespace

std::string newUid() {
    auto b = randomBytes<16>();
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
    char out[37];
    snprintf(out, sizeof out,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
    return out;
}

std::string randomSuffix(size_t n) {
    static constexpr char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    auto b = randomBytes<64>();
    std::string out;
    for (size_t i = 0; i < n && i < b.size(); i++) {
        out.push_back(alphabet[b[i] % (sizeof alphabet - 1)]);
    }
    return out;
}

}  // namespace kube::util
