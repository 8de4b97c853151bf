#include "util/yaml_scalar.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <unordered_map>

#include "util/base64.hpp"
#include "util/utf8.hpp"

namespace kube::util::yaml {

namespace {

// Core schema tags, in the long form libyaml reports.
constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";
constexpr std::string_view kStrTag = "tag:yaml.org,2002:str";
constexpr std::string_view kBoolTag = "tag:yaml.org,2002:bool";
constexpr std::string_view kIntTag = "tag:yaml.org,2002:int";
constexpr std::string_view kFloatTag = "tag:yaml.org,2002:float";
constexpr std::string_view kNullTag = "tag:yaml.org,2002:null";
constexpr std::string_view kTimestampTag = "tag:yaml.org,2002:timestamp";
constexpr std::string_view kBinaryTag = "tag:yaml.org,2002:binary";

enum class ParseStatus { Ok, Syntax, Range };

// strconv.ParseUint(s, 0, 64): Go base prefixes, leading 0 is octal.
ParseStatus parseGoUint(std::string_view s, uint64_t* out) {
    if (s.empty()) {
        return ParseStatus::Syntax;
    }
    unsigned base = 10;
    if (s[0] == '0') {
        char p = s.size() >= 3 ? static_cast<char>(s[1] | 0x20) : 0;
        base = p == 'b' ? 2 : p == 'o' ? 8 : p == 'x' ? 16 : 8;
        s.remove_prefix(base == 8 && p != 'o' ? 1 : 2);
    }
    uint64_t n = 0;
    for (char c : s) {
        unsigned d = c >= '0' && c <= '9' ? static_cast<unsigned>(c - '0')
                     : (c | 0x20) >= 'a' && (c | 0x20) <= 'z'
                         ? static_cast<unsigned>((c | 0x20) - 'a' + 10)
                         : 99;
        if (d >= base) {
            return ParseStatus::Syntax;
        }
        if (n > (UINT64_MAX - d) / base) {
            return ParseStatus::Range;
        }
        n = n * base + d;
    }
    *out = n;
    return ParseStatus::Ok;
}

// strconv.ParseInt(s, 0, 64).
ParseStatus parseGoInt(std::string_view s, int64_t* out) {
    bool negative = !s.empty() && s[0] == '-';
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        s.remove_prefix(1);
    }
    uint64_t u = 0;
    ParseStatus st = parseGoUint(s, &u);
    if (st != ParseStatus::Ok) {
        return st;
    }
    if (negative ? u > 9223372036854775808ULL : u > 9223372036854775807ULL) {
        return ParseStatus::Range;
    }
    *out = negative ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
    return ParseStatus::Ok;
}

// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool isYamlStyleFloat(std::string_view s) {
    size_t i = 0;
    auto digits = [&] {
        size_t start = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
            i++;
        }
        return i - start;
    };
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
        i++;
    }
    if (i < s.size() && s[i] == '.') {
        i++;
        if (digits() == 0) {
            return false;
        }
    } else {
        if (digits() == 0) {
            return false;
        }
        if (i < s.size() && s[i] == '.') {
            i++;
            digits();
        }
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
            i++;
        }
        if (digits() == 0) {
            return false;
        }
    }
    return i == s.size();
}

// strconv.ParseFloat on a YAML-style float: fails on overflow, underflow
// rounds to zero.
bool parseFloat(std::string_view s, double* out) {
    bool negative = !s.empty() && s[0] == '-';
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        s.remove_prefix(1);
    }
    double d = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec == std::errc::result_out_of_range) {
        if (std::isinf(std::strtod(std::string(s).c_str(), nullptr))) {
            return false;
        }
        d = 0;
    } else if (ec != std::errc() || ptr != s.data() + s.size()) {
        return false;
    }
    *out = negative ? -d : d;
    return true;
}

// The YAML timestamp forms go-yaml accepts: 2006-1-2, optionally followed by
// [Tt ]15:4:5[.frac] and, after T/t, a Z or ±07:00 zone.
bool isTimestamp(std::string_view s) {
    size_t i = 0;
    auto number = [&](size_t minDigits, size_t maxDigits, int lo, int hi) {
        size_t start = i;
        int v = 0;
        while (i < s.size() && i - start < maxDigits && s[i] >= '0' && s[i] <= '9') {
            v = v * 10 + (s[i++] - '0');
        }
        return i - start >= minDigits && v >= lo && v <= hi;
    };
    auto literal = [&](char c) { return i < s.size() && s[i] == c && ++i; };
    if (!number(4, 4, 0, 9999) || !literal('-') || !number(1, 2, 1, 12) || !literal('-') ||
        !number(1, 2, 1, 31)) {
        return false;
    }
    if (i == s.size()) {
        return true;
    }
    char sep = s[i++];
    if (sep != 'T' && sep != 't' && sep != ' ') {
        return false;
    }
    if (!number(1, 2, 0, 23) || !literal(':') || !number(1, 2, 0, 59) || !literal(':') ||
        !number(1, 2, 0, 59)) {
        return false;
    }
    // Fractional seconds: any number of digits after '.' or ','.
    if (literal('.') || literal(',')) {
        size_t start = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
            i++;
        }
        if (i == start) {
            return false;
        }
    }
    if (sep == ' ') {
        return i == s.size();
    }
    if (literal('Z')) {
        return i == s.size();
    }
    if (!literal('+') && !literal('-')) {
        return false;
    }
    return number(2, 2, 0, 23) && literal(':') && number(2, 2, 0, 59) && i == s.size();
}

// Go's encoding/json replaces invalid UTF-8 with U+FFFD.
std::string shortTag(std::string_view tag) {
    if (tag.starts_with(kTagPrefix)) {
        return "!!" + std::string(tag.substr(kTagPrefix.size()));
    }
    return std::string(tag);
}

bool resolvableTag(std::string_view tag) {
    return tag.empty() || tag == kStrTag || tag == kBoolTag || tag == kIntTag || tag == kFloatTag ||
           tag == kNullTag || tag == kTimestampTag;
}

// YAML 1.1 words go-yaml resolves to booleans and null.
bool lookupWord(std::string_view in, Scalar* out, std::string_view* rtag) {
    static const std::unordered_map<std::string_view, int> kWords = {
        {"y", 1},     {"Y", 1},     {"yes", 1},   {"Yes", 1},   {"YES", 1},   {"true", 1},
        {"True", 1},  {"TRUE", 1},  {"on", 1},    {"On", 1},    {"ON", 1},    {"n", 0},
        {"N", 0},     {"no", 0},    {"No", 0},    {"NO", 0},    {"false", 0}, {"False", 0},
        {"FALSE", 0}, {"off", 0},   {"Off", 0},   {"OFF", 0},   {"", 2},      {"~", 2},
        {"null", 2},  {"Null", 2},  {"NULL", 2},  {".nan", 3},  {".NaN", 3},  {".NAN", 3},
        {".inf", 4},  {".Inf", 4},  {".INF", 4},  {"+.inf", 4}, {"+.Inf", 4}, {"+.INF", 4},
        {"-.inf", 5}, {"-.Inf", 5}, {"-.INF", 5},
    };
    auto it = kWords.find(in);
    if (it == kWords.end()) {
        return false;
    }
    switch (it->second) {
        case 0:
        case 1:
            out->type = ScalarType::Bool;
            out->b = it->second == 1;
            *rtag = kBoolTag;
            return true;
        case 2:
            out->type = ScalarType::Null;
            *rtag = kNullTag;
            return true;
        default:
            out->type = ScalarType::Float;
            out->f = it->second == 3 ? NAN : it->second == 4 ? INFINITY : -INFINITY;
            *rtag = kFloatTag;
            return true;
    }
}

// The implicit type of a plain scalar (or one tagged with a core tag): the
// first character hints at the candidates, as in go-yaml's resolveTable.
std::string_view resolveImplicit(std::string_view tag, std::string_view in, Scalar* out) {
    std::string_view rtag;
    char first = in.empty() ? 'N' : in[0];
    bool hinted = in.empty() || std::string_view("yYnNtTfFoO~.+-0123456789").find(first) !=
                                    std::string_view::npos;
    if (!hinted || tag == kStrTag) {
        return kStrTag;
    }
    if (lookupWord(in, out, &rtag)) {
        return rtag;
    }
    if (first == '.') {
        if (isYamlStyleFloat(in) && parseFloat(in, &out->f)) {
            out->type = ScalarType::Float;
            return kFloatTag;
        }
        return kStrTag;
    }
    bool numeric = first == '+' || first == '-' || (first >= '0' && first <= '9');
    if (!numeric) {
        return kStrTag;
    }
    if ((tag.empty() || tag == kTimestampTag) && isTimestamp(in)) {
        return kTimestampTag;
    }
    std::string plain;
    for (char c : in) {
        if (c != '_') {
            plain.push_back(c);
        }
    }
    ParseStatus intStatus = parseGoInt(plain, &out->i);
    if (intStatus == ParseStatus::Ok) {
        out->type = ScalarType::Int;
        return kIntTag;
    }
    ParseStatus uintStatus = parseGoUint(plain, &out->u);
    if (uintStatus == ParseStatus::Ok) {
        out->type = ScalarType::Uint;
        return kIntTag;
    }
    if (isYamlStyleFloat(plain) && parseFloat(plain, &out->f)) {
        out->type = ScalarType::Float;
        return kFloatTag;
    }
    // An integer too big for 64 bits that is no float either (base-prefixed,
    // or beyond a double's range) stays the string it is, as in go-yaml v2:
    // kube-apiserver 1.26.5 stores `a: 0x1FFFFFFFFFFFFFFFFFFFF` and a
    // 318-digit decimal as strings. (go-yaml's separate "0b" retry can only
    // fail here: ParseInt with base 0 has already read that prefix.)
    return kStrTag;
}

}  // namespace

std::string formatGoFloat(double d, bool asFloat32) {
    if (std::isnan(d)) {
        return "NaN";
    }
    if (std::isinf(d)) {
        return d > 0 ? "+Inf" : "-Inf";
    }
    if (asFloat32) {
        // Go's float32(d) rounds to nearest, and a value that rounds past the
        // largest float32 becomes an infinity (C++ leaves that cast undefined).
        constexpr double kFloat32Overflow = 0x1.ffffffp127;  // FLT_MAX + half an ulp
        if (std::fabs(d) >= kFloat32Overflow) {
            return d > 0 ? "+Inf" : "-Inf";
        }
        if (std::fabs(d) > std::numeric_limits<float>::max()) {
            d = std::copysign(static_cast<double>(std::numeric_limits<float>::max()), d);
        }
    }
    char buf[64];
    auto res = asFloat32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(d),
                                         std::chars_format::scientific)
                         : std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    size_t e = sci.find('e');
    int exp = std::atoi(sci.c_str() + e + 1);
    // strconv.FormatFloat(f, 'g', -1, n): exponent form below 1e-4 and from 1e6.
    if (exp < -4 || exp >= 6) {
        return sci;
    }
    std::string digits;
    for (char c : sci.substr(0, e)) {
        if (c >= '0' && c <= '9') {
            digits.push_back(c);
        }
    }
    std::string out = sci[0] == '-' ? "-" : "";
    auto point = static_cast<size_t>(exp + 1);
    if (exp < 0) {
        out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else if (point >= digits.size()) {
        out += digits + std::string(point - digits.size(), '0');
    } else {
        out += digits.substr(0, point) + "." + digits.substr(point);
    }
    return out;
}

std::optional<std::string> resolveScalar(std::string_view tag, std::string_view value,
                                         bool implicit, Scalar* out) {
    if (tag.empty() && !implicit) {
        out->type = ScalarType::String;
        out->s = value;
        return std::nullopt;
    }
    if (!resolvableTag(tag)) {
        if (tag == kBinaryTag) {
            std::optional<std::string> data = decodeBase64(value);
            if (!data) {
                return "!!binary value contains invalid base64 data";
            }
            out->type = ScalarType::String;
            out->s = utf8::toValid(*data);
            return std::nullopt;
        }
        out->type = ScalarType::String;
        out->s = value;
        return std::nullopt;
    }
    std::string_view rtag = resolveImplicit(tag, value, out);
    if (rtag == kStrTag || rtag == kTimestampTag) {
        // Timestamps stay strings in an interface{} (go-yaml v2 compatibility).
        out->type = ScalarType::String;
        out->s = value;
    }
    if (tag.empty() || tag == rtag || tag == kStrTag) {
        return std::nullopt;
    }
    if (tag == kFloatTag && rtag == kIntTag && out->type == ScalarType::Int) {
        out->type = ScalarType::Float;
        out->f = static_cast<double>(out->i);
        return std::nullopt;
    }
    return "cannot decode " + shortTag(rtag) + " `" + std::string(value) + "` as a " +
           shortTag(tag);
}

}  // namespace kube::util::yaml
