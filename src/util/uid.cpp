#include "util/uid.hpp"

#include <openssl/rand.h>
#include <pthread.h>

#include <array>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace kube::util {

namespace {

// Random bytes from OpenSSL's generator, drawn a block at a time: every
// request has an Audit-ID, and one RAND_bytes call per 16 bytes cost more
// than the rest of a small GET's handling. The block is per thread, and a
// forked child (an nginx worker) drops what its parent drew, so no two
// processes hand out the same bytes.
struct RandomBlock {
    unsigned char bytes[4096];
    size_t used = sizeof bytes;
};

thread_local RandomBlock block;

void dropAfterFork() {
    std::memset(block.bytes, 0, sizeof block.bytes);
    block.used = sizeof block.bytes;
}

void randomBytes(unsigned char* out, size_t n) {
    static std::once_flag registered;
    std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, dropAfterFork); });

    while (n > 0) {
        if (block.used == sizeof block.bytes) {
            if (RAND_bytes(block.bytes, static_cast<int>(sizeof block.bytes)) != 1) {
                // The kernel's entropy source failing is not a request-driven outcome.
                throw std::runtime_error("RAND_bytes failed");
            }
            block.used = 0;
        }
        size_t take = std::min(n, sizeof block.bytes - block.used);
        std::memcpy(out, block.bytes + block.used, take);
        // what was handed out is not kept
        std::memset(block.bytes + block.used, 0, take);
        block.used += take;
        out += take;
        n -= take;
    }
}

}  // namespace

std::string newUid() {
    std::array<unsigned char, 16> b;
    randomBytes(b.data(), b.size());
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
    static constexpr char hex[] = "0123456789abcdef";
    std::string out(36, '-');
    size_t o = 0;
    for (size_t i = 0; i < b.size(); i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) {
            o++;  // the dash already there
        }
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 0x0f];
    }
    return out;
}

std::string randomSuffix(size_t n) {
    static constexpr char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::array<unsigned char, 64> b;
    randomBytes(b.data(), b.size());
    std::string out;
    for (size_t i = 0; i < n && i < b.size(); i++) {
        out.push_back(alphabet[b[i] % (sizeof alphabet - 1)]);
    }
    return out;
}

}  // namespace kube::util
