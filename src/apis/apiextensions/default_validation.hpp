#pragma once

#include <string>

#include "apis/core/field_errors.hpp"
#include "util/json.hpp"

// The defaults of a CRD's schema, checked when the CRD is written; mirrors
// apiserver/schema/defaulting.ValidateDefaults.
namespace kube::apis::apiextensions {

// Every `default` of the structural schema at `path`
// ("spec.validation.openAPIV3Schema") must validate against its own schema
// ("<path>.properties[spec].default.replicas: Invalid value: \"string\":
// replicas in body must be of type integer: \"string\""), hold valid
// apiVersion, kind and metadata where it is an embedded resource, result in
// valid metadata where it lies in apiVersion, kind or metadata, and, with
// `requirePrunedDefaults`, be pruned already ("must not have unknown
// fields"). Defaults are visited node, items, then properties by name.
void validateDefaults(const util::json::Value& schema, const std::string& path,
                      bool requirePrunedDefaults, core::field::Causes& out);

// Mirrors schemaHasUnprunedDefaults: some default of `schema` would lose a
// field to pruning (an update keeps accepting such a stored CRD's defaults).
bool schemaHasUnprunedDefaults(const util::json::Value& schema);

}  // namespace kube::apis::apiextensions
