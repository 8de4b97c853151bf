#include "util/metrics/series_table.hpp"

#include <cstring>
#include <new>

namespace kube::util::metrics {

namespace {

constexpr uint32_t kEmpty = 0;
constexpr uint32_t kClaiming = 1;
constexpr uint32_t kReady = 2;

constexpr size_t kHeaderSize = 64;

// The family and the labels mixed eight bytes at a time (a multiply-xorshift,
// as in wyhash's spirit): label texts are ~150 bytes, hashed on every request.
uint64_t hashOf(uint32_t family, std::string_view labels) {
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    uint64_t h = (family + labels.size()) * k;
    size_t i = 0;
    for (; i + 8 <= labels.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, labels.data() + i, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    std::memcpy(&tail, labels.data() + i, labels.size() - i);
    h = (h ^ tail) * k;
    h ^= h >> 32;
    return h;
}

}  // namespace

struct SeriesTable::Slot {
    std::atomic<uint32_t> state;
    uint32_t family;
    uint64_t hash;
    uint16_t length;
    char labels[kMaxLabels];
    // the values follow, 8-byte aligned

    std::atomic<uint64_t>* values() {
        return reinterpret_cast<std::atomic<uint64_t>*>(reinterpret_cast<char*>(this) +
                                                        sizeof(Slot));
    }
    const std::atomic<uint64_t>* values() const {
        return reinterpret_cast<const std::atomic<uint64_t>*>(
            reinterpret_cast<const char*>(this) + sizeof(Slot));
    }
    bool holds(uint32_t f, uint64_t h, std::string_view l) const {
        return family == f && hash == h && length == l.size() &&
               std::memcmp(labels, l.data(), l.size()) == 0;
    }
};

static_assert(sizeof(SeriesTable) <= kHeaderSize);
static_assert(sizeof(std::atomic<uint64_t>) == 8 && std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<uint32_t>::is_always_lock_free);

size_t SeriesTable::slotSize(unsigned values) {
    size_t bytes = sizeof(Slot) + values * sizeof(std::atomic<uint64_t>);
    return (bytes + 63) / 64 * 64;
}

size_t SeriesTable::bytesFor(unsigned slots, unsigned values) {
    return kHeaderSize + static_cast<size_t>(slots) * slotSize(values);
}

SeriesTable::SeriesTable(unsigned slots, unsigned values)
    : slots_(slots), values_(values), stride_(slotSize(values)) {}

SeriesTable* SeriesTable::create(void* memory, unsigned slots, unsigned values) {
    // The slots' atomics start at zero: an all-zero slot is an empty one.
    return new (memory) SeriesTable(slots, values);
}

SeriesTable::Slot* SeriesTable::slot(unsigned i) {
    return reinterpret_cast<Slot*>(reinterpret_cast<char*>(this) + kHeaderSize + i * stride_);
}

const SeriesTable::Slot* SeriesTable::slot(unsigned i) const {
    return reinterpret_cast<const Slot*>(reinterpret_cast<const char*>(this) + kHeaderSize +
                                         i * stride_);
}

std::atomic<uint64_t>* SeriesTable::find(uint32_t family, std::string_view labels) {
    if (labels.size() > kMaxLabels || slots_ == 0) {
        overflow_.fetch_add(1, std::memory_order_relaxed);
        return nullptr;
    }
    uint64_t h = hashOf(family, labels);
    unsigned start = static_cast<unsigned>(h % slots_);
    unsigned probes = slots_ < kMaxProbes ? slots_ : kMaxProbes;
    for (unsigned n = 0; n < probes; n++) {
        Slot* s = slot((start + n) % slots_);
        uint32_t state = s->state.load(std::memory_order_acquire);
        if (state == kReady) {
            if (s->holds(family, h, labels)) {
                return s->values();
            }
            continue;
        }
        if (state == kClaiming) {
            continue;  // never wait: its owner may be gone
        }
        uint32_t expected = kEmpty;
        if (!s->state.compare_exchange_strong(expected, kClaiming, std::memory_order_acquire)) {
            if (expected == kReady && s->holds(family, h, labels)) {
                return s->values();
            }
            continue;
        }
        s->family = family;
        s->hash = h;
        s->length = static_cast<uint16_t>(labels.size());
        std::memcpy(s->labels, labels.data(), labels.size());
        s->state.store(kReady, std::memory_order_release);
        used_.fetch_add(1, std::memory_order_relaxed);
        return s->values();
    }
    overflow_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
}

void SeriesTable::forEach(
    uint32_t family,
    const std::function<void(std::string_view, const std::atomic<uint64_t>*)>& fn,
    uint32_t mask) const {
    for (unsigned i = 0; i < slots_; i++) {
        const Slot* s = slot(i);
        if (s->state.load(std::memory_order_acquire) == kReady && (s->family & mask) == family) {
            fn(std::string_view(s->labels, s->length), s->values());
        }
    }
}

void SeriesTable::reset(uint32_t family) {
    for (unsigned i = 0; i < slots_; i++) {
        Slot* s = slot(i);
        if (s->state.load(std::memory_order_acquire) == kReady && s->family == family) {
            for (unsigned v = 0; v < values_; v++) {
                s->values()[v].store(0, std::memory_order_relaxed);
            }
        }
    }
}

}  // namespace kube::util::metrics
