#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"

// A patch body read as kube-apiserver's patch handler reads it: with
// sigs.k8s.io/json into Go's generic values, which keep the last of keys
// written twice and, when asked (the Strict and Warn field validation
// directives), report them.
namespace kube::registry::patch {

// Keeps only the last value of every key written twice in the objects of
// `v`, and reports each repetition as the strict decoder does (`duplicate
// field "metadata.labels.a"`, array items as "[i]", under `path`) when
// `errors` is set. Linear in the size of `v`, whatever its depth.
void dropDuplicateFields(util::json::Value& v, const std::string& path,
                         std::vector<std::string>* errors);

// Decodes a merge or strategic merge patch into `out` as Go decodes it into
// map[string]interface{}: on failure returns Go's message ("invalid character
// ...", "json: cannot unmarshal array into Go value of type
// map[string]interface {}"). A JSON null leaves `out` null. Duplicated keys
// are resolved as above and reported into `strictErrors` when it is set.
std::optional<std::string> decodePatchMap(std::string_view body, util::json::Document& out,
                                          std::vector<std::string>* strictErrors);

// What a copy of a patch value leaves out.
struct CopyFilter {
    // The null members of objects, at any depth (null array items stay):
    // what a merge patch's nulls become when they are added rather than
    // deleting (jsonpatch's pruneNulls, strategicpatch's
    // discardNullValuesFromPatch).
    bool nulls = false;
    // The objects that carry a $patch directive (strategicpatch's
    // removeDirectives), looked for after the nulls are gone.
    bool directives = false;
};

// A deep copy of `v` into `a` without what `filter` names; nullopt when `v`
// itself is left out. Iterative: any depth copies on a small stack.
std::optional<util::json::Value> copyValue(const util::json::Value& v, util::json::Allocator& a,
                                           CopyFilter filter = {});

// "a.b" for a member of "a", "b" at the top.
std::string childPath(const std::string& path, std::string_view key);

}  // namespace kube::registry::patch
