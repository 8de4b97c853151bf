#include "util/quantity.hpp"

#include <charconv>
#include <limits>

namespace kube::util {

namespace {

using Int128 = __int128;

// Amounts are clamped here (about 1e36 nano units, far past int64 units).
constexpr Int128 kSaturated = static_cast<Int128>(1000000000000000000LL) * 1000000000000000000LL;
constexpr Int128 kNano = 1000000000;

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
    int32_t exponent;
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
        int64_t e = 0;
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), e);
        if (ec != std::errc() || end != digits.data() + digits.size()) {
            return std::nullopt;
        }
        return Suffix{10, static_cast<int32_t>(e), Quantity::Format::DecimalExponent};
    }
    return std::nullopt;
}

Int128 saturatingMultiply(Int128 a, Int128 b) {
    if (a == 0 || b == 0) {
        return 0;
    }
    if (a > kSaturated / b) {
        return kSaturated;
    }
    return a * b;
}

Int128 pow10(int32_t n) {
    Int128 r = 1;
    for (int32_t i = 0; i < n && r < kSaturated; i++) {
        r *= 10;
    }
    return r;
}

// digits × 10^exp10 × 2^exp2 in nano units, rounded up.
Int128 toNano(std::string_view digits, int32_t exp10, int32_t exp2) {
    Int128 d = 0;
    for (char c : digits) {
        d = saturatingMultiply(d, 10) + (c - '0');
        if (d >= kSaturated) {
            return kSaturated;
        }
    }
    int32_t shift = exp10 + 9;
    if (shift >= 0) {
        d = saturatingMultiply(d, pow10(shift));
    } else {
        Int128 divisor = pow10(-shift);
        Int128 q = d / divisor;
        d = q + (q * divisor != d ? 1 : 0);
    }
    for (int32_t i = 0; i < exp2 && d < kSaturated; i++) {
        d = saturatingMultiply(d, 2);
    }
    return d;
}

std::string toString(Int128 v) {
    if (v == 0) {
        return "0";
    }
    bool negative = v < 0;
    if (negative) {
        v = -v;
    }
    std::string out;
    while (v > 0) {
        out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
        v /= 10;
    }
    return negative ? "-" + out : out;
}

// Division rounded towards positive infinity.
int64_t ceilDiv(Int128 v, Int128 d) {
    Int128 q = v / d;
    if (q * d != v && v > 0) {
        q++;
    }
    if (q > std::numeric_limits<int64_t>::max()) {
        return std::numeric_limits<int64_t>::max();
    }
    if (q < std::numeric_limits<int64_t>::min()) {
        return std::numeric_limits<int64_t>::min();
    }
    return static_cast<int64_t>(q);
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

std::optional<Quantity> Quantity::parse(std::string_view text) {
    if (text.empty()) {
        return std::nullopt;
    }
    Quantity q;
    if (text == "0") {
        q.fast_ = Int64Amount{0, 0};
        q.cached_ = "0";
        return q;
    }
    std::optional<Parts> p = scan(text);
    if (!p) {
        return std::nullopt;
    }
    std::optional<Suffix> suffix = interpret(p->suffix);
    if (!suffix) {
        return std::nullopt;
    }
    q.format_ = suffix->format;
    std::string shifted = std::string(p->num) + std::string(p->denom);
    int32_t denomDigits = static_cast<int32_t>(p->denom.size());
    bool binary = suffix->base == 2;
    q.nano_ = toNano(shifted, (binary ? 0 : suffix->exponent) - denomDigits,
                     binary ? suffix->exponent : 0);
    if (!p->positive) {
        q.nano_ = -q.nano_;
    }

    // ParseQuantity's int64 fast path, which decides what %#v shows and
    // whether the input text is kept as the canonical one.
    int32_t precision = -1;
    int32_t scale = 0;
    int64_t mantissa = 1;
    int32_t numDigits = static_cast<int32_t>(p->num.size());
    if (!binary) {
        scale = suffix->exponent;
        precision = kMaxInt64Factors - (numDigits + denomDigits);
    } else if (suffix->exponent >= 0 && denomDigits == 0) {
        mantissa = int64_t{1} << suffix->exponent;
        precision = 15 - numDigits -
                    static_cast<int32_t>(static_cast<float>(suffix->exponent) * 3 / 10) - 1;
    }
    if (precision >= 0 && scale - denomDigits >= -9) {
        scale -= denomDigits;
        int64_t value = 0;
        std::from_chars(shifted.data(), shifted.data() + shifted.size(), value);
        Int128 result = static_cast<Int128>(value) * mantissa;
        if (result <= std::numeric_limits<int64_t>::max()) {
            q.fast_ = Int64Amount{static_cast<int64_t>(p->positive ? result : -result), scale};
            bool canonical = binary
                                 ? suffix->exponent % 10 == 0 && (value & 0x07) != 0
                                 : scale % 3 == 0 && !shifted.ends_with("000") && shifted[0] != '0';
            if (canonical) {
                q.cached_ = std::string(text);
            }
            return q;
        }
    }
    // Below one unit a binary amount is shown in decimal.
    if (binary && q.nano_ > 0 && q.nano_ < kNano) {
        q.format_ = Format::DecimalSI;
    }
    return q;
}

int Quantity::compare(const Quantity& o) const {
    return nano_ < o.nano_ ? -1 : (nano_ > o.nano_ ? 1 : 0);
}

std::string Quantity::string() const {
    return cached_.empty() ? canonical() : cached_;
}

int64_t Quantity::value() const {
    return ceilDiv(nano_, kNano);
}

int64_t Quantity::milliValue() const {
    return ceilDiv(nano_, 1000000);
}

// Mirrors CanonicalizeBytes: binary amounts of whole units past ±1024 in
// powers of 1024, everything else as mantissa and a power of 10 that is a
// multiple of 3.
std::string Quantity::canonical() const {
    if (nano_ == 0) {
        return "0";
    }
    Int128 magnitude = nano_ < 0 ? -nano_ : nano_;
    if (format_ == Format::BinarySI && magnitude >= 1024 * kNano && magnitude % kNano == 0) {
        Int128 units = nano_ / kNano;
        static const char* const suffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
        int exponent = 0;
        while (exponent < 6 && units % 1024 == 0) {
            units /= 1024;
            exponent++;
        }
        return toString(units) + suffixes[exponent];
    }
    Int128 m = nano_;
    int32_t e = -9;
    while ((m >= 10 || m <= -10) && m % 10 == 0) {
        m /= 10;
        e++;
    }
    switch (e % 3) {
        case 1:
        case -2:
            m *= 10;
            e -= 1;
            break;
        case 2:
        case -1:
            m *= 100;
            e -= 2;
            break;
        default:
            break;
    }
    if (format_ == Format::DecimalExponent) {
        return toString(m) + (e == 0 ? "" : "e" + std::to_string(e));
    }
    static const char* const si[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    int slot = (e + 9) / 3;
    return toString(m) + (slot >= 0 && slot < 10 ? si[slot] : "e" + std::to_string(e));
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
