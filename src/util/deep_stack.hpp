#pragma once

#include <functional>

#include "util/json.hpp"

// Walks that follow a document's nesting recurse once (or a few times) per
// level: the CRD schema checks, strict field checks and protobuf encoding
// (protobuf's own serializer recurses per message). The parser bounds the
// nesting (kMaxNestingDepth), not the stack a level costs: a CRD schema of
// `items` 9,980 deep overflowed the worker's 8 MB stack (SIGSEGV). Such a
// walk runs here on a thread with a stack sized for the deepest document the
// parser accepts, and the caller waits for it: the walks are linear, so the
// wait is the walk's own time.
namespace kube::util {

// Levels of nesting below which a walk runs on the caller's stack.
inline constexpr int kShallowNestingDepth = 256;

// Whether `v` nests deeper than kShallowNestingDepth (walked without recursion).
bool nestsDeep(const json::Value& v);

// Runs `fn` on the caller's stack when `v` is shallow, else on a thread with
// a stack for kMaxNestingDepth levels; an exception `fn` throws is rethrown
// here. Throws std::runtime_error if no such thread can be started.
void runWithStackFor(const json::Value& v, const std::function<void()>& fn);

}  // namespace kube::util
