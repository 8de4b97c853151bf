#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cel/ast.hpp"
#include "cel/value.hpp"

namespace kube::cel {

// cel-go's error when an evaluation spends more than its cost limit.
inline constexpr const char* kCostLimitExceeded = "operation cancelled: actual cost limit exceeded";

// The result of one evaluation: the value (an Error value when evaluation
// failed: "no such key: x", "integer overflow", kCostLimitExceeded...) and
// the cost it spent, in cel-go's cost units.
struct EvalOutcome {
    Value value;
    uint64_t cost = 0;
};

// Evaluates a checked expression with the given variables bound. Every step
// costs (roughly as cel-go's runtime cost tracker counts: 1 per variable,
// field and call, a tenth per character or element a function traverses);
// past `costLimit` the evaluation stops with kCostLimitExceeded, so no
// expression runs long. Recursion follows the expression's depth, which
// the parser bounds.
EvalOutcome interpret(const Expr& e, const std::vector<std::pair<std::string, Value>>& variables,
                      uint64_t costLimit);

}  // namespace kube::cel
