#include "util/query.hpp"

#include "util/hex.hpp"

namespace kube::util {

std::optional<std::string> Query::unescape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); i++) {
        char c = s[i];
        if (c == '+') {
            out.push_back(' ');
        } else if (c == '%') {
            if (i + 2 >= s.size()) {
                return std::nullopt;
            }
            int hi = util::hexDigitValue(s[i + 1]);
            int lo = util::hexDigitValue(s[i + 2]);
            if (hi < 0 || lo < 0) {
                return std::nullopt;
            }
            out.push_back(static_cast<char>(hi * 16 + lo));
            i += 2;
        } else {
            out.push_back(c);
        }
    }
    return out;
}

Query Query::parse(std::string_view raw) {
    Query q;
    while (!raw.empty()) {
        size_t amp = raw.find('&');
        std::string_view pair = raw.substr(0, amp);
        raw = amp == std::string_view::npos ? std::string_view() : raw.substr(amp + 1);
        // Go (1.17+) rejects ';' as a separator and skips the whole pair.
        if (pair.empty() || pair.find(';') != std::string_view::npos) {
            continue;
        }
        size_t eq = pair.find('=');
        std::string_view rawKey = pair.substr(0, eq);
        std::string_view rawValue =
            eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
        std::optional<std::string> key = unescape(rawKey);
        std::optional<std::string> value = unescape(rawValue);
        if (!key || !value) {
            continue;
        }
        q.pairs_.emplace_back(std::move(*key), std::move(*value));
    }
    return q;
}

std::optional<int64_t> Query::parseInt(std::string_view s, std::string* why) {
    auto fail = [why](const char* reason) -> std::optional<int64_t> {
        *why = reason;
        return std::nullopt;
    };
    std::string_view digits = s;
    bool negative = false;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
        negative = digits[0] == '-';
        digits.remove_prefix(1);
    }
    if (digits.empty()) {
        return fail("invalid syntax");
    }
    for (char c : digits) {
        if (c < '0' || c > '9') {
            return fail("invalid syntax");
        }
    }
    // Accumulated negatively, so that the minimum int64 fits.
    int64_t value = 0;
    for (char c : digits) {
        int d = c - '0';
        if (value < (INT64_MIN + d) / 10) {
            return fail("value out of range");
        }
        value = value * 10 - d;
    }
    if (!negative) {
        if (value == INT64_MIN) {
            return fail("value out of range");
        }
        value = -value;
    }
    return value;
}

std::optional<std::string> Query::get(std::string_view key) const {
    for (const auto& [k, v] : pairs_) {
        if (k == key) {
            return v;
        }
    }
    return std::nullopt;
}

bool Query::has(std::string_view key) const {
    return get(key).has_value();
}

std::vector<std::string> Query::values(std::string_view key) const {
    std::vector<std::string> out;
    for (const auto& [k, v] : pairs_) {
        if (k == key) {
            out.push_back(v);
        }
    }
    return out;
}

}  // namespace kube::util
