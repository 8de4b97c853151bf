#pragma once

#include "registry/kind.hpp"

// What a custom resource's version schema does to its objects, as kube's
// crdHandler wires it per version: the decoder's coercion, pruning and
// defaulting (unstructuredSchemaCoercer, structuraldefaulting) and the
// strategy's validation (customResourceStrategy.Validate / ValidateUpdate:
// the OpenAPI schema, embedded resources, list types, then the CEL rules).
namespace kube::apis::apiextensions {

// Compiles `kind.custom`'s openAPIV3Schema once (structural schema and CEL
// rules) and sets the kind's decodeCustom, defaults, validate,
// validateUpdate and validateStatusUpdate from it. A version without a
// schema keeps every field it is sent and is not validated beyond its
// metadata.
void installSchemaHooks(registry::KindInfo& kind);

}  // namespace kube::apis::apiextensions
