#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace kube::util::metrics {

// The series of metric families with open-ended label sets (resources,
// codes, flow schemas), kept in memory every worker process maps (an nginx
// shared zone): a fixed-capacity open-addressing table whose slots are keyed
// by (family, label text), each slot holding `values` 64-bit atomics (one for
// a counter or a gauge; the buckets and the sum of a histogram).
//
// Lock-free and allocation-free, since it sits on every request's path and a
// worker may die at any instruction:
// - A series' slot is found by hashing family and labels and probing linearly
//   at most kMaxProbes slots.
// - An empty slot is claimed by a compare-and-swap of its state (empty ->
//   claiming), filled, then published (ready, release order). Readers only
//   look at ready slots.
// - A slot another process is still claiming is passed over rather than
//   waited for (its owner may have died holding it): at worst the same series
//   gets a second slot, and readers sum the slots of equal series.
// - When no slot is free within kMaxProbes, or the labels are longer than
//   kMaxLabels, the observation is dropped and counted in overflow().
// Values are plain atomics: counters and histogram buckets only grow (modulo
// 2^64), gauges are added to with two's-complement deltas and read signed.
//
// Memory: slotSize(values) bytes per slot, laid out by create() in memory the
// caller owns and zeroed; the layout holds no pointers, so every process may
// map it at its own address.
class SeriesTable {
  public:
    // Label text longer than this (`verb="GET",...`, escaped) is not stored.
    static constexpr size_t kMaxLabels = 344;
    static constexpr unsigned kMaxProbes = 64;

    // Bytes one slot with `values` values takes (a multiple of 64).
    static size_t slotSize(unsigned values);
    // Bytes a table of `slots` slots takes, header included.
    static size_t bytesFor(unsigned slots, unsigned values);

    // Lays out an empty table in `memory` (bytesFor(slots, values) bytes,
    // 64-byte aligned, zeroed).
    static SeriesTable* create(void* memory, unsigned slots, unsigned values);

    // The values of the series (family, labels), claiming a slot for a new
    // one; null when the table has no room for it (counted in overflow()).
    std::atomic<uint64_t>* find(uint32_t family, std::string_view labels);

    // Every ready slot whose family, masked with `mask`, is `family`, in slot
    // order: its labels and values.
    void forEach(uint32_t family,
                 const std::function<void(std::string_view labels,
                                          const std::atomic<uint64_t>* values)>& fn,
                 uint32_t mask = ~0u) const;

    // Zeroes the values of every series of `family` (a gauge's share of a
    // process that is gone); the series keep their slots.
    void reset(uint32_t family);

    unsigned capacity() const { return slots_; }
    unsigned valuesPerSlot() const { return values_; }
    // Slots in use.
    unsigned used() const { return used_.load(std::memory_order_relaxed); }
    // Observations dropped for want of room.
    uint64_t overflow() const { return overflow_.load(std::memory_order_relaxed); }

  private:
    struct Slot;

    SeriesTable(unsigned slots, unsigned values);
    Slot* slot(unsigned i);
    const Slot* slot(unsigned i) const;

    unsigned slots_;
    unsigned values_;
    size_t stride_;
    std::atomic<unsigned> used_{0};
    std::atomic<uint64_t> overflow_{0};
};

}  // namespace kube::util::metrics
