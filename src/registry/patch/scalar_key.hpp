#pragma once

#include <optional>
#include <string>

#include "util/json.hpp"

namespace kube::registry::patch {

// What Go's == sees of a decoded scalar, as a string to hash: two values
// have the same key exactly when goEqual() holds (an integer and a float
// differ, -0 equals 0), and a missing value (nullptr) is the same nil as a
// JSON null. Objects and arrays have none: Go never finds them equal. Lets
// the patch code match list items and merge keys through hash maps instead
// of comparing every pair.
std::optional<std::string> scalarKey(const util::json::Value* v);

}  // namespace kube::registry::patch
