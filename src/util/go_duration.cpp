#include "util/go_duration.hpp"

#include <cstdint>

namespace kube::util {

namespace {

constexpr uint64_t kMax = uint64_t(1) << 63;

// The time package's quote: bytes outside printable ASCII as \xNN.
std::string quote(std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c >= 0x80 || c < ' ') {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 0xf];
            continue;
        }
        if (c == '"' || c == '\\') {
            out += '\\';
        }
        out += static_cast<char>(c);
    }
    return out + '"';
}

uint64_t unitOf(std::string_view u) {
    if (u == "ns") {
        return 1;
    }
    if (u == "us" || u == "\xc2\xb5s" || u == "\xce\xbcs") {  // µ (U+00B5), μ (U+03BC)
        return 1000;
    }
    if (u == "ms") {
        return 1000 * 1000;
    }
    if (u == "s") {
        return 1000 * 1000 * 1000;
    }
    if (u == "m") {
        return uint64_t(60) * 1000 * 1000 * 1000;
    }
    if (u == "h") {
        return uint64_t(3600) * 1000 * 1000 * 1000;
    }
    return 0;
}

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

}  // namespace

std::optional<std::chrono::nanoseconds> parseGoDuration(std::string_view orig, std::string* error) {
    auto invalid = [&] {
        *error = "time: invalid duration " + quote(orig);
        return std::nullopt;
    };
    std::string_view s = orig;
    bool neg = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s == "0") {
        return std::chrono::nanoseconds(0);
    }
    if (s.empty()) {
        return invalid();
    }
    uint64_t d = 0;
    while (!s.empty()) {
        if (!(s[0] == '.' || isDigit(s[0]))) {
            return invalid();
        }
        // the integer part; past 2^63 is an error
        uint64_t v = 0;
        size_t i = 0;
        for (; i < s.size() && isDigit(s[i]); ++i) {
            if (v > kMax / 10) {
                return invalid();
            }
            v = v * 10 + uint64_t(s[i] - '0');
            if (v > kMax) {
                return invalid();
            }
        }
        bool pre = i > 0;
        s.remove_prefix(i);
        // the fraction; digits past what fits are dropped
        uint64_t f = 0;
        double scale = 1;
        bool post = false;
        if (!s.empty() && s[0] == '.') {
            s.remove_prefix(1);
            bool overflow = false;
            size_t j = 0;
            for (; j < s.size() && isDigit(s[j]); ++j) {
                if (overflow) {
                    continue;
                }
                if (f > (kMax - 1) / 10) {
                    overflow = true;
                    continue;
                }
                uint64_t y = f * 10 + uint64_t(s[j] - '0');
                if (y > kMax) {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10;
            }
            post = j > 0;
            s.remove_prefix(j);
        }
        if (!pre && !post) {
            return invalid();
        }
        size_t k = 0;
        while (k < s.size() && s[k] != '.' && !isDigit(s[k])) {
            ++k;
        }
        if (k == 0) {
            *error = "time: missing unit in duration " + quote(orig);
            return std::nullopt;
        }
        std::string_view u = s.substr(0, k);
        s.remove_prefix(k);
        uint64_t unit = unitOf(u);
        if (unit == 0) {
            *error = "time: unknown unit " + quote(u) + " in duration " + quote(orig);
            return std::nullopt;
        }
        if (v > kMax / unit) {
            return invalid();
        }
        v *= unit;
        if (f > 0) {
            v += uint64_t(double(f) * (double(unit) / scale));
            if (v > kMax) {
                return invalid();
            }
        }
        d += v;
        if (d > kMax) {
            return invalid();
        }
    }
    if (neg) {
        return std::chrono::nanoseconds(d == kMax ? INT64_MIN : -int64_t(d));
    }
    if (d > kMax - 1) {
        return invalid();
    }
    return std::chrono::nanoseconds(int64_t(d));
}

}  // namespace kube::util
