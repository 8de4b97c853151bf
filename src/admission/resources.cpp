#include "admission/resources.hpp"

#include <array>
#include <cstdint>

namespace kube::admission::resources {

namespace json = util::json;
using util::Quantity;

namespace {

// An amount of `milli` thousandths in `format`, written canonically.
Quantity fromMilli(int64_t milli, Quantity::Format format) {
    bool negative = milli < 0;
    uint64_t m = negative ? 0 - static_cast<uint64_t>(milli) : static_cast<uint64_t>(milli);
    std::string text;
    if (m % 1000 != 0) {
        text = std::to_string(m) + "m";
    } else {
        uint64_t units = m / 1000;
        text = std::to_string(units);
        if (format == Quantity::Format::BinarySI && units != 0) {
            static constexpr std::array<const char*, 6> suffixes = {"Ki", "Mi", "Gi",
                                                                    "Ti", "Pi", "Ei"};
            size_t k = 0;
            while (units % 1024 == 0 && k < suffixes.size()) {
                units /= 1024;
                k++;
            }
            text = std::to_string(units) + (k ? suffixes[k - 1] : "");
        }
    }
    std::optional<Quantity> q = Quantity::parse((negative ? "-" : "") + text);
    return q ? *q : Quantity();
}

void sumInto(List& sum, const json::Value* containers, const char* which, bool max) {
    if (!containers || !containers->IsArray()) {
        return;
    }
    for (const json::Value& c : containers->GetArray()) {
        const json::Value* r = c.IsObject() ? json::at(c, {"resources", which}) : nullptr;
        List one = listOf(r);
        if (max) {
            maxInto(sum, one);
        } else {
            addTo(sum, one);
        }
    }
}

List podAmounts(const json::Value& pod, const char* which) {
    List sum;
    const json::Value* spec = json::member(pod, "spec");
    if (!spec || !spec->IsObject()) {
        return sum;
    }
    sumInto(sum, json::member(*spec, "containers"), which, false);
    sumInto(sum, json::member(*spec, "initContainers"), which, true);
    addTo(sum, listOf(json::member(*spec, "overhead")));
    return sum;
}

}  // namespace

List listOf(const json::Value* list) {
    List out;
    if (!list || !list->IsObject()) {
        return out;
    }
    for (const auto& m : list->GetObject()) {
        if (!m.value.IsString()) {
            continue;
        }
        if (std::optional<Quantity> q = Quantity::parse(json::view(m.value))) {
            out.emplace(std::string(json::view(m.name)), *q);
        }
    }
    return out;
}

Quantity plus(const Quantity& a, const Quantity& b) {
    return fromMilli(a.milliValue() + b.milliValue(), a.format());
}

Quantity minus(const Quantity& a, const Quantity& b) {
    return fromMilli(a.milliValue() - b.milliValue(), a.format());
}

void addTo(List& sum, const List& add) {
    for (const auto& [k, v] : add) {
        auto it = sum.find(k);
        if (it == sum.end()) {
            sum.emplace(k, v);
        } else {
            it->second = plus(it->second, v);
        }
    }
}

void maxInto(List& into, const List& other) {
    for (const auto& [k, v] : other) {
        auto it = into.find(k);
        if (it == into.end()) {
            into.emplace(k, v);
        } else if (v.compare(it->second) > 0) {
            it->second = v;
        }
    }
}

List podRequests(const json::Value& pod) {
    return podAmounts(pod, "requests");
}

List podLimits(const json::Value& pod) {
    return podAmounts(pod, "limits");
}

}  // namespace kube::admission::resources
