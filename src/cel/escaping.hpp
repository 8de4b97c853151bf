#pragma once

#include <optional>
#include <string>
#include <string_view>

// The names a schema's properties go by in CEL; mirrors kube's
// apiserver/pkg/cel Escape. A property whose name is a CEL reserved word
// or holds '.', '-', '/' or "__" is reachable under an escaped identifier:
// namespace → __namespace__, x-y → x__dash__y, a.b → a__dot__b,
// a/b → a__slash__b, a__b → a__underscores__b.
namespace kube::cel {

// The identifier `name` is reached by, or nothing when CEL cannot name it
// (empty, a leading digit, a character outside [A-Za-z0-9_./-]): such a
// property is left out of the rule's type.
std::optional<std::string> escapePropertyName(std::string_view name);

}  // namespace kube::cel
