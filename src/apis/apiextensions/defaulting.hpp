#pragma once

#include "apis/apiextensions/structural_schema.hpp"
#include "util/json.hpp"

// Defaulting of custom resources (apiserver/schema/defaulting), as kube's
// decoder applies it to every custom resource it reads, after pruning.
namespace kube::apis::apiextensions {

// Mirrors structuraldefaulting.Default with the defaults pruned as
// PruneDefaults prunes them: an absent field with a default gets a copy of
// it, and so does a null the schema does not allow (nullable: false); the
// walk goes on into what was defaulted, list items and additionalProperties
// values (a null item or value takes its schema's default). Values are
// copied with `a`.
void defaultCustomResource(const StructuralSchema& s, util::json::Value& obj,
                           util::json::Allocator& a);

}  // namespace kube::apis::apiextensions
