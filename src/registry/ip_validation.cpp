#include "registry/ip_validation.hpp"

#include <arpa/inet.h>

#include <array>
#include <cstdio>
#include <cstdint>
#include <optional>

namespace kube::registry::validation {

namespace {

// An address as Go's net.ParseIP (netutils.ParseIPSloppy) reads it, and what
// netip.ParseAddr would object to.
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

std::optional<ParsedIP> parseIP(std::string_view s) {
    if (s.find(':') == std::string_view::npos) {
        return parseIPv4(s);
    }
    ParsedIP ip;
    std::string text(s);
    if (inet_pton(AF_INET6, text.c_str(), ip.bytes.data()) != 1) {
        return std::nullopt;
    }
    return ip;
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

// netutils.ParseCIDRSloppy: an address, '/', a decimal prefix length no
// longer than the address.
std::optional<ParsedCIDR> parseCIDR(std::string_view s) {
    size_t slash = s.find('/');
    if (slash == std::string_view::npos) {
        return std::nullopt;
    }
    std::optional<ParsedIP> ip = parseIP(s.substr(0, slash));
    std::string_view len = s.substr(slash + 1);
    if (!ip || len.empty() || len.size() > 3 ||
        len.find_first_not_of("0123456789") != std::string_view::npos) {
        return std::nullopt;
    }
    ParsedCIDR c{*ip, std::stoi(std::string(len)), ip->leadingZeros};
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
    std::vector<std::string> errs;
    if (ip->leadingZeros) {
        errs.push_back("must not have leading 0s");
    }
    if (isV4Mapped(*ip)) {
        errs.push_back("must not be an IPv4-mapped IPv6 address");
    }
    if (errs.empty()) {
        std::string canonical = format(*ip);
        if (canonical != value) {
            errs.push_back("must be in canonical form (\"" + canonical + "\")");
        }
    }
    return errs;
}

std::vector<std::string> isValidCanonicalCIDR(std::string_view value) {
    std::optional<ParsedCIDR> c = parseCIDR(value);
    if (!c) {
        return {"must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"};
    }
    std::vector<std::string> errs;
    if (c->leadingZeros) {
        errs.push_back("must not have leading 0s in IP or prefix length");
    }
    if (isV4Mapped(c->ip)) {
        errs.push_back("must not have an IPv4-mapped IPv6 address");
    }
    if (errs.empty()) {
        std::string canonical = format(c->ip) + "/" + std::to_string(c->bits);
        if (canonical != value) {
            errs.push_back("must be in canonical form (\"" + canonical + "\")");
        }
    }
    if (hostBitsSet(*c)) {
        errs.push_back("must not have bits set beyond the prefix length");
    }
    return errs;
}

int cidrFamily(std::string_view value) {
    std::optional<ParsedCIDR> c = parseCIDR(value);
    if (!c) {
        return 0;
    }
    return c->ip.v4 || isV4Mapped(c->ip) ? 4 : 6;
}

}  // namespace kube::registry::validation
