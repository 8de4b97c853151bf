#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "openapi/definitions.hpp"
#include "util/json.hpp"

// The OpenAPI schema of a custom resource from its CRD version's
// openAPIV3Schema; mirrors apiextensions-apiserver's
// controller/openapi/builder (buildKubeNative, addEmbeddedProperties) with
// the structural schema's Unfold and, for v2, controller/openapi/v2's
// ToStructuralOpenAPIV2.
namespace kube::openapi {

// "com.example.stable.v1.CronTab": the definition name kube gives a custom
// kind (util.ToRESTFriendlyName of <group>/<version>.<kind>: the group's
// labels reversed).
std::string customDefinitionName(std::string_view group, std::string_view version,
                                 std::string_view kind);

// The pieces of a kind's schema that name other definitions, made by the
// document's Definitions.
struct CustomSchemaParts {
    Flavor flavor = Flavor::V3;
    // The metadata property: a reference to ObjectMeta with a description.
    std::function<util::json::Value()> objectMeta;
    // The apiVersion and kind properties of the kind itself.
    std::function<util::json::Value()> apiVersion;
    std::function<util::json::Value()> kind;
};

// The kind's schema without its x-kubernetes-group-version-kind:
//  - no schema (null), or for v2 one that keeps unknown fields at its root:
//    {"type": "object"}, since kubectl's v2 validation would refuse every
//    field it does not list;
//  - otherwise the structural schema's own keywords (type, format, title,
//    description, default, nullable, the value validations, allOf, anyOf,
//    oneOf, not and the x-kubernetes- extensions; example and other
//    keywords dropped), properties sorted by name, with apiVersion, kind and
//    metadata added at the root and to every x-kubernetes-embedded-resource
//    object (which also requires kind and apiVersion), and for v3 the
//    anyOf of integer and string that x-kubernetes-int-or-string stands
//    for. v2 has no defaults, nullable, allOf, anyOf, oneOf or not; a
//    nullable value, or one that keeps unknown fields, has no type,
//    properties or items there, a nullable property is not required, and
//    embedded objects that keep unknown fields get no added properties.
// The walk recurses per level of the schema; a deep one is walked on a
// stack sized for it (util/deep_stack).
util::json::Value customResourceSchema(const util::json::Value* openAPIV3Schema,
                                       const CustomSchemaParts& parts, util::json::Allocator& a);

}  // namespace kube::openapi
