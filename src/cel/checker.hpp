#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cel/ast.hpp"
#include "cel/issues.hpp"
#include "cel/type.hpp"

namespace kube::cel {

// A variable the expression may name, with its type.
struct Declaration {
    std::string name;
    TypePtr type;
};

// What the checker learned: each node's type, and whether the expression
// names a given variable (kube: a rule naming oldSelf is a transition rule).
struct CheckedExpr {
    std::unordered_map<const Expr*, TypePtr> types;
    TypePtr resultType;
    std::vector<std::string> referencedVariables;
};

// Type-checks a parsed expression against the declared variables and the
// registry's functions, as cel-go's checker does with kube's environment
// (homogeneous aggregate literals, no cross-type numeric comparisons).
// Problems go to `issues` with cel-go's wording: "undefined field 'x'",
// "undeclared reference to 'f' (in container '')", "found no matching
// overload for '_+_' applied to '(string, int)'", "expected type 'int' but
// found 'string'". Recursion follows the expression's depth, which the
// parser bounds.
CheckedExpr check(const Expr& e, const std::vector<Declaration>& variables,
                  std::vector<Issue>* issues);

}  // namespace kube::cel
