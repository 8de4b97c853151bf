#pragma once

#include <optional>
#include <string>

#include "registry/apply/field_set.hpp"
#include "registry/apply/type_ref.hpp"
#include "util/json.hpp"

// Schema-driven operations on JSON objects; mirrors smd's typed package
// (tofieldset.go, merge.go, remove.go, TypedValue.Compare). Errors are the
// messages smd gives, prefixed with the path (".spec.containers: duplicate
// entries for key [name=\"a\"]"). Pure functions; any thread may call.
namespace kube::registry::apply {

// The fields `v` sets (TypedValue.ToFieldSet): every scalar, atomic list or
// map, every list item, and every member that is null, an empty object, or
// not a declared field of its struct.
FieldSet toFieldSet(const util::json::Value& v, const TypeRef& t);

// What changed from one object to another (typed.Comparison).
struct Comparison {
    FieldSet removed;
    FieldSet modified;
    FieldSet added;

    bool same() const { return removed.empty() && modified.empty() && added.empty(); }
    // Comparison.ExcludeFields.
    void exclude(const FieldSet& ignored);
};

// TypedValue.Compare of `lhs` (old) and `rhs` (new).
std::optional<std::string> compare(const util::json::Value& lhs, const util::json::Value& rhs,
                                   const TypeRef& t, Comparison& out);

// AsTyped's validation of list items: every item of a list-map has its
// keys, no two items share a key or a set value.
std::optional<std::string> validate(const util::json::Value& v, const TypeRef& t);

// TypedValue.Merge: `rhs` merged into `lhs` following the schema (granular
// maps by key, list-maps by key, sets by value, everything else taken from
// `rhs` whole). Item order: kube's (rhs items in rhs order, lhs-only items
// where they were). Map members: lhs order, then new ones in rhs order.
std::optional<std::string> merge(const util::json::Value& lhs, const util::json::Value& rhs,
                                 const TypeRef& t, util::json::Value& out,
                                 util::json::Allocator& a);

// TypedValue.RemoveItems: a copy of `v` without the paths in `items`.
// A granular map or list left empty becomes null, as smd leaves it.
util::json::Value removeItems(const util::json::Value& v, const FieldSet& items, const TypeRef& t,
                              util::json::Allocator& a);

// Set.EnsureNamedFieldsAreMembers: declared struct fields that only have
// children in `s` become members too.
FieldSet ensureNamedFieldsAreMembers(const FieldSet& s, const TypeRef& t);

}  // namespace kube::registry::apply
