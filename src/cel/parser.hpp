#pragma once

#include <string_view>
#include <vector>

#include "cel/ast.hpp"
#include "cel/issues.hpp"

namespace kube::cel {

// cel-go's parser limits, which kube-apiserver keeps at their defaults: the
// visitor's recursion depth (each nested expression costs about six levels,
// each operator of a left-associative chain one) and the expression's size
// in code points.
inline constexpr int kMaxRecursionDepth = 250;
inline constexpr size_t kMaxExpressionCodePoints = 100000;

// Parses a CEL expression. On a syntax error the result is null and
// `issues` says why and where, worded as cel-go's parser words it ("Syntax
// error: mismatched input '<EOF>' expecting ...", "max recursion depth
// exceeded"). Macros (has, all, exists, exists_one, map, filter) are
// recognized here. Recursion is bounded, so any input is safe.
ExprPtr parse(std::string_view text, std::vector<Issue>* issues);

}  // namespace kube::cel
