#pragma once

#include "cel/type.hpp"
#include "cel/value.hpp"
#include "util/json.hpp"

namespace kube::cel {

// A JSON value of an object as a rule sees it (mirrors kube's
// UnstructuredToVal): objects become maps with string keys, lists lists,
// integers int and other numbers double; where the schema's type says so,
// an integer becomes a double (type number) and a string a timestamp
// (format date-time), a duration (format duration) or bytes (format byte,
// base64). A string that does not parse so becomes an Error value, which a
// rule using it reports. `type` may be null (dyn). Iterative, so any depth
// is fine.
Value objectValue(const util::json::Value& json, const Type* type);

}  // namespace kube::cel
