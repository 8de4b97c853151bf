#include "cel/interpreter.hpp"

#include <cmath>

#include "cel/cost.hpp"
#include "cel/functions.hpp"

namespace kube::cel {

namespace {

uint64_t sizeOf(const Value& v) {
    switch (v.kind()) {
        case Kind::String:
        case Kind::Bytes:
            return v.str().size();
        case Kind::List:
            return v.list().size();
        case Kind::Map:
            return v.map().size();
        default:
            return 0;
    }
}

// The cost of a call with these arguments (cost.hpp's model, on the
// actual sizes).
uint64_t actualCallCost(const std::string& function, bool receiver, std::span<const Value> args) {
    std::vector<uint64_t> sizes;
    sizes.reserve(args.size());
    for (const Value& a : args) {
        sizes.push_back(sizeOf(a));
    }
    if (function == "@in" && args.size() == 2 && args[1].kind() == Kind::Map) {
        sizes[1] = 1;
    }
    uint64_t elementSize = 0;
    if (receiver && args[0].kind() == Kind::List) {
        elementSize = 1;
        for (const Value& item : args[0].list()) {
            elementSize = std::max(elementSize, sizeOf(item));
        }
    }
    return callCost(function, sizes, elementSize);
}

class Interpreter {
  public:
    Interpreter(const std::vector<std::pair<std::string, Value>>& variables, uint64_t limit)
        : limit_(limit) {
        for (const auto& [name, value] : variables) {
            scope_.push_back({name, &value});
        }
    }

    EvalOutcome run(const Expr& e) {
        Value v = eval(e);
        if (cancelled_) {
            v = Value::error(kCostLimitExceeded);
        }
        return {std::move(v), cost_};
    }

  private:
    // Adds to the cost; false once the limit is passed.
    bool spend(uint64_t units) {
        cost_ += units;
        if (cost_ > limit_) {
            cancelled_ = true;
        }
        return !cancelled_;
    }

    Value eval(const Expr& e) {
        if (cancelled_) {
            return Value();
        }
        switch (e.kind) {
            case ExprKind::Literal:
                return e.value;
            case ExprKind::Ident:
                spend(1);
                return ident(e);
            case ExprKind::Select:
                return select(e);
            case ExprKind::Call:
                return call(e);
            case ExprKind::List: {
                spend(10);
                List items;
                items.reserve(e.args.size());
                for (const ExprPtr& a : e.args) {
                    Value v = eval(*a);
                    if (v.isError() || cancelled_) {
                        return v;
                    }
                    items.push_back(std::move(v));
                }
                return Value::list(std::move(items));
            }
            case ExprKind::Map:
                return mapLiteral(e);
            case ExprKind::Macro:
                return macro(e);
        }
        return Value::noSuchOverload();
    }

    Value ident(const Expr& e) {
        for (size_t i = scope_.size(); i-- > 0;) {
            if (scope_[i].first == e.name) {
                return *scope_[i].second;
            }
        }
        // The checker let it through: a type name.
        return Value::type(e.name == "null_type" ? "null_type" : e.name);
    }

    Value select(const Expr& e) {
        Value operand = eval(*e.target);
        spend(1);
        if (operand.isError() || cancelled_) {
            return operand;
        }
        if (operand.kind() != Kind::Map) {
            return Value::noSuchOverload();
        }
        const Value* v = operand.map().find(Value::string(e.name));
        if (e.testOnly) {
            return Value::boolean(v != nullptr);
        }
        if (v == nullptr) {
            return Value::error("no such key: " + e.name);
        }
        return *v;
    }

    Value mapLiteral(const Expr& e) {
        spend(30);
        MapData m;
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
            Value k = eval(*e.args[i]);
            if (k.isError() || cancelled_) {
                return k;
            }
            Value v = eval(*e.args[i + 1]);
            if (v.isError() || cancelled_) {
                return v;
            }
            if (k.kind() != Kind::String && k.kind() != Kind::Int && k.kind() != Kind::Uint &&
                k.kind() != Kind::Bool) {
                return Value::error("unsupported key type");
            }
            if (!m.insert(k, std::move(v))) {
                return Value::error("Failed with repeated key");
            }
        }
        return Value::map(std::move(m));
    }

    // && and || are commutative over errors: false && error is false,
    // true || error is true, whichever side the error is on.
    Value logical(const Expr& e, bool isAnd) {
        Value left = eval(*e.args[0]);
        if (cancelled_) {
            return left;
        }
        if (left.kind() == Kind::Bool && left.asBool() != isAnd) {
            return left;
        }
        Value right = eval(*e.args[1]);
        if (cancelled_) {
            return right;
        }
        if (right.kind() == Kind::Bool && right.asBool() != isAnd) {
            return right;
        }
        if (left.kind() == Kind::Bool && right.kind() == Kind::Bool) {
            return left;
        }
        if (left.isError()) {
            return left;
        }
        if (right.isError()) {
            return right;
        }
        return Value::noSuchOverload();
    }

    Value call(const Expr& e) {
        if (e.name == "_&&_" || e.name == "_||_") {
            return logical(e, e.name == "_&&_");
        }
        if (e.name == "_?_:_") {
            Value cond = eval(*e.args[0]);
            if (cond.isError() || cancelled_) {
                return cond;
            }
            if (cond.kind() != Kind::Bool) {
                return Value::noSuchOverload();
            }
            return eval(*e.args[cond.asBool() ? 1 : 2]);
        }
        std::vector<Value> args;
        args.reserve(e.args.size() + 1);
        if (e.target) {
            args.push_back(eval(*e.target));
            if (args.back().isError() || cancelled_) {
                return args.back();
            }
        }
        for (const ExprPtr& a : e.args) {
            args.push_back(eval(*a));
            if (args.back().isError() || cancelled_) {
                return args.back();
            }
        }
        if (!spend(actualCallCost(e.name, e.target != nullptr, args))) {
            return Value();
        }
        Impl impl = FunctionRegistry::instance().impl(e.name, e.target != nullptr, args.size());
        if (impl == nullptr) {
            return Value::noSuchOverload();
        }
        Value out = impl(args);
        // What a function builds costs as much as the text or items it made.
        if (out.kind() == Kind::String || out.kind() == Kind::Bytes) {
            spend(out.str().size() / 10);
        } else if (out.kind() == Kind::List) {
            spend(out.list().size() / 10);
        }
        return out;
    }

    Value macro(const Expr& e) {
        Value range = eval(*e.target);
        if (range.isError() || cancelled_) {
            return range;
        }
        std::vector<Value> keys;
        const List* items = nullptr;
        if (range.kind() == Kind::List) {
            items = &range.list();
        } else if (range.kind() == Kind::Map) {
            keys.reserve(range.map().size());
            for (const auto& [k, v] : range.map().entries) {
                keys.push_back(k);
            }
            items = &keys;
        } else {
            return Value::noSuchOverload();
        }
        scope_.push_back({e.iterVar, nullptr});
        Value result = loop(e, *items);
        scope_.pop_back();
        return result;
    }

    Value loop(const Expr& e, const List& items) {
        size_t slot = scope_.size() - 1;
        Value error;
        bool sawError = false;
        int64_t count = 0;
        List out;
        uint64_t perItem = iterationCost(e.macro);
        if (!spend(comprehensionCost(e.macro))) {
            return Value();
        }
        for (const Value& item : items) {
            if (!spend(perItem)) {
                return Value();
            }
            scope_[slot].second = &item;
            Value v = eval(*e.args[0]);
            if (cancelled_) {
                return v;
            }
            switch (e.macro) {
                case MacroKind::All:
                case MacroKind::Exists: {
                    bool stop = e.macro == MacroKind::Exists;
                    if (v.kind() == Kind::Bool) {
                        if (v.asBool() == stop) {
                            return v;
                        }
                    } else if (!sawError) {
                        sawError = true;
                        error = v.isError() ? v : Value::noSuchOverload();
                    }
                    break;
                }
                case MacroKind::ExistsOne:
                    if (v.isError()) {
                        return v;
                    }
                    if (v.kind() != Kind::Bool) {
                        return Value::noSuchOverload();
                    }
                    count += v.asBool();
                    break;
                case MacroKind::Map:
                    if (v.isError()) {
                        return v;
                    }
                    out.push_back(std::move(v));
                    break;
                case MacroKind::Filter:
                case MacroKind::MapFilter: {
                    if (v.isError()) {
                        return v;
                    }
                    if (v.kind() != Kind::Bool) {
                        return Value::noSuchOverload();
                    }
                    if (!v.asBool()) {
                        break;
                    }
                    if (e.macro == MacroKind::Filter) {
                        out.push_back(item);
                        break;
                    }
                    Value t = eval(*e.args[1]);
                    if (t.isError() || cancelled_) {
                        return t;
                    }
                    out.push_back(std::move(t));
                    break;
                }
            }
        }
        switch (e.macro) {
            case MacroKind::All:
                return sawError ? error : Value::boolean(true);
            case MacroKind::Exists:
                return sawError ? error : Value::boolean(false);
            case MacroKind::ExistsOne:
                return Value::boolean(count == 1);
            default:
                return Value::list(std::move(out));
        }
    }

    uint64_t limit_;
    uint64_t cost_ = 0;
    bool cancelled_ = false;
    std::vector<std::pair<std::string_view, const Value*>> scope_;
};

}  // namespace

EvalOutcome interpret(const Expr& e, const std::vector<std::pair<std::string, Value>>& variables,
                      uint64_t costLimit) {
    Interpreter in(variables, costLimit);
    return in.run(e);
}

}  // namespace kube::cel
