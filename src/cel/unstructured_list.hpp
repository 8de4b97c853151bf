#pragma once

#include "cel/value.hpp"

// Lists of the object whose schema gives them x-kubernetes-list-type set or
// map (mirrors kube's unstructuredSetList and unstructuredMapList): they
// compare without regard to order, and `+` merges instead of appending.
namespace kube::cel {

// Whether `list` is a set or map list of the object.
bool isUnorderedList(const Value& list);

// a == b where a is a set list (same size, each of b's items in a) or a map
// list (same size, each of b's items equal to a's item of the same keys).
Value equalUnorderedList(const Value& a, const Value& b);

// a + b where a is a set list (a's items, then b's items a lacks) or a map
// list (a's items, each replaced by b's item of the same keys, then b's
// items of keys a lacks). The result keeps a's list type.
Value addUnorderedList(const Value& a, const Value& b);

}  // namespace kube::cel
