#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kube::registry::patch {

// A hash index of small integer handles (positions in a list or an
// object) whose keys live elsewhere: open addressing in two flat arrays, so
// indexing 100,000 members costs two allocations rather than one per
// member. The caller hashes its key and says which handle holds it.
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
        auto h = static_cast<uint32_t>(hash);
        for (size_t i = hash & mask;; i = (i + 1) & mask) {
            int32_t s = slots_[i];
            if (s < 0) {
                return -1;
            }
            if (hashes_[i] == h && same(s)) {
                return s;
            }
        }
    }

    // Adds `handle`, whose key find() does not hold yet (or holds only
    // for handles `same` now rejects).
    void insert(size_t hash, int handle) {
        if ((size_ + 1) * 2 > slots_.size()) {
            rehash(slots_.empty() ? 16 : slots_.size() * 2);
        }
        place(static_cast<uint32_t>(hash), static_cast<int32_t>(handle), hash);
        ++size_;
    }

    void clear() {
        slots_.clear();
        hashes_.clear();
        size_ = 0;
    }

  private:
    void place(uint32_t h, int32_t handle, size_t hash) {
        size_t mask = slots_.size() - 1;
        size_t i = hash & mask;
        while (slots_[i] >= 0) {
            i = (i + 1) & mask;
        }
        slots_[i] = handle;
        hashes_[i] = h;
    }

    void rehash(size_t capacity) {
        size_t n = 16;
        while (n < capacity) {
            n *= 2;
        }
        std::vector<int32_t> slots(n, -1);
        std::vector<uint32_t> hashes(n, 0);
        slots.swap(slots_);
        hashes.swap(hashes_);
        for (size_t i = 0; i < slots.size(); ++i) {
            if (slots[i] >= 0) {
                place(hashes[i], slots[i], hashes[i]);
            }
        }
    }

    std::vector<int32_t> slots_;
    std::vector<uint32_t> hashes_;
    size_t size_ = 0;
};

}  // namespace kube::registry::patch
