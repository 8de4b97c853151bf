#include "util/metrics/text_format.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

namespace kube::util::metrics {

unsigned Buckets::index(double value) const {
    unsigned i = 0;
    while (i < bounds.size() && value > bounds[i]) {
        i++;
    }
    return i;
}

void Buckets::observe(std::atomic<uint64_t>* slot, double value, uint64_t units) const {
    slot[index(value)].fetch_add(1, std::memory_order_relaxed);
    slot[bounds.size() + 1].fetch_add(units, std::memory_order_relaxed);
}

namespace {

template <typename Put>
void escaped(std::string_view value, Put put) {
    for (char c : value) {
        if (c == '\\') {
            put("\\\\");
        } else if (c == '"') {
            put("\\\"");
        } else if (c == '\n') {
            put("\\n");
        } else {
            put(std::string_view(&c, 1));
        }
    }
}

}  // namespace

void appendLabel(std::string& out, std::string_view name, std::string_view value) {
    if (!out.empty()) {
        out += ',';
    }
    out += name;
    out += "=\"";
    escaped(value, [&out](std::string_view s) { out += s; });
    out += '"';
}

void LabelBuffer::put(std::string_view s) {
    if (!ok_ || s.size() > sizeof(buf_) - len_) {
        ok_ = false;
        return;
    }
    if (!s.empty()) {  // an empty view's data() may be null
        std::memcpy(buf_ + len_, s.data(), s.size());
        len_ += s.size();
    }
}

void LabelBuffer::put(char c) { put(std::string_view(&c, 1)); }

void LabelBuffer::add(std::string_view name, std::string_view value) {
    if (len_ > 0) {
        put(',');
    }
    put(name);
    put("=\"");
    if (value.find_first_of("\\\"\n") == std::string_view::npos) {
        put(value);
    } else {
        escaped(value, [this](std::string_view s) { put(s); });
    }
    put('"');
}

void appendHeader(std::string& out, std::string_view name, std::string_view type,
                  std::string_view help) {
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
}

void appendSample(std::string& out, std::string_view name, std::string_view labels,
                  std::string_view value) {
    out += name;
    if (!labels.empty()) {
        out += '{';
        out += labels;
        out += '}';
    }
    out += ' ';
    out += value;
    out += '\n';
}

std::string formatFloat(double v) {
    if (std::isinf(v)) {
        return v > 0 ? "+Inf" : "-Inf";
    }
    if (std::isnan(v)) {
        return "NaN";
    }
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
    return ec == std::errc() ? std::string(buf, end) : std::string("NaN");
}

std::map<std::string, std::vector<uint64_t>, std::less<>> collect(const SeriesTable& table,
                                                                  uint32_t family,
                                                                  uint32_t mask) {
    std::map<std::string, std::vector<uint64_t>, std::less<>> series;
    unsigned n = table.valuesPerSlot();
    table.forEach(family, [&](std::string_view labels, const std::atomic<uint64_t>* values) {
        auto it = series.find(labels);
        if (it == series.end()) {
            it = series.emplace(std::string(labels), std::vector<uint64_t>(n, 0)).first;
        }
        for (unsigned i = 0; i < n; i++) {
            it->second[i] += values[i].load(std::memory_order_relaxed);
        }
    }, mask);
    return series;
}

void appendScalars(std::string& out, std::string_view name, const SeriesTable& table,
                   uint32_t family, bool isSigned, uint32_t mask) {
    for (const auto& [labels, values] : collect(table, family, mask)) {
        appendSample(out, name, labels,
                     isSigned ? std::to_string(static_cast<int64_t>(values[0]))
                              : std::to_string(values[0]));
    }
}

void appendHistograms(std::string& out, std::string_view name, const Buckets& buckets,
                      const SeriesTable& table, uint32_t family, uint32_t mask) {
    std::string bucketName = std::string(name) + "_bucket";
    size_t n = buckets.bounds.size();
    for (const auto& [labels, values] : collect(table, family, mask)) {
        uint64_t cumulative = 0;
        for (size_t i = 0; i <= n; i++) {
            cumulative += values[i];
            std::string withLe = labels;
            appendLabel(withLe, "le", i < n ? formatFloat(buckets.bounds[i]) : "+Inf");
            appendSample(out, bucketName, withLe, std::to_string(cumulative));
        }
        appendSample(out, std::string(name) + "_sum", labels,
                     formatFloat(static_cast<double>(values[n + 1]) * buckets.unit));
        appendSample(out, std::string(name) + "_count", labels, std::to_string(cumulative));
    }
}

}  // namespace kube::util::metrics
