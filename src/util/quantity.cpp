#include "util/quantity.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

namespace kube::util {

namespace {

constexpr const char* kFormatWrong =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr const char* kBadSuffix = "unable to parse quantity's suffix";

// The nano unit: amounts finer than 10^-9 are rounded up to it.
constexpr int64_t kMinExponent = -9;
// resource.maxAllowed, the cap of binary amounts: 2^63-1 units.
constexpr std::string_view kMaxBinary = "9223372036854775807";

// resource.maxInt64Factors: digits the int64 fast path takes.
constexpr int32_t kMaxInt64Factors = 18;

struct Parts {
    bool positive = true;
    std::string_view value, num, denom, suffix;
};

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// Mirrors parseQuantityString: sign, number, fraction and suffix, the
// number without its leading zeros.
std::optional<Parts> scan(std::string_view str) {
    Parts p;
    size_t pos = 0;
    size_t end = str.size();
    if (pos < end && (str[0] == '-' || str[0] == '+')) {
        p.positive = str[0] == '+';
        pos++;
    }
    while (pos < end && str[pos] == '0') {
        pos++;
    }
    if (pos >= end) {
        p.num = "0";
        p.value = "0";
        return p;
    }
    size_t i = pos;
    while (i < end && isDigit(str[i])) {
        i++;
    }
    p.num = str.substr(pos, i - pos);
    if (i >= end) {
        p.value = str;
        return p;
    }
    pos = i;
    if (p.num.empty()) {
        p.num = "0";
    }
    if (str[pos] == '.') {
        pos++;
        i = pos;
        while (i < end && isDigit(str[i])) {
            i++;
        }
        p.denom = str.substr(pos, i - pos);
        if (i >= end) {
            p.value = str;
            return p;
        }
        pos = i;
    }
    p.value = str.substr(0, pos);
    size_t suffixStart = pos;
    while (pos < end && std::string_view("eEinumkKMGTP").find(str[pos]) != std::string_view::npos) {
        pos++;
    }
    if (pos < end && (str[pos] == '-' || str[pos] == '+')) {
        pos++;
    }
    while (pos < end && isDigit(str[pos])) {
        pos++;
    }
    if (pos < end) {
        return std::nullopt;
    }
    p.suffix = str.substr(suffixStart);
    return p;
}

struct Suffix {
    int base;
    int64_t exponent;
    Quantity::Format format;
};

// Mirrors suffixHandler.interpret.
std::optional<Suffix> interpret(std::string_view s) {
    static constexpr std::pair<std::string_view, int32_t> decimal[] = {
        {"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
        {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
    static constexpr std::pair<std::string_view, int32_t> binary[] = {
        {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
    for (const auto& [text, exponent] : decimal) {
        if (s == text) {
            return Suffix{10, exponent, Quantity::Format::DecimalSI};
        }
    }
    for (const auto& [text, exponent] : binary) {
        if (s == text) {
            return Suffix{2, exponent, Quantity::Format::BinarySI};
        }
    }
    if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
        std::string_view digits = s.substr(1);
        if (digits[0] == '+') {
            digits.remove_prefix(1);
        }
        int64_t parsed = 0;
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), parsed);
        // Go's ParseInt(.., 10, 64) fails past int64, and kube keeps the low
        // 32 bits of what it parsed (int32(parsed)): 1e9223372036854775807 is
        // 1e-1.
        if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
            return std::nullopt;
        }
        auto e = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(parsed)));
        return Suffix{10, e, Quantity::Format::DecimalExponent};
    }
    return std::nullopt;
}

// Decimal digit strings (most significant first) as unsigned big numbers.

// `digits` × m, for m < 2^32.
std::string multiply(std::string_view digits, uint64_t m) {
    std::string out(digits.size() + 20, '0');
    uint64_t carry = 0;
    size_t o = out.size();
    for (size_t i = digits.size(); i-- > 0;) {
        uint64_t v = static_cast<uint64_t>(digits[i] - '0') * m + carry;
        out[--o] = static_cast<char>('0' + v % 10);
        carry = v / 10;
    }
    while (carry > 0) {
        out[--o] = static_cast<char>('0' + carry % 10);
        carry /= 10;
    }
    return out.substr(o);
}

// Adds one to a digit string in place.
void increment(std::string& digits) {
    for (size_t i = digits.size(); i-- > 0;) {
        if (digits[i] != '9') {
            digits[i]++;
            return;
        }
        digits[i] = '0';
    }
    digits.insert(digits.begin(), '1');
}

// <0, 0, >0 as |a×10^ea| is less than, equal to or greater than |b×10^eb|,
// both normalized (no leading or trailing zeros; empty is zero).
int compareMagnitude(std::string_view a, int64_t ea, std::string_view b, int64_t eb) {
    if (a.empty() || b.empty()) {
        return a.empty() ? (b.empty() ? 0 : -1) : 1;
    }
    int64_t lead = static_cast<int64_t>(a.size()) + ea;
    int64_t leadB = static_cast<int64_t>(b.size()) + eb;
    if (lead != leadB) {
        return lead < leadB ? -1 : 1;
    }
    size_t n = std::max(a.size(), b.size());
    for (size_t i = 0; i < n; i++) {
        char x = i < a.size() ? a[i] : '0';
        char y = i < b.size() ? b[i] : '0';
        if (x != y) {
            return x < y ? -1 : 1;
        }
    }
    return 0;
}

// Removes leading zeros, and trailing ones into `exponent`.
void normalize(std::string& digits, int64_t& exponent) {
    size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos) {
        digits.clear();
        exponent = 0;
        return;
    }
    digits.erase(0, first);
    size_t last = digits.find_last_not_of('0');
    exponent += static_cast<int64_t>(digits.size() - 1 - last);
    digits.resize(last + 1);
}

// Rounds a normalized amount away from zero to a multiple of 10^minExponent.
void roundUpTo(std::string& digits, int64_t& exponent, int64_t minExponent) {
    if (digits.empty() || exponent >= minExponent) {
        return;
    }
    // Every dropped digit set ends in a non-zero one (normalized): round up.
    int64_t drop = minExponent - exponent;
    if (drop >= static_cast<int64_t>(digits.size())) {
        digits = "1";
    } else {
        digits.resize(digits.size() - static_cast<size_t>(drop));
        increment(digits);
    }
    exponent = minExponent;
    normalize(digits, exponent);
}

const char* formatName(Quantity::Format f) {
    switch (f) {
        case Quantity::Format::DecimalExponent:
            return "DecimalExponent";
        case Quantity::Format::BinarySI:
            return "BinarySI";
        case Quantity::Format::DecimalSI:
            return "DecimalSI";
    }
    return "";
}

}  // namespace

std::optional<Quantity> Quantity::parse(std::string_view text, std::string* error) {
    auto fail = [error](const char* why) -> std::optional<Quantity> {
        if (error) {
            *error = why;
        }
        return std::nullopt;
    };
    if (text.empty()) {
        return fail(kFormatWrong);
    }
    Quantity q;
    if (text == "0") {
        q.fast_ = Int64Amount{0, 0};
        q.cached_ = "0";
        return q;
    }
    std::optional<Parts> p = scan(text);
    if (!p) {
        return fail(kFormatWrong);
    }
    std::optional<Suffix> suffix = interpret(p->suffix);
    if (!suffix) {
        return fail(kBadSuffix);
    }
    q.format_ = suffix->format;
    std::string shifted = std::string(p->num) + std::string(p->denom);
    int64_t denomDigits = static_cast<int64_t>(p->denom.size());
    bool binary = suffix->base == 2;
    // Past 10^kMaxExponent: refused (see kMaxExponent). Amounts never grow
    // by their exponent here, so this costs nothing to find out.
    auto tooLarge = [&q] {
        return !q.digits_.empty() &&
               static_cast<int64_t>(q.digits_.size()) - 1 + q.exponent_ > kMaxExponent;
    };
    const char* tooLargeWhy =
        suffix->exponent > kMaxExponent ? kBadSuffix : "unable to parse quantity's numeric part";

    // ParseQuantity's int64 fast path, which decides what %#v shows and
    // whether the input text is kept as the canonical one.
    int64_t precision = -1;
    int64_t scale = 0;
    int64_t mantissa = 1;
    int64_t numDigits = static_cast<int64_t>(p->num.size());
    if (!binary) {
        scale = suffix->exponent;
        precision = kMaxInt64Factors - (numDigits + denomDigits);
    } else if (suffix->exponent >= 0 && denomDigits == 0) {
        mantissa = int64_t{1} << suffix->exponent;
        precision = 15 - numDigits -
                    static_cast<int64_t>(static_cast<float>(suffix->exponent) * 3 / 10) - 1;
    }
    if (precision >= 0 && scale - denomDigits >= kMinExponent) {
        scale -= denomDigits;
        int64_t value = 0;
        std::from_chars(shifted.data(), shifted.data() + shifted.size(), value);
        __int128 result = static_cast<__int128>(value) * mantissa;
        if (result <= std::numeric_limits<int64_t>::max()) {
            q.fast_ = Int64Amount{static_cast<int64_t>(p->positive ? result : -result),
                                  static_cast<int32_t>(scale)};
            q.negative_ = !p->positive && result != 0;
            q.digits_ = std::to_string(static_cast<int64_t>(result));
            q.exponent_ = scale;
            normalize(q.digits_, q.exponent_);
            bool canonical = binary
                                 ? suffix->exponent % 10 == 0 && (value & 0x07) != 0
                                 : scale % 3 == 0 && !shifted.ends_with("000") && shifted[0] != '0';
            if (canonical) {
                q.cached_ = std::string(text);
            }
            return tooLarge() ? fail(tooLargeWhy) : q;
        }
    }

    // The inf.Dec path: the exact amount, times 2^exponent for binary
    // suffixes, rounded up to the nano unit.
    std::string digits = shifted;
    int64_t exponent = (binary ? 0 : suffix->exponent) - denomDigits;
    if (binary) {
        for (int64_t left = suffix->exponent; left > 0; left -= 30) {
            digits = multiply(digits, uint64_t{1} << std::min<int64_t>(left, 30));
        }
    }
    normalize(digits, exponent);
    roundUpTo(digits, exponent, kMinExponent);
    if (binary && compareMagnitude(digits, exponent, kMaxBinary, 0) > 0) {
        digits = kMaxBinary;
        exponent = 0;
    }
    // Below one unit a binary amount is shown in decimal.
    if (binary && !digits.empty() && compareMagnitude(digits, exponent, "1", 0) < 0) {
        q.format_ = Format::DecimalSI;
    }
    q.negative_ = !p->positive && !digits.empty();
    q.digits_ = std::move(digits);
    q.exponent_ = exponent;
    return tooLarge() ? fail(tooLargeWhy) : q;
}

int Quantity::compare(const Quantity& o) const {
    if (negative_ != o.negative_) {
        return negative_ ? -1 : 1;
    }
    int m = compareMagnitude(digits_, exponent_, o.digits_, o.exponent_);
    return negative_ ? -m : m;
}

void Quantity::roundUpToMilli() {
    if (digits_.empty() || exponent_ >= -3) {
        // Exact already; an inf.Dec amount still loses its text.
        if (!fast_) {
            cached_.clear();
        } else if (fast_->scale < -3) {
            cached_.clear();
            fast_ = Int64Amount{ceilScaled(3) * (negative_ ? -1 : 1), -3};
        }
        return;
    }
    cached_.clear();
    roundUpTo(digits_, exponent_, -3);
    if (fast_) {
        fast_ = Int64Amount{ceilScaled(3) * (negative_ ? -1 : 1), -3};
    }
}

std::string Quantity::string() const {
    return cached_.empty() ? canonical() : cached_;
}

int64_t Quantity::ceilScaled(int decimals) const {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (digits_.empty()) {
        return 0;
    }
    int64_t e = exponent_ + decimals;
    int64_t intDigits = static_cast<int64_t>(digits_.size()) + e;
    if (intDigits > 19) {
        return negative_ ? -kMax - 1 : kMax;
    }
    __int128 whole = 0;
    for (int64_t i = 0; i < intDigits; i++) {
        char c = i < static_cast<int64_t>(digits_.size()) ? digits_[i] : '0';
        whole = whole * 10 + (c - '0');
    }
    bool fraction = intDigits < static_cast<int64_t>(digits_.size());
    if (negative_) {
        whole = -whole;
    } else if (fraction) {
        whole++;
    }
    if (whole > kMax) {
        return kMax;
    }
    if (whole < -kMax - 1) {
        return -kMax - 1;
    }
    return static_cast<int64_t>(whole);
}

int64_t Quantity::value() const {
    return ceilScaled(0);
}

int64_t Quantity::milliValue() const {
    return ceilScaled(3);
}

// Mirrors CanonicalizeBytes: binary amounts of whole units past ±1024 in
// powers of 1024, everything else as mantissa and a power of 10 that is a
// multiple of 3.
std::string Quantity::canonical() const {
    if (digits_.empty()) {
        return "0";
    }
    std::string sign = negative_ ? "-" : "";
    // Binary amounts are capped at 2^63-1 units: whole ones fit an int64.
    if (format_ == Format::BinarySI && exponent_ >= 0 &&
        compareMagnitude(digits_, exponent_, "1024", 0) >= 0) {
        int64_t units = ceilScaled(0);
        units = units < 0 ? -units : units;
        static const char* const suffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
        int exponent = 0;
        while (exponent < 6 && units % 1024 == 0) {
            units /= 1024;
            exponent++;
        }
        return sign + std::to_string(units) + suffixes[exponent];
    }
    std::string m = digits_;
    int64_t e = exponent_;
    int64_t r = ((e % 3) + 3) % 3;
    m.append(static_cast<size_t>(r), '0');
    e -= r;
    if (format_ == Format::DecimalExponent) {
        return sign + m + (e == 0 ? "" : "e" + std::to_string(e));
    }
    static const char* const si[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    int64_t slot = (e + 9) / 3;
    return sign + m + (slot >= 0 && slot < 10 ? si[slot] : "e" + std::to_string(e));
}

std::string Quantity::goString() const {
    std::string text = string();
    std::string quoted = "\"" + text + "\"";
    if (!fast_) {
        return quoted;
    }
    return "resource.Quantity{i:resource.int64Amount{value:" + std::to_string(fast_->value) +
           ", scale:" + std::to_string(fast_->scale) +
           "}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:" + quoted + ", Format:\"" +
           formatName(format_) + "\"}";
}

}  // namespace kube::util
