#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "registry/patch/error.hpp"
#include "registry/patch/patch_meta.hpp"
#include "util/json.hpp"

namespace kube::registry::patch {

// Applies a strategic merge patch (application/strategic-merge-patch+json)
// to `original` in place; mirrors strategicpatch.StrategicMergeMapPatch as
// kube-apiserver runs it (parallel lists merged, unmatched nulls ignored),
// with its error messages:
//   - objects merge recursively and a null member deletes;
//   - lists whose field has strategy "merge" merge: objects by the field's
//     merge key (`{"$patch": "delete", <key>: ...}` items remove, a
//     `{"$patch": "replace"}` item replaces the list), primitives as a union;
//     `$setElementOrder/<field>` gives the order, else kube's ordering
//     (patch items in patch order, the others where they were);
//     `$deleteFromPrimitiveList/<field>` removes primitives;
//   - other lists, and fields with strategy "replace", are replaced whole;
//   - `{"$patch": "replace"}` / `{"$patch": "delete"}` in an object replace
//     or clear it, and `$retainKeys` keeps only the keys it lists.
// `original` must be an object. On failure `original` is left partly patched.
std::optional<Error> strategicMergePatch(util::json::Value& original,
                                         const util::json::Value& patch, const PatchSchema& schema,
                                         util::json::Allocator& a);

// Decodes `body` as kube's patch handler does (into a Go map; Go's message
// as a 400 otherwise, keys written twice into `strictErrors` when `strict`)
// and applies it to `doc`. `decoded`, when set, receives the patch as
// decoded (kube quotes it in messages about the result).
std::optional<Error> applyStrategicMergePatch(util::json::Document& doc, std::string_view body,
                                              const PatchSchema& schema, bool strict,
                                              std::vector<std::string>* strictErrors,
                                              util::json::Document* decoded);

}  // namespace kube::registry::patch
