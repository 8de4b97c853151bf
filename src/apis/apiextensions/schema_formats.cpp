// The string formats kube checks in custom resources: the formats of
// kube-openapi's strfmt.Default registry that apiextensions keeps
// (StripUnsupportedFormatsPostProcess drops every other one).
#include <arpa/inet.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>

#include <re2/re2.h>

#include "apis/apiextensions/structural_walks.hpp"
#include "util/go_duration.hpp"

namespace kube::apis::apiextensions::structural {

namespace {

// go-openapi's name normalization: "date-time" is "datetime".
std::string normalize(std::string_view format) {
    std::string out;
    for (char c : format) {
        if (c != '-') {
            out += c;
        }
    }
    return out;
}

bool matches(const char* pattern, std::string_view s) {
    // One compiled RE2 per pattern, shared by every thread (RE2 matching is
    // thread-safe).
    static thread_local std::unordered_map<const char*, std::unique_ptr<re2::RE2>> compiled;
    auto& re = compiled[pattern];
    if (!re) {
        re2::RE2::Options o;
        o.set_log_errors(false);
        re = std::make_unique<re2::RE2>(pattern, o);
    }
    return re2::RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *re);
}

bool isDigits(std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// net.ParseIP's IPv4 form, with leading zeros (ParseIPSloppy).
bool isDottedIPv4(std::string_view s) {
    int parts = 0;
    while (true) {
        size_t dot = s.find('.');
        std::string_view p = s.substr(0, dot);
        if (!isDigits(p) || p.size() > 3 || std::atoi(std::string(p).c_str()) > 255) {
            return false;
        }
        ++parts;
        if (dot == std::string_view::npos) {
            break;
        }
        s.remove_prefix(dot + 1);
    }
    return parts == 4;
}

bool isIPv6(std::string_view s) {
    std::string str(s);
    size_t lastColon = str.rfind(':');
    if (lastColon != std::string::npos && str.find('.', lastColon) != std::string::npos) {
        // An embedded IPv4 tail may have leading zeros.
        std::string tail = str.substr(lastColon + 1);
        if (!isDottedIPv4(tail)) {
            return false;
        }
        str = str.substr(0, lastColon + 1) + "0.0.0.0";
    }
    unsigned char buf[16];
    return inet_pton(AF_INET6, str.c_str(), buf) == 1;
}

bool isIP(std::string_view s) {
    return isDottedIPv4(s) || (s.find(':') != std::string_view::npos && isIPv6(s));
}

bool isCIDR(std::string_view s) {
    size_t slash = s.find('/');
    if (slash == std::string_view::npos) {
        return false;
    }
    std::string_view ip = s.substr(0, slash);
    std::string_view bits = s.substr(slash + 1);
    if (!isDigits(bits) || bits.size() > 3) {
        return false;
    }
    int n = std::atoi(std::string(bits).c_str());
    if (isDottedIPv4(ip)) {
        return n <= 32;
    }
    return ip.find(':') != std::string_view::npos && isIPv6(ip) && n <= 128;
}

// time.Parse("2006-01-02", s).
bool isDate(std::string_view s) {
    if (s.size() != 10 || s[4] != '-' || s[7] != '-' || !isDigits(s.substr(0, 4)) ||
        !isDigits(s.substr(5, 2)) || !isDigits(s.substr(8, 2))) {
        return false;
    }
    int y = std::atoi(std::string(s.substr(0, 4)).c_str());
    int m = std::atoi(std::string(s.substr(5, 2)).c_str());
    int d = std::atoi(std::string(s.substr(8, 2)).c_str());
    static constexpr std::array<int, 12> kDays = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1]) {
        return false;
    }
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return !(m == 2 && d == 29 && !leap);
}

// strfmt.IsDateTime: a date, 't', then hh:mm:ss[.frac](z|±hh:mm), any case.
bool isDateTime(std::string_view s) {
    if (s.size() < 4) {
        return false;
    }
    std::string lower;
    for (char c : s) {
        lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    size_t t = lower.find('t');
    if (t == std::string::npos || !isDate(std::string_view(lower).substr(0, t))) {
        return false;
    }
    std::string rest = lower.substr(t + 1);
    size_t t2 = rest.find('t');
    if (t2 != std::string::npos) {
        rest = rest.substr(0, t2);
    }
    std::string hh, mm, ss;
    static const re2::RE2 re(
        R"(^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$)");
    if (!re2::RE2::PartialMatch(rest, re, &hh, &mm, &ss)) {
        return false;
    }
    return hh <= "23" && mm <= "59" && ss <= "59";
}

// strfmt.ParseDuration: Go's time.ParseDuration, else "<n> <unit>" terms.
bool isDuration(std::string_view s) {
    std::string error;
    if (util::parseGoDuration(s, &error).has_value()) {
        return true;
    }
    static const re2::RE2 term(R"(((\d+)\s*([A-Za-zµ]+)))");
    re2::StringPiece input(s.data(), s.size());
    std::string whole, digits, unit;
    static const std::array<std::array<const char*, 3>, 8> kUnits = {{
        {"ns", "nano", nullptr},
        {"us", "µs", "micro"},
        {"ms", "milli", nullptr},
        {"s", "sec", nullptr},
        {"m", "min", nullptr},
        {"h", "hr", "hour"},
        {"d", "day", nullptr},
        {"w", "wk", "week"},
    }};
    while (re2::RE2::FindAndConsume(&input, term, &whole, &digits, &unit)) {
        std::string u;
        for (char c : unit) {
            u += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        }
        for (const auto& variants : kUnits) {
            int last = variants[2] ? 2 : 1;
            for (int i = 0; i <= last; ++i) {
                std::string_view v = variants[i];
                if ((i == last && u.rfind(v, 0) == 0) || u == v) {
                    return true;
                }
            }
        }
    }
    return false;
}

bool luhn(std::string_view digits) {
    int sum = 0;
    bool shouldDouble = false;
    for (size_t i = digits.size(); i-- > 0;) {
        int d = digits[i] - '0';
        if (shouldDouble) {
            d *= 2;
            if (d > 9) {
                d -= 9;
            }
        }
        sum += d;
        shouldDouble = !shouldDouble;
    }
    return sum % 10 == 0;
}

std::string withoutSpacesAndHyphens(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c != ' ' && c != '-') {
            out += c;
        }
    }
    return out;
}

bool isISBN10(std::string_view s) {
    std::string v = withoutSpacesAndHyphens(s);
    if (!matches(R"(^(?:[0-9]{9}X|[0-9]{10})$)", v)) {
        return false;
    }
    int sum = 0;
    for (int i = 0; i < 9; ++i) {
        sum += (i + 1) * (v[i] - '0');
    }
    sum += v[9] == 'X' ? 100 : 10 * (v[9] - '0');
    return sum % 11 == 0;
}

bool isISBN13(std::string_view s) {
    std::string v = withoutSpacesAndHyphens(s);
    if (!matches(R"(^(?:[0-9]{13})$)", v)) {
        return false;
    }
    int sum = 0;
    for (int i = 0; i < 12; ++i) {
        sum += (v[i] - '0') * (i % 2 == 0 ? 1 : 3);
    }
    return (10 - sum % 10) % 10 == v[12] - '0';
}

bool isCreditCard(std::string_view s) {
    std::string digits;
    for (char c : s) {
        if (c >= '0' && c <= '9') {
            digits += c;
        }
    }
    return matches(
               R"(^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$)",
               digits) &&
           luhn(digits);
}

// net.ParseMAC: 6, 8 or 20 octets as xx:xx:.. / xx-xx-.. or xxxx.xxxx...
bool isMAC(std::string_view s) {
    return matches(
               R"(^(?:[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}|[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){7}|[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){19}|[0-9A-Fa-f]{4}(?:\.[0-9A-Fa-f]{4}){2}|[0-9A-Fa-f]{4}(?:\.[0-9A-Fa-f]{4}){3}|[0-9A-Fa-f]{4}(?:\.[0-9A-Fa-f]{4}){9})$)",
               s) &&
           (s.find(':') == std::string_view::npos || s.find('-') == std::string_view::npos);
}

// url.ParseRequestURI: an absolute URI or an absolute path, no spaces or
// control characters.
bool isRequestURI(std::string_view s) {
    for (unsigned char c : s) {
        if (c < 0x20 || c == 0x7f || c == ' ') {
            return false;
        }
    }
    return matches(R"(^(?:/|[A-Za-z][A-Za-z0-9+.\-]*:))", s);
}

// net/mail.ParseAddress, for the plain and the named forms.
bool isEmail(std::string_view s) {
    return matches(R"(^(?:[^<>@\s]+@[^<>@\s]+|[^<>]*<[^<>@\s]+@[^<>@\s]+>)$)", s);
}

bool isHostname(std::string_view s) {
    if (s.size() > 255 ||
        !matches(
            R"(^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$)",
            s)) {
        return false;
    }
    size_t start = 0;
    while (start <= s.size()) {
        size_t dot = s.find('.', start);
        size_t end = dot == std::string_view::npos ? s.size() : dot;
        if (end - start > 63) {
            return false;
        }
        if (dot == std::string_view::npos) {
            break;
        }
        start = dot + 1;
    }
    return true;
}

}  // namespace

bool isSupportedFormat(std::string_view format) {
    static const char* const kFormats[] = {
        "bsonobjectid", "uri",    "email",    "hostname",   "ipv4",     "ipv6",
        "cidr",         "mac",    "uuid",     "uuid3",      "uuid4",    "uuid5",
        "isbn",         "isbn10", "isbn13",   "creditcard", "ssn",      "hexcolor",
        "rgbcolor",     "byte",   "password", "date",       "duration", "datetime"};
    if (format.empty()) {
        return false;
    }
    std::string n = normalize(format);
    for (const char* f : kFormats) {
        if (n == f) {
            return true;
        }
    }
    return false;
}

bool isOfFormat(std::string_view format, std::string_view v) {
    std::string f = normalize(format);
    if (f == "bsonobjectid") {
        return matches(R"(^[0-9a-fA-F]{24}$)", v);
    }
    if (f == "uri") {
        return isRequestURI(v);
    }
    if (f == "email") {
        return isEmail(v);
    }
    if (f == "hostname") {
        return isHostname(v);
    }
    if (f == "ipv4") {
        return isIP(v) && v.find('.') != std::string_view::npos;
    }
    if (f == "ipv6") {
        return isIP(v) && v.find(':') != std::string_view::npos;
    }
    if (f == "cidr") {
        return isCIDR(v);
    }
    if (f == "mac") {
        return isMAC(v);
    }
    if (f == "uuid") {
        return matches(R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$)",
                       v);
    }
    if (f == "uuid3") {
        return matches(R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$)",
                       v);
    }
    if (f == "uuid4") {
        return matches(
            R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$)", v);
    }
    if (f == "uuid5") {
        return matches(
            R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$)", v);
    }
    if (f == "isbn") {
        return isISBN10(v) || isISBN13(v);
    }
    if (f == "isbn10") {
        return isISBN10(v);
    }
    if (f == "isbn13") {
        return isISBN13(v);
    }
    if (f == "creditcard") {
        return isCreditCard(v);
    }
    if (f == "ssn") {
        return (v.size() == 9 || v.size() == 11) && matches(R"(^\d{3}[- ]?\d{2}[- ]?\d{4}$)", v);
    }
    if (f == "hexcolor") {
        return matches(R"(^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$)", v);
    }
    if (f == "rgbcolor") {
        return matches(
            R"(^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$)",
            v);
    }
    if (f == "byte") {
        return matches(
            R"(^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$)",
            v);
    }
    if (f == "date") {
        return isDate(v);
    }
    if (f == "duration") {
        return isDuration(v);
    }
    if (f == "datetime") {
        return isDateTime(v);
    }
    return true;  // password, and anything not checked
}

}  // namespace kube::apis::apiextensions::structural
