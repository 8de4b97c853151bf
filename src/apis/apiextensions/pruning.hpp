#pragma once

#include <string>
#include <vector>

#include "apis/apiextensions/structural_schema.hpp"
#include "util/json.hpp"

// Pruning of custom resources (apiserver/schema/pruning), as kube's decoder
// applies it to every custom resource it reads from a request or storage
// (crdhandler's unstructuredSchemaCoercer).
namespace kube::apis::apiextensions {

// Removes the fields the schema does not specify: unknown fields (mirrors
// structuralpruning.PruneWithOptions; the root's apiVersion, kind and
// metadata and those of x-kubernetes-embedded-resource objects are kept,
// x-kubernetes-preserve-unknown-fields keeps what is below it), then nulls
// that the schema does not allow and cannot default
// (PruneNonNullableNullsWithoutDefaults), then the unknown fields of
// embedded resources' metadata, which kube drops by decoding it as an
// ObjectMeta. Returns the paths of the unknown fields as fieldValidation
// reports them (`unknown field "<path>"`): "spec.foo", "spec.items[0].bar",
// the pruned ones sorted, then the embedded metadata's.
std::vector<std::string> pruneCustomResource(const StructuralSchema& s, util::json::Value& obj);

}  // namespace kube::apis::apiextensions
