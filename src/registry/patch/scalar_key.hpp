#pragma once

#include <cstddef>

#include "util/json.hpp"

namespace kube::registry::patch {

// Go's == on two decoded values as the patch code compares list items and
// merge keys: a missing value (nullptr) is the same nil as a JSON null;
// scalars are equal when goEqual() says so (an integer and a float differ,
// -0 equals 0); objects and arrays are never equal, not even to themselves.
bool goScalarEqual(const util::json::Value* a, const util::json::Value* b);

// Whether goScalarEqual() can hold for `v` at all (nil or a scalar).
bool isGoScalar(const util::json::Value* v);

// A hash of `v` consistent with goScalarEqual(), for a value isGoScalar()
// accepts: lets the patch code match items through hash indexes instead of
// comparing every pair.
size_t goScalarHash(const util::json::Value* v);

}  // namespace kube::registry::patch
