#include "storage/lmdb/codec.hpp"

#include <cstring>

namespace kube::storage::lmdb {

namespace {

void putBe64(char* out, uint64_t v) {
    for (int i = 7; i >= 0; i--) {
        out[i] = static_cast<char>(v & 0xff);
        v >>= 8;
    }
}

uint64_t getBe64(const char* in) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v = (v << 8) | static_cast<unsigned char>(in[i]);
    }
    return v;
}

// The revlog type byte.
enum RevlogType : unsigned char { kUpdated = 0, kDeleted = 1, kCreated = 2 };

}  // namespace

Be64 encodeBe64(uint64_t v) {
    Be64 out;
    putBe64(out.data(), v);
    return out;
}

bool decodeBe64(std::string_view bytes, uint64_t* out) {
    if (bytes.size() != 8) {
        return false;
    }
    *out = getBe64(bytes.data());
    return true;
}

void encodeObject(char* out, Revision modRevision, Revision createRevision,
                  std::string_view value) {
    putBe64(out, modRevision);
    putBe64(out + 8, createRevision);
    if (!value.empty()) {
        std::memcpy(out + kObjectHeaderSize, value.data(), value.size());
    }
}

bool decodeObject(std::string_view key, std::string_view stored, ObjectView* out) {
    if (stored.size() < kObjectHeaderSize) {
        return false;
    }
    out->key = key;
    out->modRevision = getBe64(stored.data());
    out->createRevision = getBe64(stored.data() + 8);
    out->value = stored.substr(kObjectHeaderSize);
    return true;
}

void encodeRevlog(char* out, const Event& event) {
    const std::string_view key = event.key;
    const std::string_view value = event.value;
    const RevlogType type = event.type == Event::Delete ? kDeleted
                            : event.created             ? kCreated
                                                        : kUpdated;
    out[0] = static_cast<char>(type);
    out[1] = static_cast<char>((key.size() >> 8) & 0xff);
    out[2] = static_cast<char>(key.size() & 0xff);
    std::memcpy(out + kRevlogHeaderSize, key.data(), key.size());
    if (!value.empty()) {
        std::memcpy(out + kRevlogHeaderSize + key.size(), value.data(), value.size());
    }
}

bool decodeRevlog(Revision revision, std::string_view stored, Event* out) {
    if (stored.size() < kRevlogHeaderSize) {
        return false;
    }
    const auto type = static_cast<unsigned char>(stored[0]);
    const size_t keySize = (static_cast<size_t>(static_cast<unsigned char>(stored[1])) << 8) |
                           static_cast<unsigned char>(stored[2]);
    if (type > kCreated || stored.size() < kRevlogHeaderSize + keySize) {
        return false;
    }
    out->type = type == kDeleted ? Event::Delete : Event::Put;
    out->created = type == kCreated;
    out->revision = revision;
    out->key = stored.substr(kRevlogHeaderSize, keySize);
    out->value = stored.substr(kRevlogHeaderSize + keySize);
    return true;
}

}  // namespace kube::storage::lmdb
