#pragma once

#include <string>

#include "apis/core/field_errors.hpp"
#include "util/json.hpp"

// The checks of a CustomResourceDefinition's OpenAPI v3 schema: kube's
// structural-schema invariants (apiserver/schema ValidateStructural) and the
// OpenAPI rules of apiextensions validation
// (ValidateCustomResourceDefinitionOpenAPISchema).
namespace kube::apis::apiextensions {

// What the caller's context allows; mirrors the parts of kube's
// ValidationOptions a schema check reads.
struct SchemaOptions {
    // The status subresource is on for the version(s) the schema serves: the
    // root may only hold some fields, and must be of type object.
    bool statusEnabled = false;
    // Only the OpenAPI v3 types are allowed (false on an update of a CRD that
    // already had others).
    bool requireValidPropertyType = true;
    // Defaults must already be pruned ("must not have unknown fields");
    // kube relaxes this on an update of a CRD that already had unpruned ones.
    bool requirePrunedDefaults = true;
};

// Mirrors ValidateCustomResourceDefinitionValidation for the schema at
// `path` ("spec.validation.openAPIV3Schema" or
// "spec.versions[0].schema.openAPIV3Schema"): the root rules, then the
// structural invariants (sorted, as kube sorts them), the defaults when the
// schema is structural (default_validation.hpp), then the OpenAPI rules
// node by node (properties in name order: kube visits them in Go's random map
// order).
void validateSchema(const util::json::Value& schema, const std::string& path,
                    const SchemaOptions& opts, core::field::Causes& out);

// Whether some node of the schema sets `default`.
bool schemaHasDefaults(const util::json::Value& schema);

// Whether the schema uses only the OpenAPI v3 types (or none) everywhere.
bool schemaHasValidTypes(const util::json::Value& schema);

}  // namespace kube::apis::apiextensions
