#pragma once

#include <memory>
#include <string>

#include <re2/re2.h>

namespace kube::cel {

// A compiled RE2 pattern (CEL's regular expressions are RE2's, as Go's
// regexp), from a small per-thread cache so a rule's pattern compiles once.
// On a bad pattern: null, and `error` as Go's regexp words it ("error
// parsing regexp: missing closing ]: `[`").
std::shared_ptr<const re2::RE2> compileRegex(const std::string& pattern, std::string* error);

}  // namespace kube::cel
