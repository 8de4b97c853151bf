#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

// What the fuzz targets share: the input as text, and the split of an input
// that carries two documents (an object and its patch, a path and its query).
namespace kube::fuzz {

inline std::string_view text(const uint8_t* data, size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// The part before the first `sep` and the part after it; without `sep`,
// all of it is the first part and the second is empty. Seeds keep the
// first part on one line (compact JSON has no raw newline), so '\n' is the
// separator of the two-document targets.
inline std::pair<std::string_view, std::string_view> split(std::string_view in, char sep = '\n') {
    size_t at = in.find(sep);
    if (at == std::string_view::npos) {
        return {in, {}};
    }
    return {in.substr(0, at), in.substr(at + 1)};
}

}  // namespace kube::fuzz
