// kube's lists library (k8s.io/apiserver/pkg/cel/library/lists.go):
// isSorted, sum, min, max, indexOf, lastIndexOf on lists of comparable
// values.
#include "cel/functions.hpp"

namespace kube::cel {

namespace {

using Args = std::span<const Value>;

Value isSorted(Args a) {
    if (a[0].kind() != Kind::List) {
        return Value::noSuchOverload();
    }
    const List& l = a[0].list();
    for (size_t i = 1; i < l.size(); i++) {
        int c = compareValues(l[i - 1], l[i]);
        if (c == 2) {
            return Value::noSuchOverload();
        }
        if (c > 0) {
            return Value::boolean(false);
        }
    }
    return Value::boolean(true);
}

Value sum(Args a) {
    if (a[0].kind() != Kind::List) {
        return Value::noSuchOverload();
    }
    const List& l = a[0].list();
    if (l.empty()) {
        // The zero of the list's type is not known at run time: int's.
        return Value::integer(0);
    }
    Value total = l[0];
    FunctionRegistry const& r = FunctionRegistry::instance();
    Impl add = r.impl("_+_", false, 2);
    for (size_t i = 1; i < l.size(); i++) {
        Value pair[2] = {total, l[i]};
        total = add(std::span<const Value>(pair, 2));
        if (total.isError()) {
            return total;
        }
    }
    return total;
}

template <int Sign>
Value extreme(Args a) {
    if (a[0].kind() != Kind::List) {
        return Value::noSuchOverload();
    }
    const List& l = a[0].list();
    if (l.empty()) {
        return Value::error(std::string(Sign < 0 ? "min" : "max") + " called on empty list");
    }
    const Value* best = &l[0];
    for (size_t i = 1; i < l.size(); i++) {
        int c = compareValues(l[i], *best);
        if (c == 2) {
            return Value::noSuchOverload();
        }
        if (c == Sign) {
            best = &l[i];
        }
    }
    return *best;
}

template <bool Last>
Value listIndexOf(Args a) {
    if (a[0].kind() != Kind::List) {
        return Value::noSuchOverload();
    }
    const List& l = a[0].list();
    for (size_t k = 0; k < l.size(); k++) {
        size_t i = Last ? l.size() - 1 - k : k;
        Value eq = equals(l[i], a[1]);
        if (eq.isError()) {
            return eq;
        }
        if (eq.asBool()) {
            return Value::integer(static_cast<int64_t>(i));
        }
    }
    return Value::integer(-1);
}

}  // namespace

void addListsLibrary(FunctionRegistry& r) {
    using sig::A;
    using sig::listOf;
    TypePtr i = Type::integer();
    TypePtr bo = Type::boolean();
    for (const TypePtr& t : {Type::integer(), Type::uinteger(), Type::dbl(), Type::boolean(),
                             Type::string(), Type::bytes(), Type::duration(), Type::timestamp()}) {
        r.add({"isSorted", true, {listOf(t)}, bo});
        r.add({"min", true, {listOf(t)}, t});
        r.add({"max", true, {listOf(t)}, t});
    }
    for (const TypePtr& t : {Type::integer(), Type::uinteger(), Type::dbl(), Type::duration()}) {
        r.add({"sum", true, {listOf(t)}, t});
    }
    r.add({"indexOf", true, {listOf(A()), A()}, i});
    r.add({"lastIndexOf", true, {listOf(A()), A()}, i});
    r.add("isSorted", true, 1, isSorted);
    r.add("sum", true, 1, sum);
    r.add("min", true, 1, extreme<-1>);
    r.add("max", true, 1, extreme<1>);
    // indexOf/lastIndexOf share their names with the strings library's: the
    // receiver's kind decides.
    r.add("listIndexOf", true, 2, listIndexOf<false>);
    r.add("listLastIndexOf", true, 2, listIndexOf<true>);
}

}  // namespace kube::cel
