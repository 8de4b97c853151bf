#pragma once

#include <optional>
#include <string>

#include "registry/apply/field_set.hpp"
#include "util/json.hpp"

// The FieldsV1 encoding of a field set, as managedFields entries carry it:
// an object whose keys are serialized path elements ("f:spec",
// `k:{"name":"nginx"}`, `v:"a"`, "i:0"), `{}` for a path that ends there and
// "." for a node that is itself a member and has children. Mirrors
// fieldpath.Set.ToJSON / FromJSON (serialize.go).
namespace kube::registry::apply {

// How deep a fieldsV1 may nest. The sets walk it recursively, and no
// schema's paths come near it; a deeper one fails to decode, and the
// managed fields are then replaced, as kube replaces those it cannot read.
inline constexpr int kMaxFieldsDepth = 1000;

// The FieldsV1 object of `s`, keys in element order as kube writes them.
util::json::Value toFieldsV1(const FieldSet& s, util::json::Allocator& a);
std::string toFieldsV1Json(const FieldSet& s);

// Reads a FieldsV1 object; keys of an unknown kind ("x:...") are skipped as
// kube does. nullopt with `error` set (kube's reason) when a key is not a
// path element or a value is not an object.
std::optional<FieldSet> fromFieldsV1(const util::json::Value& v, std::string* error);

}  // namespace kube::registry::apply
