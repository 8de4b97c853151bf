#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "registry/patch/error.hpp"
#include "util/json.hpp"

namespace kube::registry::patch {

// RFC 7386 JSON merge patch (application/merge-patch+json) as
// evanphx/json-patch's MergePatch applies it: objects merge member by
// member, a null member deletes, anything else replaces; nulls are pruned
// from objects the patch adds.
//
// Merges the object `patch` into `doc` (an object).
void mergePatch(util::json::Value& doc, const util::json::Value& patch, util::json::Allocator& a);

// Decodes `body` as kube's patch handler does and applies it to `doc`. With
// `strict` (Strict and Warn field validation) the body must decode into a Go
// map: otherwise 400 "error decoding patch: <Go's message>"; keys written
// twice go to `strictErrors`. A body that is not JSON, or null, or a scalar,
// is the library's 400 "Invalid JSON Patch"; an array replaces the whole
// document, as the library does.
std::optional<Error> applyMergePatch(util::json::Document& doc, std::string_view body, bool strict,
                                     std::vector<std::string>* strictErrors);

}  // namespace kube::registry::patch
