#pragma once

#include "util/json.hpp"

// strategicpatch's merges of lists of scalars (finalizers, a $retainKeys
// list, any list without a merge key), in time linear in the lists and
// with no copy of the items that stay: a 3 MiB list is a few hash lookups
// per item. Equality is Go's == as ScalarIds has it.
namespace kube::registry::patch {

// mergeSlice of two lists whose items are scalars of one Go type other
// than float64 (sliceElementType has checked): deduplicateScalars of both,
// partitioned by presence in `patch`, each part ordered by its list
// (normalizeElementOrder) and the parts interleaved by the live list's
// order. Every such result holds one item per distinct value, the patch's
// in the patch's order and the others in the live list's, so Go's dedup
// steps need not be replayed: which of two equal items survives them
// matters only for floats (-0 and 0), left to the general code.
util::json::Value mergeScalarLists(const util::json::Value& original,
                                   const util::json::Value& patch, util::json::Allocator& a);

// deleteFromSlice, in place: the items of `list` that equal an item of
// `toDelete` removed, the others kept in order.
void deleteScalars(util::json::Value& list, const util::json::Value& toDelete);

}  // namespace kube::registry::patch
