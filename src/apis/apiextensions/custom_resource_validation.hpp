#pragma once

#include <optional>

#include "apis/apiextensions/structural_schema.hpp"
#include "apis/core/field_errors.hpp"
#include "util/json.hpp"

// Validation of a custom resource against its version's schema; mirrors
// what customResourceStrategy.Validate adds to the common metadata checks.
namespace kube::apis::apiextensions {

// The OpenAPI schema validator (kube-openapi validate, with
// apiservervalidation.ValidateCustomResource's field errors: types, formats,
// enum, required, bounds, lengths, patterns, item and property counts,
// allOf/anyOf/oneOf/not, nullable, x-kubernetes-int-or-string), then the
// apiVersion, kind and metadata of x-kubernetes-embedded-resource objects
// (objectmeta.Validate), then the uniqueness of list-type set items and map
// keys (listtype.ValidateListSetsAndMaps). Within an object, fields are
// checked in the object's order (kube's order is Go's random map order).
// The root metadata is not checked here (the store's ObjectMeta checks do).
core::field::Causes validateCustomResource(const StructuralSchema& s, const util::json::Value& obj);

// Mirrors objectmeta.Coerce as kube's decoder runs it on a request: an
// embedded resource's apiVersion or kind that is no string, or metadata that
// does not decode as an ObjectMeta, fails the whole request with a 400
// ("<Kind> in version \"v1\" cannot be handled as a <Kind>: <error>").
// Returns the error text ("spec.template.kind: Invalid value: 1: must be a
// string"), or nullopt.
std::optional<std::string> coerceCustomResource(const StructuralSchema& s,
                                                const util::json::Value& obj);

}  // namespace kube::apis::apiextensions
