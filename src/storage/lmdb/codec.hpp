#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "storage/event.hpp"
#include "storage/interface.hpp"

// The byte layout of the three LMDB databases (spec/storage.md §1.5):
//   objects  key         -> [be64 mod_rev][be64 create_rev][object bytes]
//   revlog   be64(rev)   -> [u8 type][be16 keylen][key][object bytes]
//            type: 0 a Put that updated the key, 1 a Delete, 2 a Put that created it
//   meta     "rev", "compact_rev" -> be64
// Big-endian revisions sort numerically under LMDB's memcmp key order, which
// is what lets the revlog be appended with MDB_APPEND and scanned in order.
namespace kube::storage::lmdb {

inline constexpr std::string_view kMetaRevision = "rev";
inline constexpr std::string_view kMetaCompactRevision = "compact_rev";

inline constexpr size_t kObjectHeaderSize = 16;
inline constexpr size_t kRevlogHeaderSize = 3;
// A revlog entry stores the key length in 16 bits.
inline constexpr size_t kMaxRevlogKeySize = 0xffff;

using Be64 = std::array<char, 8>;

Be64 encodeBe64(uint64_t v);
// False unless `bytes` is exactly 8 bytes long.
bool decodeBe64(std::string_view bytes, uint64_t* out);

// Bytes of an objects value holding `valueSize` object bytes.
constexpr size_t objectSize(size_t valueSize) {
    return kObjectHeaderSize + valueSize;
}

// Writes objectSize(value.size()) bytes to `out`.
void encodeObject(char* out, Revision modRevision, Revision createRevision, std::string_view value);

// Fills `out` (key included) from a stored objects value; false when it is too
// short to be one.
bool decodeObject(std::string_view key, std::string_view stored, ObjectView* out);

// Bytes of a revlog value for a key and object bytes.
constexpr size_t revlogSize(size_t keySize, size_t valueSize) {
    return kRevlogHeaderSize + keySize + valueSize;
}

// Writes revlogSize(key.size(), value.size()) bytes to `out` for `event`
// (its revision is the entry's key, not part of the value); the key must be at
// most kMaxRevlogKeySize bytes.
void encodeRevlog(char* out, const Event& event);

// Fills `out` from a revlog entry of revision `revision`; false when malformed.
bool decodeRevlog(Revision revision, std::string_view stored, Event* out);

}  // namespace kube::storage::lmdb
