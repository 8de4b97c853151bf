#include "cel/cost.hpp"

#include <cstdio>
#include <limits>
#include <optional>

namespace kube::cel {

namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

uint64_t addSat(uint64_t a, uint64_t b) {
    return a > kMax - b ? kMax : a + b;
}

uint64_t mulSat(uint64_t a, uint64_t b) {
    if (a != 0 && b > kMax / a) {
        return kMax;
    }
    return a * b;
}

// A tenth, rounded up.
uint64_t tenth(uint64_t units) {
    return units / 10 + (units % 10 != 0);
}

bool isAny(std::string_view f, std::initializer_list<std::string_view> names) {
    for (std::string_view n : names) {
        if (f == n) {
            return true;
        }
    }
    return false;
}

// A quarter, rounded up (cel-go's RegexStringLengthCostFactor).
uint64_t quarter(uint64_t units) {
    return units / 4 + (units % 4 != 0);
}

}  // namespace

uint64_t callCost(std::string_view f, std::span<const uint64_t> s, uint64_t elementSize) {
    auto at = [&](size_t i) -> uint64_t { return i < s.size() ? s[i] : 0; };
    if (isAny(f, {"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"})) {
        return addSat(1, tenth(std::min(at(0), at(1))));
    }
    if (f == "_+_") {
        return addSat(1, tenth(addSat(at(0), at(1))));
    }
    if (isAny(f, {"startsWith", "endsWith"})) {
        // cel-go: a tenth of the prefix or suffix.
        return tenth(at(1));
    }
    if (f == "replace" && elementSize == 0) {
        // The search, and what it writes: up to one replacement per
        // character (an empty old string matches everywhere).
        return addSat(addSat(1, tenth(mulSat(at(0), std::max<uint64_t>(1, at(1))))),
                      tenth(mulSat(addSat(at(0), 1), at(2))));
    }
    if (f == "join") {
        return addSat(1, mulSat(at(0), addSat(addSat(1, tenth(elementSize)), tenth(at(1)))));
    }
    if (f == "contains" && elementSize == 0) {
        // cel-go: a tenth of the string times a tenth of the substring.
        return mulSat(tenth(at(0)), tenth(at(1)));
    }
    if (isAny(f, {"matches", "find", "findAll"})) {
        // cel-go and kube's regex library: a tenth of the string (one more
        // for matches) times a quarter of the pattern's length.
        uint64_t text = f == "matches" ? addSat(at(0), 1) : at(0);
        return mulSat(tenth(text), quarter(at(1)));
    }
    if (isAny(f, {"split", "indexOf", "lastIndexOf"}) && elementSize == 0) {
        return addSat(1, tenth(mulSat(at(0), std::max<uint64_t>(1, at(1)))));
    }
    if (isAny(f, {"isSorted", "sum", "min", "max", "join", "indexOf", "lastIndexOf"})) {
        // Each item visited and compared.
        return addSat(1, mulSat(at(0), addSat(1, tenth(elementSize))));
    }
    if (f == "@in") {
        // cel-go: one per item of a list; a map's lookup is a call (its
        // callers pass a size of 1 for a map).
        return std::max<uint64_t>(1, at(1));
    }
    if (isAny(f, {"lowerAscii", "upperAscii", "trim", "substring", "charAt", "string", "bytes",
                  "int", "uint", "double"})) {
        return addSat(1, tenth(at(0)));
    }
    return 1;
}

uint64_t iterationCost(MacroKind macro) {
    switch (macro) {
        case MacroKind::All:
        case MacroKind::Exists:
            return 3;
        case MacroKind::ExistsOne:
            // No early exit to test; the count's step costs 2.
            return 2;
        case MacroKind::Map:
        case MacroKind::MapFilter:
            return 12;
        case MacroKind::Filter:
            return 13;
    }
    return 3;
}

uint64_t comprehensionCost(MacroKind macro) {
    switch (macro) {
        case MacroKind::All:
        case MacroKind::Exists:
            return 1;
        case MacroKind::ExistsOne:
            return 2;
        case MacroKind::Map:
        case MacroKind::MapFilter:
        case MacroKind::Filter:
            return 11;
    }
    return 1;
}

namespace {

// What the estimator knows of a value: the most it can cost to compute, and
// its largest size.
struct Estimate {
    uint64_t cost = 0;
    uint64_t size = 0;
};

class Estimator {
  public:
    Estimator(const CheckedExpr& checked, const Type* selfType)
        : checked_(checked), selfType_(selfType) {}

    Estimate visit(const Expr& e) {
        switch (e.kind) {
            case ExprKind::Literal:
                return {0, literalSize(e.value)};
            case ExprKind::Ident:
                return {1, typeSize(e)};
            case ExprKind::Select: {
                // cel-go as kube 1.26 has it estimates a presence test at
                // nothing, its operand included.
                if (e.testOnly) {
                    return {0, 0};
                }
                Estimate operand = visit(*e.target);
                return {addSat(operand.cost, 1), typeSize(e)};
            }
            case ExprKind::List: {
                Estimate out{10, e.args.size()};
                for (const ExprPtr& a : e.args) {
                    out.cost = addSat(out.cost, visit(*a).cost);
                }
                return out;
            }
            case ExprKind::Map: {
                Estimate out{30, e.args.size() / 2};
                for (const ExprPtr& a : e.args) {
                    out.cost = addSat(out.cost, visit(*a).cost);
                }
                return out;
            }
            case ExprKind::Call:
                return call(e);
            case ExprKind::Macro:
                return macro(e);
        }
        return {};
    }

  private:
    static uint64_t literalSize(const Value& v) {
        if (v.kind() == Kind::String || v.kind() == Kind::Bytes) {
            return v.str().size();
        }
        return 0;
    }

    const Type* typeOf(const Expr& e) const {
        auto it = checked_.types.find(&e);
        return it == checked_.types.end() ? nullptr : it->second.get();
    }

    // The schema's bound of a value of this type. Computed values have no
    // bound: their size is unknown (cel-go's estimate then saturates, which
    // kube reports as "more than 100x").
    static uint64_t sizeOfType(const Type* t) {
        if (t == nullptr) {
            return 0;
        }
        switch (t->kind) {
            case TypeKind::String:
            case TypeKind::Bytes:
            case TypeKind::List:
            case TypeKind::Map:
                return t->maxElements >= 0 ? static_cast<uint64_t>(t->maxElements) : kMax;
            case TypeKind::Dyn:
                // x-kubernetes-int-or-string carries kube's bound.
                return t->maxElements >= 0 ? static_cast<uint64_t>(t->maxElements) : kMax;
            case TypeKind::Object:
                return 0;
            default:
                return 0;
        }
    }

    uint64_t typeSize(const Expr& e) const { return sizeOfType(typeOf(e)); }

    static bool isUntyped(const Type* t) { return t->kind == TypeKind::Dyn && t->maxElements < 0; }

    // The size cel-go compares by: scalars 1; strings, bytes, lists and
    // maps their bound; objects 0 (kube's object types have no bound); a
    // type name (int, string) the size of `self` (kube's size estimator
    // reads any one-step path as self's); what a call computes, unknown.
    uint64_t comparisonSize(const Expr& a, uint64_t estimated) const {
        const Type* t = typeOf(a);
        if (t == nullptr) {
            return kMax;
        }
        switch (t->kind) {
            case TypeKind::Int:
            case TypeKind::Uint:
            case TypeKind::Double:
            case TypeKind::Bool:
            case TypeKind::Duration:
            case TypeKind::Timestamp:
                return 1;
            case TypeKind::Object:
                return 0;
            case TypeKind::Type:
                if (a.kind == ExprKind::Ident) {
                    return selfType_ == nullptr || isUntyped(selfType_) ? 0 : sizeOfType(selfType_);
                }
                return kMax;
            case TypeKind::Dyn:
                // A value the schema does not type (kube gives rules no access
                // to those): compared as a scalar.
                return isUntyped(t) ? 0 : estimated;
            case TypeKind::Null:
                return 0;
            default:
                return estimated;
        }
    }

    Estimate call(const Expr& e) {
        std::vector<const Expr*> args;
        if (e.target) {
            args.push_back(e.target.get());
        }
        for (const ExprPtr& a : e.args) {
            args.push_back(a.get());
        }
        std::vector<Estimate> est;
        for (const Expr* a : args) {
            est.push_back(visit(*a));
        }
        if (e.name == "_?_:_") {
            return {addSat(est[0].cost, std::max(est[1].cost, est[2].cost)),
                    std::max(est[1].size, est[2].size)};
        }
        uint64_t cost = 0;
        std::vector<uint64_t> sizes;
        for (const Estimate& x : est) {
            cost = addSat(cost, x.cost);
            sizes.push_back(x.size);
        }
        if (e.name == "_&&_" || e.name == "_||_") {
            return {cost, 0};
        }
        if (e.name == "_==_" || e.name == "_!=_" || e.name == "_<_" || e.name == "_<=_" ||
            e.name == "_>_" || e.name == "_>=_") {
            for (size_t i = 0; i < args.size(); i++) {
                sizes[i] = comparisonSize(*args[i], sizes[i]);
            }
            return {addSat(cost, tenth(std::min(sizes[0], sizes[1]))), 0};
        }
        if (e.name == "@in" && args.size() == 2) {
            const Type* container = typeOf(*args[1]);
            if (container != nullptr && container->kind == TypeKind::Map) {
                sizes[1] = 1;
            }
        }
        uint64_t elementSize = 0;
        const Type* receiver = args.empty() ? nullptr : typeOf(*args[0]);
        if (receiver != nullptr && receiver->kind == TypeKind::List && receiver->elem) {
            elementSize = std::max<uint64_t>(1, sizeOfType(receiver->elem.get()));
        }
        if (std::optional<Estimate> lib = libraryEstimate(e, sizes, receiver)) {
            return {addSat(cost, lib->cost), lib->size};
        }
        cost = addSat(cost, callCost(e.name, sizes, elementSize));
        return {cost, resultSize(e, sizes, receiver)};
    }

    // kube 1.26's library estimates of the string and list functions
    // (library.CostEstimator.EstimateCallCost): what the call costs beyond
    // its arguments, and the largest result. The runtime keeps its own,
    // stricter counts (cost.hpp's callCost).
    std::optional<Estimate> libraryEstimate(const Expr& e, const std::vector<uint64_t>& sizes,
                                            const Type* receiver) const {
        const std::string& f = e.name;
        auto at = [&](size_t i) -> uint64_t { return i < sizes.size() ? sizes[i] : 0; };
        bool onList = receiver != nullptr && receiver->kind == TypeKind::List && receiver->elem;
        if (!e.target) {
            if (f == "url" && sizes.size() == 1) {
                return Estimate{tenth(at(0)), 0};
            }
            if (f == "isURL") {
                return Estimate{1, 0};
            }
            return std::nullopt;
        }
        if (onList && isAny(f, {"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"})) {
            // One per item, plus a tenth of each string item.
            const Type* elem = receiver->elem.get();
            uint64_t perItem = 1;
            if (elem->kind == TypeKind::String || elem->kind == TypeKind::Bytes) {
                perItem = addSat(1, tenth(sizeOfType(elem)));
            }
            return Estimate{mulSat(at(0), perItem), 0};
        }
        if (onList && f == "join") {
            uint64_t chars = mulSat(at(0), sizeOfType(receiver->elem.get()));
            if (sizes.size() > 1) {
                chars = addSat(chars, mulSat(at(1), at(0) > 0 ? at(0) - 1 : 0));
            }
            return Estimate{tenth(chars), chars};
        }
        if (onList) {
            return std::nullopt;
        }
        if (isAny(f, {"indexOf", "lastIndexOf"})) {
            return Estimate{tenth(at(0)), 0};
        }
        if (isAny(f, {"lowerAscii", "upperAscii", "substring", "trim"})) {
            return Estimate{tenth(at(0)), at(0)};
        }
        if (f == "replace" && sizes.size() >= 3) {
            // Largest: every (shortest) match replaced by the longest
            // replacement (cel-go's division by an empty match: unbounded).
            uint64_t largest = at(1) == 0 ? kMax : mulSat((at(0) + at(1) - 1) / at(1), at(2));
            return Estimate{tenth(mulSat(at(0), 2)), largest};
        }
        if (f == "split") {
            return Estimate{tenth(mulSat(at(0), 2)), at(0)};
        }
        if (isAny(f, {"find", "findAll"}) && sizes.size() >= 2) {
            return Estimate{mulSat(tenth(addSat(at(0), 1)), quarter(at(1))), at(0)};
        }
        return std::nullopt;
    }

    // The largest result of a call, where kube's library knows it.
    uint64_t resultSize(const Expr& e, const std::vector<uint64_t>& sizes,
                        const Type* receiver) const {
        const std::string& f = e.name;
        if (f == "_+_") {
            return addSat(sizes[0], sizes[1]);
        }
        if (f == "_[_]" && receiver != nullptr && receiver->elem) {
            return sizeOfType(receiver->elem.get());
        }
        if (e.target &&
            (f == "split" || f == "findAll" || f == "lowerAscii" || f == "upperAscii" ||
             f == "trim" || f == "substring" || f == "charAt" || f == "replace" || f == "find")) {
            return sizes[0];
        }
        const Type* t = typeOf(e);
        if (t != nullptr &&
            (t->kind == TypeKind::String || t->kind == TypeKind::Bytes ||
             t->kind == TypeKind::List || t->kind == TypeKind::Map || t->kind == TypeKind::Dyn)) {
            return kMax;
        }
        return 0;
    }

    Estimate macro(const Expr& e) {
        Estimate range = visit(*e.target);
        uint64_t perItem = iterationCost(e.macro);
        for (const ExprPtr& a : e.args) {
            perItem = addSat(perItem, visit(*a).cost);
        }
        // cel-go knows no size for what a comprehension builds.
        bool builds = e.macro == MacroKind::Map || e.macro == MacroKind::MapFilter ||
                      e.macro == MacroKind::Filter;
        uint64_t once = addSat(range.cost, comprehensionCost(e.macro));
        return {addSat(once, mulSat(range.size, perItem)), builds ? kMax : 0};
    }

    const CheckedExpr& checked_;
    const Type* selfType_;
};

}  // namespace

uint64_t estimateMaxCost(const Expr& e, const CheckedExpr& checked, const Type* selfType) {
    Estimator est(checked, selfType);
    return est.visit(e).cost;
}

std::string costErrorMessage(std::string_view costName, uint64_t cost, uint64_t limit) {
    double factor = static_cast<double>(cost) / static_cast<double>(limit);
    char text[64];
    if (factor > 100.0) {
        std::snprintf(text, sizeof text, "more than 100x");
    } else if (factor < 1.5) {
        std::snprintf(text, sizeof text, "%fx", factor);
    } else {
        std::snprintf(text, sizeof text, "%.1fx", factor);
    }
    return std::string(costName) + " exceeds budget by factor of " + text +
           " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where "
           "arrays, maps, and strings are declared)";
}

}  // namespace kube::cel
