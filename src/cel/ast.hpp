#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cel/value.hpp"

namespace kube::cel {

// One node of a parsed expression (mirrors cel-go's ast.Expr, with the
// macros kept as their own kinds instead of expanded comprehensions: the
// interpreter and the cost estimate both want to know which macro it was).
struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class ExprKind {
    Literal,  // value
    Ident,    // name
    Select,   // operand.name, or has(operand.name) when testOnly
    Call,     // name(args), target.name(args) when target is set
    List,     // [args...]
    Map,      // {args[0]: args[1], ...}
    Macro,    // target.name(iterVar, args...): all, exists, exists_one, map, filter
};

enum class MacroKind { All, Exists, ExistsOne, Map, MapFilter, Filter };

struct Expr {
    ExprKind kind = ExprKind::Literal;
    // Byte offset in the source, for error positions.
    int32_t offset = 0;
    Value value;
    std::string name;
    bool testOnly = false;
    MacroKind macro = MacroKind::All;
    std::string iterVar;
    ExprPtr target;
    std::vector<ExprPtr> args;
};

}  // namespace kube::cel
