#pragma once

#include <string>
#include <string_view>
#include <utility>

// Request headers as the authenticators and the impersonation filter read
// them, without the HTTP server's types.
namespace kube::authn {

// A request header as received: its name in any case, its value.
using Header = std::pair<std::string_view, std::string_view>;

// Header names compare case-insensitively (ASCII).
bool headerNameEquals(std::string_view a, std::string_view b);
bool headerNameHasPrefix(std::string_view name, std::string_view prefix);

// The user-extra key a header name carries after its prefix: lowercased, then
// unescaped as a URL path segment (so "Example.com%2Fteam" is
// "example.com/team"); kept as it was when the escape is invalid.
std::string extraKeyOf(std::string_view suffix);

}  // namespace kube::authn
