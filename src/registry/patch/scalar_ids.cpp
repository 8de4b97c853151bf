#include "registry/patch/scalar_ids.hpp"

#include <cstring>
#include <functional>

namespace kube::registry::patch {

namespace json = util::json;

namespace {

uint64_t mix(uint64_t x, uint64_t tag) {
    x ^= tag * 0x9e3779b97f4a7c15ULL;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

constexpr size_t kInline = sizeof(uint64_t);

}  // namespace

ScalarIds::Entry ScalarIds::entryOf(const json::Value* v, std::string_view* text) {
    if (!v || v->IsNull()) {
        return {0, 0, Kind::Nil};
    }
    if (v->IsString()) {
        *text = json::view(*v);
        Entry e{0, static_cast<uint32_t>(text->size()), Kind::String};
        if (text->size() <= kInline) {
            // Little-endian, as rehash() reads the bytes back.
            for (size_t i = 0; i < text->size(); ++i) {
                e.bits |= static_cast<uint64_t>(static_cast<unsigned char>((*text)[i])) << (8 * i);
            }
        }
        return e;
    }
    if (v->IsBool()) {
        return {v->GetBool() ? 1U : 0U, 0, Kind::Bool};
    }
    if (v->IsInt64()) {
        // Go's int64; a uint64 above its range stays apart from every int64.
        return {static_cast<uint64_t>(v->GetInt64()), 0, Kind::Int};
    }
    if (v->IsUint64()) {
        return {v->GetUint64(), 0, Kind::Uint};
    }
    double d = v->GetDouble();
    if (d == 0) {
        d = 0;  // -0 equals 0
    }
    Entry e{0, 0, Kind::Float};
    std::memcpy(&e.bits, &d, sizeof d);
    return e;
}

uint64_t ScalarIds::hashText(std::string_view text) {
    return std::hash<std::string_view>()(text);
}

uint64_t ScalarIds::hashOther(const json::Value* v) {
    if (v && (v->IsObject() || v->IsArray())) {
        return 0;
    }
    std::string_view text;
    Entry e = entryOf(v, &text);
    if (e.kind == Kind::String) {
        return hashText(text);
    }
    return mix(e.bits, static_cast<uint64_t>(e.kind) + 1);
}

bool ScalarIds::equalOther(const json::Value* x, const json::Value* y) {
    if ((x && (x->IsObject() || x->IsArray())) || (y && (y->IsObject() || y->IsArray()))) {
        return false;
    }
    std::string_view xText;
    std::string_view yText;
    Entry ex = entryOf(x, &xText);
    Entry ey = entryOf(y, &yText);
    if (ex.kind != ey.kind || ex.size != ey.size) {
        return false;
    }
    return ex.kind == Kind::String ? xText == yText : ex.bits == ey.bits;
}

void ScalarIds::reserve(size_t n) {
    entries_.reserve(n);
    size_t want = 16;
    while (want * 3 < n * 4) {
        want *= 2;
    }
    if (slots_.size() < want) {
        rehash(want);
    }
}

bool ScalarIds::same(const Entry& stored, const Entry& e, std::string_view text) const {
    if (stored.kind != e.kind || stored.size != e.size) {
        return false;
    }
    if (e.kind != Kind::String || e.size <= kInline) {
        return stored.bits == e.bits;
    }
    return std::memcmp(text_.data() + stored.bits, text.data(), e.size) == 0;
}

int ScalarIds::lookup(const Entry& e, std::string_view text, uint64_t h, size_t* free) const {
    if (slots_.empty()) {
        return kNone;
    }
    size_t mask = slots_.size() - 1;
    auto h32 = static_cast<uint32_t>(h >> 32);
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const Slot& s = slots_[i];
        if (s.id < 0) {
            if (free) {
                *free = i;
            }
            return kNone;
        }
        if (s.hash == h32 && same(entries_[s.id], e, text)) {
            return s.id;
        }
    }
}

int ScalarIds::find(const json::Value* v, uint64_t h) const {
    if (v && (v->IsObject() || v->IsArray())) {
        return kNone;
    }
    std::string_view text;
    Entry e = entryOf(v, &text);
    return lookup(e, text, h, nullptr);
}

int ScalarIds::of(const json::Value* v, uint64_t h) {
    if (v && (v->IsObject() || v->IsArray())) {
        return kNone;
    }
    if ((entries_.size() + 1) * 4 > slots_.size() * 3) {
        grow();
    }
    std::string_view text;
    Entry e = entryOf(v, &text);
    size_t free = 0;
    int id = lookup(e, text, h, &free);
    if (id != kNone) {
        return id;
    }
    if (e.kind == Kind::String && e.size > kInline) {
        e.bits = text_.size();
        text_.append(text);
    }
    id = count();
    entries_.push_back(e);
    slots_[free] = {static_cast<uint32_t>(h >> 32), id};
    return id;
}

void ScalarIds::grow() {
    rehash(slots_.empty() ? 16 : slots_.size() * 2);
}

void ScalarIds::rehash(size_t capacity) {
    slots_.assign(capacity, Slot{0, -1});
    // Each entry's slot again: its hash is not kept, so it is worked out.
    size_t mask = slots_.size() - 1;
    for (int id = 0; id < count(); ++id) {
        const Entry& e = entries_[id];
        uint64_t h = 0;
        if (e.kind == Kind::String) {
            char inlined[kInline];
            for (size_t i = 0; i < kInline; ++i) {
                inlined[i] = static_cast<char>(e.bits >> (8 * i));
            }
            std::string_view text = e.size <= kInline
                                        ? std::string_view(inlined, e.size)
                                        : std::string_view(text_.data() + e.bits, e.size);
            h = hashText(text);
        } else {
            h = mix(e.bits, static_cast<uint64_t>(e.kind) + 1);
        }
        size_t i = h & mask;
        while (slots_[i].id >= 0) {
            i = (i + 1) & mask;
        }
        slots_[i] = {static_cast<uint32_t>(h >> 32), id};
    }
}

}  // namespace kube::registry::patch
