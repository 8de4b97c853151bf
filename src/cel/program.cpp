#include "cel/program.hpp"

#include <algorithm>
#include <functional>

#include "cel/object_value.hpp"
#include "cel/parser.hpp"
#include "cel/regex.hpp"

namespace kube::cel {

namespace {

// cel-go compiles the regular expressions of matches/find/findAll given as
// literals when the program is built (kube's OptimizeRegex), so a bad one
// fails the rule there. The first bad one, or empty.
std::string badLiteralRegex(const Expr& e) {
    std::vector<const Expr*> stack{&e};
    while (!stack.empty()) {
        const Expr* x = stack.back();
        stack.pop_back();
        if (x->kind == ExprKind::Call &&
            (x->name == "matches" || x->name == "find" || x->name == "findAll")) {
            const Expr* pattern = x->target ? (x->args.empty() ? nullptr : x->args[0].get())
                                            : (x->args.size() < 2 ? nullptr : x->args[1].get());
            if (pattern != nullptr && pattern->kind == ExprKind::Literal &&
                pattern->value.kind() == Kind::String) {
                std::string error;
                if (!compileRegex(pattern->value.str(), &error)) {
                    return error;
                }
            }
        }
        if (x->target) {
            stack.push_back(x->target.get());
        }
        for (const ExprPtr& a : x->args) {
            stack.push_back(a.get());
        }
    }
    return {};
}

}  // namespace

std::shared_ptr<const Program> compile(std::string_view rule, const TypePtr& selfType,
                                       std::string* error, Purpose purpose) {
    std::vector<Issue> issues;
    ExprPtr expr = parse(rule, &issues);
    if (!expr) {
        *error = "compilation failed: " + formatIssues(rule, issues);
        return nullptr;
    }
    std::vector<Declaration> variables = {{"self", selfType}, {"oldSelf", selfType}};
    CheckedExpr checked = check(*expr, variables, &issues);
    if (!issues.empty()) {
        *error = "compilation failed: " + formatIssues(rule, issues);
        return nullptr;
    }
    TypeKind result = checked.resultType->kind;
    if (purpose == Purpose::Rule && result != TypeKind::Bool) {
        *error = "cel expression must evaluate to a bool";
        return nullptr;
    }
    if (purpose == Purpose::MessageExpression && result != TypeKind::String) {
        *error = "messageExpression must evaluate to a string";
        return nullptr;
    }
    std::string regexError = badLiteralRegex(*expr);
    if (!regexError.empty()) {
        *error = "program instantiation failed: " + regexError;
        return nullptr;
    }
    auto program = std::make_shared<Program>();
    const auto& refs = checked.referencedVariables;
    program->transitionRule_ = std::find(refs.begin(), refs.end(), "oldSelf") != refs.end();
    program->estimatedMaxCost_ = estimateMaxCost(*expr, checked, selfType.get());
    program->expr_ = std::move(expr);
    program->selfType_ = selfType;
    program->checked_ = std::move(checked);
    return program;
}

EvalOutcome evaluate(const Program& program, const Activation& activation, uint64_t costLimit) {
    std::vector<std::pair<std::string, Value>> variables;
    if (activation.self != nullptr) {
        variables.emplace_back("self", objectValue(*activation.self, program.selfType().get()));
    }
    if (activation.oldSelf != nullptr) {
        variables.emplace_back("oldSelf",
                               objectValue(*activation.oldSelf, program.selfType().get()));
    }
    return interpret(program.expr(), variables, costLimit);
}

EvalOutcome evaluate(const Program& program, const Value& self, const Value* oldSelf,
                     uint64_t costLimit) {
    std::vector<std::pair<std::string, Value>> variables;
    variables.emplace_back("self", self);
    if (oldSelf != nullptr) {
        variables.emplace_back("oldSelf", *oldSelf);
    }
    return interpret(program.expr(), variables, costLimit);
}

}  // namespace kube::cel
