#include "cel/checker.hpp"

#include <algorithm>
#include <map>

#include "cel/functions.hpp"

namespace kube::cel {

namespace {

using Bindings = std::map<std::string, TypePtr>;

bool isDynOrError(const TypePtr& t) {
    return t->kind == TypeKind::Dyn || t->kind == TypeKind::Error;
}

// Whether a value of type `arg` may be passed where `param` is expected,
// binding the parameter's type variables.
bool assignable(const TypePtr& param, const TypePtr& arg, Bindings& bound) {
    if (param->kind == TypeKind::Param) {
        auto it = bound.find(param->name);
        if (it == bound.end()) {
            bound[param->name] = arg;
            return true;
        }
        if (assignable(it->second, arg, bound)) {
            return true;
        }
        // A parameter first bound to dyn or null takes the more precise type.
        if (it->second->kind == TypeKind::Null && arg->kind == TypeKind::Object) {
            it->second = arg;
            return true;
        }
        return false;
    }
    if (isDynOrError(param) || isDynOrError(arg)) {
        return true;
    }
    if (param->kind == TypeKind::Object && arg->kind == TypeKind::Null) {
        return true;
    }
    if (param->kind != arg->kind) {
        return false;
    }
    switch (param->kind) {
        case TypeKind::List:
            return assignable(param->elem, arg->elem, bound);
        case TypeKind::Map:
            return assignable(param->key, arg->key, bound) &&
                   assignable(param->elem, arg->elem, bound);
        case TypeKind::Object:
            // One schema node, one type.
            return param == arg;
        default:
            return true;
    }
}

TypePtr substitute(const TypePtr& t, const Bindings& bound) {
    switch (t->kind) {
        case TypeKind::Param: {
            auto it = bound.find(t->name);
            return it == bound.end() ? Type::dyn() : it->second;
        }
        case TypeKind::List:
            return Type::list(substitute(t->elem, bound));
        case TypeKind::Map:
            return Type::map(substitute(t->key, bound), substitute(t->elem, bound));
        case TypeKind::Type:
            return t->elem ? Type::typeOf(substitute(t->elem, bound)) : t;
        default:
            return t;
    }
}

bool sameType(const TypePtr& a, const TypePtr& b) {
    Bindings none;
    return a->kind == b->kind && assignable(a, b, none) && assignable(b, a, none);
}

class Checker {
  public:
    Checker(const std::vector<Declaration>& variables, std::vector<Issue>* issues)
        : issues_(issues) {
        for (const Declaration& d : variables) {
            scope_.push_back({d.name, d.type});
        }
        globals_ = scope_.size();
    }

    CheckedExpr run(const Expr& e) {
        out_.resultType = visit(e);
        return std::move(out_);
    }

  private:
    TypePtr visit(const Expr& e) {
        TypePtr t = visitKind(e);
        out_.types[&e] = t;
        return t;
    }

    void error(int32_t offset, std::string message) {
        issues_->push_back({offset, std::move(message)});
    }

    TypePtr visitKind(const Expr& e) {
        switch (e.kind) {
            case ExprKind::Literal:
                return literalType(e.value);
            case ExprKind::Ident:
                return ident(e);
            case ExprKind::Select:
                return select(e);
            case ExprKind::Call:
                return call(e);
            case ExprKind::List:
                return listLiteral(e);
            case ExprKind::Map:
                return mapLiteral(e);
            case ExprKind::Macro:
                return macro(e);
        }
        return Type::error();
    }

    static TypePtr literalType(const Value& v) {
        switch (v.kind()) {
            case Kind::Null:
                return Type::null();
            case Kind::Bool:
                return Type::boolean();
            case Kind::Int:
                return Type::integer();
            case Kind::Uint:
                return Type::uinteger();
            case Kind::Double:
                return Type::dbl();
            case Kind::String:
                return Type::string();
            case Kind::Bytes:
                return Type::bytes();
            default:
                return Type::dyn();
        }
    }

    TypePtr ident(const Expr& e) {
        for (size_t i = scope_.size(); i-- > 0;) {
            if (scope_[i].first == e.name) {
                if (i < globals_ &&
                    std::find(out_.referencedVariables.begin(), out_.referencedVariables.end(),
                              e.name) == out_.referencedVariables.end()) {
                    out_.referencedVariables.push_back(e.name);
                }
                return scope_[i].second;
            }
        }
        // Type names are values too (type(x) == int).
        static const std::pair<const char*, TypePtr> kTypeNames[] = {
            {"int", Type::integer()},          {"uint", Type::uinteger()},
            {"double", Type::dbl()},           {"bool", Type::boolean()},
            {"string", Type::string()},        {"bytes", Type::bytes()},
            {"list", Type::list(Type::dyn())}, {"map", Type::map(Type::dyn(), Type::dyn())},
            {"null_type", Type::null()},       {"type", Type::type()}};
        for (const auto& [name, type] : kTypeNames) {
            if (e.name == name) {
                return Type::typeOf(type);
            }
        }
        error(e.offset, "undeclared reference to '" + e.name + "' (in container '')");
        return Type::error();
    }

    TypePtr select(const Expr& e) {
        TypePtr operand = visit(*e.target);
        TypePtr result;
        switch (operand->kind) {
            case TypeKind::Object: {
                auto it = operand->fields.find(e.name);
                if (it == operand->fields.end()) {
                    error(e.offset, "undefined field '" + e.name + "'");
                    return Type::error();
                }
                result = it->second;
                break;
            }
            case TypeKind::Map:
                if (!isDynOrError(operand->key) && operand->key->kind != TypeKind::String) {
                    error(e.offset,
                          "type '" + operand->toString() + "' does not support field selection");
                    return Type::error();
                }
                result = operand->elem;
                break;
            case TypeKind::Dyn:
            case TypeKind::Error:
                result = operand;
                break;
            default:
                error(e.offset,
                      "type '" + operand->toString() + "' does not support field selection");
                return Type::error();
        }
        return e.testOnly ? Type::boolean() : result;
    }

    std::string describe(const std::vector<TypePtr>& args, bool receiver) {
        std::string out;
        size_t first = 0;
        if (receiver) {
            out = args[0]->toString() + ".";
            first = 1;
        }
        out += "(";
        for (size_t i = first; i < args.size(); i++) {
            out += (i > first ? ", " : "") + args[i]->toString();
        }
        return out + ")";
    }

    TypePtr noOverload(const Expr& e, const std::vector<TypePtr>& args, bool receiver) {
        for (const TypePtr& t : args) {
            if (t->kind == TypeKind::Error) {
                return Type::error();
            }
        }
        error(e.offset, "found no matching overload for '" + e.name + "' applied to '" +
                            describe(args, receiver) + "'");
        return Type::error();
    }

    TypePtr call(const Expr& e) {
        std::vector<TypePtr> args;
        bool receiver = e.target != nullptr;
        if (receiver) {
            args.push_back(visit(*e.target));
        }
        for (const ExprPtr& a : e.args) {
            args.push_back(visit(*a));
        }
        if (e.name == "_&&_" || e.name == "_||_") {
            for (const TypePtr& t : args) {
                if (!isDynOrError(t) && t->kind != TypeKind::Bool) {
                    return noOverload(e, args, false);
                }
            }
            return Type::boolean();
        }
        if (e.name == "_?_:_") {
            return conditional(e, args);
        }
        return resolve(e, args, receiver);
    }

    TypePtr conditional(const Expr& e, const std::vector<TypePtr>& args) {
        if (!isDynOrError(args[0]) && args[0]->kind != TypeKind::Bool) {
            return noOverload(e, args, false);
        }
        Bindings bound;
        TypePtr a = Type::param("A");
        if (!assignable(a, args[1], bound) || !assignable(a, args[2], bound)) {
            return noOverload(e, args, false);
        }
        return isDynOrError(args[1]) ? args[2] : args[1];
    }

    TypePtr resolve(const Expr& e, const std::vector<TypePtr>& args, bool receiver) {
        const FunctionRegistry& registry = FunctionRegistry::instance();
        if (!registry.declared(e.name)) {
            error(e.offset, "undeclared reference to '" + e.name + "' (in container '')");
            return Type::error();
        }
        TypePtr result;
        bool ambiguous = false;
        for (const Signature* s : registry.find(e.name, receiver)) {
            if (s->params.size() != args.size()) {
                continue;
            }
            Bindings bound;
            bool ok = true;
            for (size_t i = 0; i < args.size() && ok; i++) {
                ok = assignable(s->params[i], args[i], bound);
            }
            if (!ok) {
                continue;
            }
            TypePtr r = substitute(s->result, bound);
            if (!result) {
                result = r;
            } else if (!sameType(result, r)) {
                ambiguous = true;
            }
        }
        if (!result) {
            return noOverload(e, args, receiver);
        }
        return ambiguous ? Type::dyn() : result;
    }

    TypePtr listLiteral(const Expr& e) {
        TypePtr elem;
        for (const ExprPtr& a : e.args) {
            TypePtr t = visit(*a);
            elem = joinElement(elem, t, *a);
        }
        return Type::list(elem ? elem : Type::dyn());
    }

    // Aggregate literals are homogeneous in kube's environment.
    TypePtr joinElement(const TypePtr& sofar, const TypePtr& t, const Expr& at) {
        if (!sofar || isDynOrError(sofar)) {
            return t;
        }
        Bindings none;
        if (isDynOrError(t) || assignable(sofar, t, none)) {
            return sofar;
        }
        if (sofar->kind == TypeKind::Null && (t->kind == TypeKind::Object)) {
            return t;
        }
        error(at.offset,
              "expected type '" + sofar->toString() + "' but found '" + t->toString() + "'");
        return sofar;
    }

    TypePtr mapLiteral(const Expr& e) {
        TypePtr key;
        TypePtr value;
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
            TypePtr k = visit(*e.args[i]);
            key = joinElement(key, k, *e.args[i]);
            TypePtr v = visit(*e.args[i + 1]);
            value = joinElement(value, v, *e.args[i + 1]);
        }
        return Type::map(key ? key : Type::dyn(), value ? value : Type::dyn());
    }

    TypePtr macro(const Expr& e) {
        TypePtr range = visit(*e.target);
        TypePtr iter;
        switch (range->kind) {
            case TypeKind::List:
                iter = range->elem;
                break;
            case TypeKind::Map:
                iter = range->key;
                break;
            case TypeKind::Dyn:
            case TypeKind::Error:
                iter = range;
                break;
            default:
                error(e.offset, "expression of type '" + range->toString() +
                                    "' cannot be range of a comprehension (must be list, map, or "
                                    "dynamic)");
                iter = Type::error();
        }
        scope_.push_back({e.iterVar, iter});
        std::vector<TypePtr> args;
        for (const ExprPtr& a : e.args) {
            args.push_back(visit(*a));
        }
        scope_.pop_back();
        auto needBool = [&](const TypePtr& t, const char* op, std::vector<TypePtr> shown) {
            if (isDynOrError(t) || t->kind == TypeKind::Bool) {
                return true;
            }
            Expr at;
            at.offset = e.offset;
            at.name = op;
            noOverload(at, shown, false);
            return false;
        };
        TypePtr b = Type::boolean();
        TypePtr i = Type::integer();
        switch (e.macro) {
            case MacroKind::All:
                needBool(args[0], "_&&_", {b, args[0]});
                return b;
            case MacroKind::Exists:
                needBool(args[0], "_||_", {b, args[0]});
                return b;
            case MacroKind::ExistsOne:
                needBool(args[0], "_?_:_", {args[0], i, i});
                return b;
            case MacroKind::Map:
                return Type::list(args[0]);
            case MacroKind::MapFilter: {
                TypePtr l = Type::list(args[1]);
                needBool(args[0], "_?_:_", {args[0], l, l});
                return l;
            }
            case MacroKind::Filter: {
                TypePtr l = Type::list(iter);
                needBool(args[0], "_?_:_", {args[0], l, l});
                return l;
            }
        }
        return Type::error();
    }

    std::vector<Issue>* issues_;
    std::vector<std::pair<std::string, TypePtr>> scope_;
    size_t globals_ = 0;
    CheckedExpr out_;
};

}  // namespace

CheckedExpr check(const Expr& e, const std::vector<Declaration>& variables,
                  std::vector<Issue>* issues) {
    Checker c(variables, issues);
    return c.run(e);
}

}  // namespace kube::cel
