#pragma once

#include <optional>
#include <string_view>

#include "util/json.hpp"

namespace kube::util::json {

// How Go's encoding/json would refuse `v` written out as JSON text: the
// opening character ('[' or '{') of the first value, in document order,
// nested deeper than `limit` levels (the top-level value is level one);
// nullopt when `v` is within the limit. Walks without recursion.
std::optional<char> firstTooDeep(const Value& v, int limit = kMaxNestingDepth);

// Whether JSON text nests objects and arrays deeper than `depth` levels (the
// top-level value is level one), read without parsing it: brackets inside
// strings do not count. Text that is no valid JSON gets some answer.
bool textNestsDeeperThan(std::string_view text, int depth);

}  // namespace kube::util::json
