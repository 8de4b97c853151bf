#include "util/utf8.hpp"

namespace kube::util::utf8 {

namespace {

constexpr std::string_view kReplacement = "\xef\xbf\xbd";

// The length of the valid sequence at `i`, or 0 when its first byte is
// invalid (utf8.DecodeRune's accept ranges).
size_t sequenceAt(std::string_view s, size_t i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
        return 1;
    }
    size_t n = c >= 0xc2 && c < 0xe0   ? 2
               : c >= 0xe0 && c < 0xf0 ? 3
               : c >= 0xf0 && c < 0xf5 ? 4
                                       : 0;
    if (n == 0 || s.size() - i < n) {
        return 0;
    }
    for (size_t k = 1; k < n; k++) {
        if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) {
            return 0;
        }
    }
    auto c1 = static_cast<unsigned char>(s[i + 1]);
    if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0) || (c == 0xf0 && c1 < 0x90) ||
        (c == 0xf4 && c1 >= 0x90)) {
        return 0;
    }
    return n;
}

}  // namespace

bool valid(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            i++;
            continue;
        }
        size_t n = sequenceAt(s, i);
        if (n == 0) {
            return false;
        }
        i += n;
    }
    return true;
}

std::string toValid(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    size_t i = 0;
    while (i < s.size()) {
        size_t n = sequenceAt(s, i);
        if (n == 0) {
            out += kReplacement;
            i++;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

}  // namespace kube::util::utf8
