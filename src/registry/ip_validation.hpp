#pragma once

#include <string>
#include <string_view>
#include <vector>

// Strict IP and CIDR checks for fields new in kube (IPAddress names, a
// ServiceCIDR's cidrs); mirror validation.IsValidIP with IPIsCanonical and
// validation.IsValidCIDR with CIDRIsCanonical: the messages of what is wrong,
// none when the value is valid.
namespace kube::registry::validation {

// A valid IP address, no leading zeros, not IPv4-mapped IPv6, in canonical
// form (dotted decimal; RFC 5952 for IPv6).
std::vector<std::string> isValidCanonicalIP(std::string_view value);
// A valid subnet CIDR, no leading zeros, no IPv4-mapped IPv6 address, in
// canonical form, no bits set beyond the prefix length.
std::vector<std::string> isValidCanonicalCIDR(std::string_view value);
// 4 or 6 for a CIDR a sloppy parser accepts, else 0.
int cidrFamily(std::string_view value);

}  // namespace kube::registry::validation
