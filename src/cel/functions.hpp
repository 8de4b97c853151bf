#pragma once

#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cel/type.hpp"
#include "cel/value.hpp"

namespace kube::cel {

// One typed signature of a function, for the checker (cel-go's overload
// declarations). A receiver-style function (`s.contains(x)`) has its
// receiver as the first parameter. Types may use parameters ("A", "B").
struct Signature {
    std::string function;
    bool receiver = false;
    std::vector<TypePtr> params;
    TypePtr result;
};

// A function's implementation for the interpreter: all its overloads of one
// style and arity, choosing by the values' kinds at run time (values typed
// dyn reach it unchecked) and answering Value::noSuchOverload() when none
// fits. args[0] is the receiver of a receiver-style call. Errors in the
// arguments have been propagated before it is called.
using Impl = Value (*)(std::span<const Value> args);

// Every function of the environment: CEL's standard library and kube's
// extension libraries (strings, lists, regex, url) as kube-apiserver 1.26
// declares them.
class FunctionRegistry {
  public:
    static const FunctionRegistry& instance();

    // Every signature of `function` in the given style.
    std::vector<const Signature*> find(std::string_view function, bool receiver) const;
    bool declared(std::string_view function) const;
    Impl impl(std::string_view function, bool receiver, size_t argc) const;

    void add(Signature s);
    void add(std::string function, bool receiver, size_t argc, Impl impl);

  private:
    FunctionRegistry();

    std::vector<Signature> signatures_;
    std::unordered_map<std::string, Impl> impls_;
};

// The libraries, each adding its functions (std_functions.cpp, ...).
void addStandardFunctions(FunctionRegistry& r);
void addTimeFunctions(FunctionRegistry& r);
void addStringsLibrary(FunctionRegistry& r);
void addListsLibrary(FunctionRegistry& r);
void addRegexLibrary(FunctionRegistry& r);
void addUrlLibrary(FunctionRegistry& r);

// string() of a duration ("1.5s", protobuf's JSON form) and a timestamp
// (RFC 3339 in UTC, "2020-01-01T00:00:00Z"), as cel-go writes them.
std::string formatDuration(int64_t nanos);
std::string formatTimestamp(const Value& t);

// Shorthands for the libraries' signature tables.
namespace sig {
inline TypePtr A() {
    static const TypePtr t = Type::param("A");
    return t;
}
inline TypePtr B() {
    static const TypePtr t = Type::param("B");
    return t;
}
inline TypePtr listOf(TypePtr t) {
    return Type::list(std::move(t));
}
}  // namespace sig

}  // namespace kube::cel
