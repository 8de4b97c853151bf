#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"

namespace kube::registry::patch {

// Go's == on the values one list merge compares (primitive items, merge
// keys) turned into small integers: equal scalars get the same id, counted
// from 0, so that matching items is comparing ids and a list's positions
// can be kept in a vector indexed by id. A missing value (nullptr) is the
// same nil as a JSON null; an integer and a float differ; -0 equals 0;
// objects and arrays equal nothing, not even themselves, and get kNone.
// Keeps its own copy of every value it has seen: the lists' values may move
// or go meanwhile.
//
// Interning a long list is bound by cache misses in the table: of() with a
// hash from hash(), and prefetch() of the hashes a few items ahead, hide
// most of them.
class ScalarIds {
  public:
    static constexpr int kNone = -1;

    // Room for `n` distinct values without growing.
    void reserve(size_t n);

    // The id of `v`, a new one the first time it is seen.
    int of(const util::json::Value* v) { return of(v, hash(v)); }
    // The same with `h` = hash(v).
    int of(const util::json::Value* v, uint64_t h);

    // The id of `v` if it has one, else kNone; adds nothing.
    int find(const util::json::Value* v) const { return find(v, hash(v)); }
    // The same with `h` = hash(v).
    int find(const util::json::Value* v, uint64_t h) const;

    // A hash of `v` for of(); any value for objects and arrays.
    static uint64_t hash(const util::json::Value* v) {
        if (v && v->IsString()) {
            return hashText(util::json::view(*v));
        }
        return hashOther(v);
    }

    // Whether `x` and `y` would get the same id (two scalars equal as
    // above), without a table. Strings, the usual items, are compared at
    // once.
    static bool equal(const util::json::Value* x, const util::json::Value* y) {
        if (x && y && x->IsString() && y->IsString()) {
            return util::json::view(*x) == util::json::view(*y);
        }
        return equalOther(x, y);
    }

    // Starts loading the table slot of a value whose hash() is `h`.
    void prefetch(uint64_t h) const {
        if (!slots_.empty()) {
            __builtin_prefetch(&slots_[h & (slots_.size() - 1)]);
        }
    }

    // How many ids there are: every id is below.
    int count() const { return static_cast<int>(entries_.size()); }

  private:
    enum class Kind : uint8_t { Nil, Bool, Int, Uint, Float, String };
    // A value as compared: strings up to 8 bytes are kept in `bits`,
    // longer ones in text_ from `bits` on.
    struct Entry {
        uint64_t bits;
        uint32_t size;
        Kind kind;
    };
    struct Slot {
        uint32_t hash;
        int32_t id;  // -1: free
    };

    static uint64_t hashText(std::string_view text);
    static uint64_t hashOther(const util::json::Value* v);
    static bool equalOther(const util::json::Value* x, const util::json::Value* y);
    static Entry entryOf(const util::json::Value* v, std::string_view* text);
    bool same(const Entry& stored, const Entry& e, std::string_view text) const;
    int lookup(const Entry& e, std::string_view text, uint64_t h, size_t* free) const;
    void grow();
    // Every entry placed again in `capacity` (a power of 2) slots.
    void rehash(size_t capacity);

    std::vector<Slot> slots_;
    std::vector<Entry> entries_;
    std::string text_;
};

}  // namespace kube::registry::patch
