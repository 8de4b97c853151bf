#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cel/ast.hpp"
#include "cel/checker.hpp"
#include "cel/cost.hpp"
#include "cel/interpreter.hpp"
#include "cel/type.hpp"
#include "util/json.hpp"

// CEL for CRD validation rules (x-kubernetes-validations): compile a rule
// once against the schema's type, evaluate it per object. Mirrors kube's
// apiextensions-apiserver/pkg/apiserver/schema/cel (Compile, compileRule,
// Validate's evaluation).
namespace kube::cel {

// What an expression is for: a rule yields a bool; a messageExpression
// (kube 1.27) the string that replaces the rule's message.
enum class Purpose { Rule, MessageExpression };

// A compiled rule: immutable, shareable between threads.
class Program {
  public:
    const Expr& expr() const { return *expr_; }
    // The rule names oldSelf: a transition rule, run only on updates.
    bool isTransitionRule() const { return transitionRule_; }
    // The worst-case cost cel-go's estimator would give it.
    uint64_t estimatedMaxCost() const { return estimatedMaxCost_; }
    const TypePtr& selfType() const { return selfType_; }

  private:
    friend std::shared_ptr<const Program> compile(std::string_view, const TypePtr&, std::string*,
                                                  Purpose);
    ExprPtr expr_;
    CheckedExpr checked_;
    TypePtr selfType_;
    bool transitionRule_ = false;
    uint64_t estimatedMaxCost_ = 0;
};

// Compiles `rule` with `self` and `oldSelf` of type `selfType`. On failure:
// null, and `error` as kube words it:
//   compilation failed: ERROR: <input>:1:5: undefined field 'foo'
//    | self.foo == 1
//    | ....^
//   cel expression must evaluate to a bool
//   program instantiation failed: error parsing regexp: missing closing ]: `[`
// The estimate is not checked here: compare estimatedMaxCost() with
// kStaticEstimatedCostLimit and word the refusal with costErrorMessage().
// A messageExpression that is not a string: "messageExpression must
// evaluate to a string".
std::shared_ptr<const Program> compile(std::string_view rule, const TypePtr& selfType,
                                       std::string* error, Purpose purpose = Purpose::Rule);

// The values a rule sees. oldSelf is bound only when given (updates).
struct Activation {
    const util::json::Value* self = nullptr;
    const util::json::Value* oldSelf = nullptr;
};

// One evaluation: the value (a bool for a compiled rule, or an Error value:
// "no such key: x", "integer overflow", "no such overload",
// kCostLimitExceeded) and the cost spent. The evaluation stops once it has
// spent `costLimit`.
EvalOutcome evaluate(const Program& program, const Activation& activation,
                     uint64_t costLimit = kPerCallLimit);

// The same with self and oldSelf already converted (objectValue() with the
// program's selfType()): the rules of one schema node share one type, so
// a caller running several of them on one object converts it once.
EvalOutcome evaluate(const Program& program, const Value& self, const Value* oldSelf,
                     uint64_t costLimit = kPerCallLimit);

}  // namespace kube::cel
