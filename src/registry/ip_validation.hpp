#pragma once

#include <string>
#include <string_view>
#include <vector>

// Strict IP and CIDR checks for fields new in kube (IPAddress names, a
// ServiceCIDR's cidrs); mirror kube 1.33's validation.IsValidIP and
// validation.IsValidCIDR: what is wrong with the value, as kube words it
// (one message at most), none when it is valid.
namespace kube::registry::validation {

// A valid IP address (else nothing more is said), then the first of: leading
// zeros, an IPv4-mapped IPv6 address, not in canonical form (dotted decimal;
// RFC 5952 for IPv6).
std::vector<std::string> isValidCanonicalIP(std::string_view value);
// A valid CIDR (else nothing more is said), then the first of: leading zeros
// in the address or the prefix length, an IPv4-mapped IPv6 address, bits set
// beyond the prefix length, not in canonical form.
std::vector<std::string> isValidCanonicalCIDR(std::string_view value);
// 4 or 6 for a CIDR a sloppy parser accepts (an IPv4-mapped one is 4), else 0.
int cidrFamily(std::string_view value);

}  // namespace kube::registry::validation
