#pragma once

#include "apis/core/field_errors.hpp"
#include "util/json.hpp"

// Validation of CustomResourceDefinitions; mirrors kube 1.26's
// apiextensions/validation (ValidateCustomResourceDefinition and friends).
//
// kube validates the internal form of a v1 CRD: when every version carries
// the same schema (or subresources, or printer columns), the conversion
// moves it to the top level, so errors name "spec.validation.openAPIV3Schema"
// ("spec.subresources", "spec.additionalPrinterColumns") rather than the
// version's. The webhook's settings are named as the internal type names
// them: "spec.conversion.webhookClientConfig", "...conversionReviewVersions".
namespace kube::apis::apiextensions {

// The metadata checks the store does not make (the name is
// <spec.names.plural>.<spec.group>), the spec, the status and its
// storedVersions, the approval of protected groups and preserveUnknownFields.
core::field::Causes validateCustomResourceDefinition(const util::json::Value& crd);

// Mirrors ValidateCustomResourceDefinitionUpdate: as on create (relaxed
// where the stored CRD was already accepted so), plus what may not change:
// group and plural always, scope and kind once the CRD is Established.
core::field::Causes validateCustomResourceDefinitionUpdate(const util::json::Value& crd,
                                                           const util::json::Value& old);

// Mirrors ValidateUpdateCustomResourceDefinitionStatus (the metadata checks
// are the store's): the accepted names.
core::field::Causes validateCustomResourceDefinitionStatus(const util::json::Value& crd);

}  // namespace kube::apis::apiextensions
