#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/metrics/series_table.hpp"

namespace kube::util::metrics {

// Writing series for the Prometheus text exposition format 0.0.4, and the
// histogram layout the SeriesTable's slots use.

// A histogram's upper bounds, as kube's registry declares them. A slot holds
// one non-cumulative count per bucket (the last one +Inf) and the sum in
// `unit`s (nanoseconds for seconds, bytes for sizes), so an observation costs
// two atomic adds; the cumulative buckets and the count are computed when the
// series is written, so +Inf always equals the count.
struct Buckets {
    std::vector<double> bounds;
    // What one unit of the stored sum is worth in the metric's unit (1e-9:
    // nanoseconds of a seconds histogram).
    double unit = 1;

    // Values a slot needs: the buckets, +Inf and the sum.
    unsigned values() const { return static_cast<unsigned>(bounds.size()) + 2; }
    // The bucket `value` (in the metric's unit) falls in.
    unsigned index(double value) const;
    // Records one observation of `value`, whose sum is `units` of unit.
    void observe(std::atomic<uint64_t>* slot, double value, uint64_t units) const;
};

// Appends `name="value"` (value escaped as the format requires: \\, \", \n),
// after a comma unless `out` is empty.
void appendLabel(std::string& out, std::string_view name, std::string_view value);

// The label writer of the hot path: a fixed buffer, no allocation. Once full
// (the labels would not fit a SeriesTable slot) it stays failed.
class LabelBuffer {
  public:
    void add(std::string_view name, std::string_view value);
    bool ok() const { return ok_; }
    std::string_view view() const { return {buf_, len_}; }

  private:
    void put(std::string_view s);
    void put(char c);
    char buf_[SeriesTable::kMaxLabels];
    size_t len_ = 0;
    bool ok_ = true;
};

// `# HELP` and `# TYPE` lines.
void appendHeader(std::string& out, std::string_view name, std::string_view type,
                  std::string_view help);

// One sample line; `labels` is label text as appendLabel writes it.
void appendSample(std::string& out, std::string_view name, std::string_view labels,
                  std::string_view value);

// Shortest text that reads back as `v` ("0.005", "1e+06", "+Inf").
std::string formatFloat(double v);

// The series of `family` in `table`, slots of equal labels summed (a series
// may hold two slots; see SeriesTable), by label text.
std::map<std::string, std::vector<uint64_t>, std::less<>> collect(const SeriesTable& table,
                                                                  uint32_t family,
                                                                  uint32_t mask = ~0u);

// Writes a counter's or gauge's series; a gauge's values are read signed.
// With `mask`, every family that masked is `family` (a gauge's per-process
// shares) is summed.
void appendScalars(std::string& out, std::string_view name, const SeriesTable& table,
                   uint32_t family, bool isSigned, uint32_t mask = ~0u);

// Writes a histogram's _bucket (cumulative, le last), _sum and _count lines;
// with `mask`, the series of every family that masked is `family` summed.
void appendHistograms(std::string& out, std::string_view name, const Buckets& buckets,
                      const SeriesTable& table, uint32_t family, uint32_t mask = ~0u);

}  // namespace kube::util::metrics
