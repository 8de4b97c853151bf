#pragma once

#include <optional>

#include "util/json.hpp"

namespace kube::util::json {

// How Go's encoding/json would refuse `v` written out as JSON text: the
// opening character ('[' or '{') of the first value, in document order,
// nested deeper than `limit` levels (the top-level value is level one);
// nullopt when `v` is within the limit. Walks without recursion.
std::optional<char> firstTooDeep(const Value& v, int limit = kMaxNestingDepth);

}  // namespace kube::util::json
