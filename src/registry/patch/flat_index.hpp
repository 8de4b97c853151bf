#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kube::registry::patch {

// A hash index of small integer handles (positions in a list or an
// object) whose keys live elsewhere: open addressing in one flat array of
// slots, each a handle with the low half of its key's hash, so indexing
// 100,000 members costs one allocation rather than one per member and a
// probe one cache line. The caller hashes its key and says which handle
// holds it. A big index misses the cache on nearly every probe: prefetch()
// the hashes of the next few keys to hide it.
class FlatIndex {
  public:
    // Room for `n` handles without growing.
    void reserve(size_t n) {
        if (n * 2 > slots_.size()) {
            rehash(n * 2);
        }
    }

    // The first handle added with `hash` for which `same(handle)` holds, or -1.
    template <typename Same>
    int find(size_t hash, Same same) const {
        if (slots_.empty()) {
            return -1;
        }
        size_t mask = slots_.size() - 1;
        uint32_t tag = tagOf(hash);
        for (size_t i = hash & mask;; i = (i + 1) & mask) {
            const Slot& s = slots_[i];
            if (s.handle < 0) {
                return -1;
            }
            if (s.tag == tag && same(s.handle)) {
                return s.handle;
            }
        }
    }

    // Adds `handle`, whose key find() does not hold yet (or holds only
    // for handles `same` now rejects).
    void insert(size_t hash, int handle) {
        growFor(size_ + 1);
        place(tagOf(hash), static_cast<int32_t>(handle), hash);
        ++size_;
    }

    // Adds `handle` unless a handle with the same key is there: returns
    // that handle, or -1 when `handle` was added. One probe for both.
    template <typename Same>
    int insertFirst(size_t hash, int handle, Same same) {
        growFor(size_ + 1);
        size_t mask = slots_.size() - 1;
        uint32_t tag = tagOf(hash);
        size_t i = hash & mask;
        for (;; i = (i + 1) & mask) {
            const Slot& s = slots_[i];
            if (s.handle < 0) {
                break;
            }
            if (s.tag == tag && same(s.handle)) {
                return s.handle;
            }
        }
        slots_[i] = {static_cast<int32_t>(handle), tag};
        ++size_;
        return -1;
    }

    // Starts loading the first slot of a key hashed `hash`.
    void prefetch(size_t hash) const {
        if (!slots_.empty()) {
            __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
        }
    }

    void clear() {
        slots_.clear();
        size_ = 0;
    }

  private:
    struct Slot {
        int32_t handle;  // -1: free
        uint32_t tag;
    };

    // The low half of the hash: it holds the slot's home position in any
    // table of up to 2^32 slots, so the table grows without the keys.
    static uint32_t tagOf(size_t hash) { return static_cast<uint32_t>(hash); }

    void growFor(size_t n) {
        if (n * 2 > slots_.size()) {
            rehash(slots_.empty() ? 16 : slots_.size() * 2);
        }
    }

    void place(uint32_t tag, int32_t handle, size_t hash) {
        size_t mask = slots_.size() - 1;
        size_t i = hash & mask;
        while (slots_[i].handle >= 0) {
            i = (i + 1) & mask;
        }
        slots_[i] = {handle, tag};
    }

    void rehash(size_t capacity) {
        size_t n = 16;
        while (n < capacity) {
            n *= 2;
        }
        std::vector<Slot> old(n, Slot{-1, 0});
        old.swap(slots_);
        for (const Slot& s : old) {
            if (s.handle >= 0) {
                place(s.tag, s.handle, s.tag);
            }
        }
    }

    std::vector<Slot> slots_;
    size_t size_ = 0;
};

}  // namespace kube::registry::patch
