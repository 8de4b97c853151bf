#pragma once

#include <memory>

#include "apis/apiextensions/structural_schema.hpp"
#include "registry/kind.hpp"
#include "registry/stored_decoding.hpp"

// What a custom resource's version schema does to its objects, as kube's
// crdHandler wires it per version: the decoder's coercion, pruning and
// defaulting (unstructuredSchemaCoercer, structuraldefaulting), the storage
// codec's decoding of stored objects, and the strategy's validation
// (customResourceStrategy.Validate / ValidateUpdate: the OpenAPI schema,
// embedded resources, list types, then the CEL rules).
namespace kube::apis::apiextensions {

// The compiled schemas a version's kind reads stored objects with; each
// compiled once per definition, and shared by the kinds of versions whose
// schemas are the same.
struct StoredSchemas {
    // The storage version's: stored objects are pruned and defaulted with it.
    std::shared_ptr<const StructuralSchema> storage;
    // Objects last written after this revision were written under the
    // current schemas of every served version, all the storage version's
    // (so a write left them as a read would); the definition's revision.
    // Otherwise no object is taken to be.
    storage::Revision settledAfter = std::numeric_limits<storage::Revision>::max();
};

// Sets the kind's decodeCustom, defaults, validate, validateUpdate and
// validateStatusUpdate from `schema`, the compiled openAPIV3Schema of
// `kind.custom`'s version (null: the version has none, keeps every field it
// is sent and is not validated beyond its metadata), compiling its CEL rules
// once; and keeps `schema` and `stored` with the kind for
// structuralSchemaOf and storedDecodingOf.
void installSchemaHooks(registry::KindInfo& kind, std::shared_ptr<const StructuralSchema> schema,
                        StoredSchemas stored);

// The compiled structural schema of a custom resource's version, as
// installSchemaHooks keeps it (the one copy, which server-side apply types
// its fields with too); null for other kinds.
std::shared_ptr<const StructuralSchema> structuralSchemaOf(const registry::KindInfo& kind);

// What reads make of the kind's stored objects: pruned (unknown fields) and
// defaulted with the storage version's schema, then pruned with the version
// served when its schema is another; null for other kinds.
std::shared_ptr<const registry::StoredDecoding> storedDecodingOf(const registry::KindInfo& kind);

}  // namespace kube::apis::apiextensions
