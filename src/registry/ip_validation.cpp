#include "registry/ip_validation.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>

#include "util/hex.hpp"

namespace kube::registry::validation {

namespace {

// An address as netutils.ParseIPSloppy (Go 1.16's net.ParseIP) reads it,
// and whether netip.ParseAddr would refuse it: it reads the same addresses
// but for leading zeros (an IPv4 part "010", an IPv6 field of more than four
// digits).
struct ParsedIP {
    std::array<uint8_t, 16> bytes{};
    bool v4 = false;
    bool leadingZeros = false;
};

std::optional<ParsedIP> parseIPv4(std::string_view s) {
    ParsedIP ip;
    ip.v4 = true;
    for (int part = 0; part < 4; part++) {
        if (part > 0) {
            if (s.empty() || s[0] != '.') {
                return std::nullopt;
            }
            s.remove_prefix(1);
        }
        size_t digits = 0;
        unsigned value = 0;
        while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') {
            value = value * 10 + unsigned(s[digits] - '0');
            if (value > 255) {
                return std::nullopt;
            }
            digits++;
        }
        if (digits == 0) {
            return std::nullopt;
        }
        if (digits > 1 && s[0] == '0') {
            ip.leadingZeros = true;
        }
        ip.bytes[size_t(part)] = uint8_t(value);
        s.remove_prefix(digits);
    }
    if (!s.empty()) {
        return std::nullopt;
    }
    return ip;
}

// Fields of hex digits worth at most 16 bits, at most one "::" standing for
// one or more zero fields, an IPv4 address in the last 32 bits.
std::optional<ParsedIP> parseIPv6(std::string_view s) {
    ParsedIP ip;
    int ellipsis = -1;
    if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
        ellipsis = 0;
        s.remove_prefix(2);
        if (s.empty()) {
            return ip;
        }
    }
    size_t i = 0;
    while (i < 16) {
        size_t digits = 0;
        unsigned value = 0;
        while (digits < s.size() && util::hexDigitValue(s[digits]) >= 0) {
            value = value * 16 + unsigned(util::hexDigitValue(s[digits]));
            if (value > 0xffff) {
                return std::nullopt;
            }
            digits++;
        }
        if (digits == 0) {
            return std::nullopt;
        }
        if (digits < s.size() && s[digits] == '.') {
            if ((ellipsis < 0 && i != 12) || i + 4 > 16) {
                return std::nullopt;
            }
            std::optional<ParsedIP> tail = parseIPv4(s);
            if (!tail) {
                return std::nullopt;
            }
            std::copy_n(tail->bytes.begin(), 4, ip.bytes.begin() + long(i));
            ip.leadingZeros |= tail->leadingZeros;
            i += 4;
            s = {};
            break;
        }
        if (digits > 4) {
            ip.leadingZeros = true;
        }
        ip.bytes[i] = uint8_t(value >> 8);
        ip.bytes[i + 1] = uint8_t(value);
        i += 2;
        s.remove_prefix(digits);
        if (s.empty()) {
            break;
        }
        if (s[0] != ':' || s.size() == 1) {
            return std::nullopt;
        }
        s.remove_prefix(1);
        if (s[0] == ':') {
            if (ellipsis >= 0) {
                return std::nullopt;
            }
            ellipsis = int(i);
            s.remove_prefix(1);
            if (s.empty()) {
                break;
            }
        }
    }
    if (!s.empty()) {
        return std::nullopt;
    }
    if (i < 16) {
        if (ellipsis < 0) {
            return std::nullopt;
        }
        // The fields after "::" move to the end; zeros fill the gap.
        size_t gap = 16 - i;
        std::copy_backward(ip.bytes.begin() + ellipsis, ip.bytes.begin() + long(i), ip.bytes.end());
        std::fill_n(ip.bytes.begin() + ellipsis, gap, uint8_t(0));
    } else if (ellipsis >= 0) {
        return std::nullopt;  // "::" stands for no field
    }
    return ip;
}

// Whichever of '.' and ':' comes first says the family, as in Go.
std::optional<ParsedIP> parseIP(std::string_view s) {
    size_t mark = s.find_first_of(".:");
    if (mark == std::string_view::npos) {
        return std::nullopt;
    }
    return s[mark] == '.' ? parseIPv4(s) : parseIPv6(s);
}

bool isV4Mapped(const ParsedIP& ip) {
    if (ip.v4) {
        return false;
    }
    for (size_t i = 0; i < 10; i++) {
        if (ip.bytes[i] != 0) {
            return false;
        }
    }
    return ip.bytes[10] == 0xff && ip.bytes[11] == 0xff;
}

// Go's netip.Addr.String: dotted decimal, or RFC 5952 (lowercase hex, the
// first longest run of two or more zero groups as "::").
std::string format(const ParsedIP& ip) {
    if (ip.v4) {
        return std::to_string(ip.bytes[0]) + "." + std::to_string(ip.bytes[1]) + "." +
               std::to_string(ip.bytes[2]) + "." + std::to_string(ip.bytes[3]);
    }
    std::array<unsigned, 8> groups{};
    for (size_t i = 0; i < 8; i++) {
        groups[i] = unsigned(ip.bytes[2 * i]) << 8 | ip.bytes[2 * i + 1];
    }
    int bestStart = -1;
    int bestLen = 0;
    for (int i = 0; i < 8;) {
        int j = i;
        while (j < 8 && groups[size_t(j)] == 0) {
            j++;
        }
        if (j - i > bestLen && j - i >= 2) {
            bestStart = i;
            bestLen = j - i;
        }
        i = j == i ? i + 1 : j;
    }
    std::string out;
    char buf[8];
    for (int i = 0; i < 8; i++) {
        if (i == bestStart) {
            out += "::";
            i += bestLen - 1;
            continue;
        }
        if (!out.empty() && out.back() != ':') {
            out += ':';
        }
        std::snprintf(buf, sizeof buf, "%x", groups[size_t(i)]);
        out += buf;
    }
    return out;
}

struct ParsedCIDR {
    ParsedIP ip;
    int bits = 0;
    bool leadingZeros = false;
};

// netutils.ParseCIDRSloppy: an IPv4 or else IPv6 address, '/', a decimal
// prefix length no longer than the address (leading zeros allowed, which
// netip.ParsePrefix refuses).
std::optional<ParsedCIDR> parseCIDR(std::string_view s) {
    size_t slash = s.find('/');
    if (slash == std::string_view::npos) {
        return std::nullopt;
    }
    std::string_view addr = s.substr(0, slash);
    std::optional<ParsedIP> ip = parseIPv4(addr);
    if (!ip) {
        ip = parseIPv6(addr);
    }
    std::string_view len = s.substr(slash + 1);
    if (!ip || len.empty() || len.find_first_not_of("0123456789") != std::string_view::npos) {
        return std::nullopt;
    }
    ParsedCIDR c{*ip, 0, ip->leadingZeros};
    for (char d : len) {
        c.bits = c.bits * 10 + (d - '0');
        if (c.bits > 128) {
            return std::nullopt;
        }
    }
    if (c.bits > (ip->v4 ? 32 : 128)) {
        return std::nullopt;
    }
    if (len.size() > 1 && len[0] == '0') {
        c.leadingZeros = true;
    }
    return c;
}

bool hostBitsSet(const ParsedCIDR& c) {
    size_t total = c.ip.v4 ? 4 : 16;
    for (size_t i = 0; i < total; i++) {
        int first = int(i) * 8;
        uint8_t keep = first + 8 <= c.bits ? 0xff
                       : first >= c.bits   ? 0
                                           : uint8_t(0xff << (8 - (c.bits - first)));
        if ((c.ip.bytes[i] & ~keep) != 0) {
            return true;
        }
    }
    return false;
}

}  // namespace

std::vector<std::string> isValidCanonicalIP(std::string_view value) {
    std::optional<ParsedIP> ip = parseIP(value);
    if (!ip) {
        return {"must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"};
    }
    if (ip->leadingZeros) {
        return {"must not have leading 0s"};
    }
    if (isV4Mapped(*ip)) {
        return {"must not be an IPv4-mapped IPv6 address"};
    }
    if (std::string canonical = format(*ip); canonical != value) {
        return {"must be in canonical form (\"" + canonical + "\")"};
    }
    return {};
}

std::vector<std::string> isValidCanonicalCIDR(std::string_view value) {
    std::optional<ParsedCIDR> c = parseCIDR(value);
    if (!c) {
        return {"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"};
    }
    if (c->leadingZeros) {
        return {"must not have leading 0s in IP or prefix length"};
    }
    if (isV4Mapped(c->ip)) {
        return {"must not have an IPv4-mapped IPv6 address"};
    }
    if (hostBitsSet(*c)) {
        return {"must not have bits set beyond the prefix length"};
    }
    if (std::string canonical = format(c->ip) + "/" + std::to_string(c->bits); canonical != value) {
        return {"must be in canonical form (\"" + canonical + "\")"};
    }
    return {};
}

int cidrFamily(std::string_view value) {
    std::optional<ParsedCIDR> c = parseCIDR(value);
    if (!c) {
        return 0;
    }
    return c->ip.v4 || isV4Mapped(c->ip) ? 4 : 6;
}

}  // namespace kube::registry::validation
