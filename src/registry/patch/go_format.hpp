#pragma once

#include <string>

#include "util/json.hpp"

// How Go prints the generic values (map[string]interface{}, []interface{},
// string, int64, float64, bool, nil) that kube's patch code decodes JSON
// into: its error messages embed them, and clients see those messages. The
// printers walk without recursion, however deep the value.
namespace kube::registry::patch {

// fmt's %v: `map[a:1 b:[x y]]` with keys sorted, strings bare, null as `<nil>`.
std::string goValue(const util::json::Value& v);

// The reflect type name of the value ("map[string]interface {}",
// "[]interface {}", "string", "int64", "float64", "bool"); null prints as
// %s of a nil type does ("%!s(<nil>)").
std::string goTypeName(const util::json::Value& v);

// encoding/json's Marshal of the generic value: compact, object keys sorted,
// <, > and & escaped, floats in Go's shortest form.
std::string goMarshal(const util::json::Value& v);

// Go's == on two decoded scalars: the same type (an integer and a float
// differ) and value; null equals null. Objects and arrays never compare equal
// (Go cannot compare them at all).
bool goEqual(const util::json::Value& a, const util::json::Value& b);

}  // namespace kube::registry::patch
