#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "registry/kind.hpp"
#include "util/json.hpp"

// The kinds a CustomResourceDefinition serves; mirrors what kube's crdHandler
// builds per version in getOrCreateServingInfoFor (customresource.NewStorage
// with its strategy, status and scale storage), as kinds the generic store
// serves.
namespace kube::apis::apiextensions {

// One kind per served version of `crd` (a stored CustomResourceDefinition),
// under the names its status accepted (status.acceptedNames: plural,
// singular, kind, shortNames, categories), in kube's version priority order
// (the preferred version first). None when an accepted plural, singular or
// kind is missing (kube does not serve those), or no version is served.
//
// Every kind keeps objects at the definition's storage version, as JSON
// under /registry/<group>/<plural>/; serves kube's custom resource verbs;
// names are DNS subdomains; metadata.generation starts at 1 and moves with
// any change outside metadata (outside status as well when the version has
// the status subresource, whose writes keep everything but the status);
// the status subresource and the scale subresource at the version's paths
// as its subresources say; the version's printer columns (kube's Name and
// Age without any); KindInfo::custom naming `crd`, the version and its
// schema; and the schema's coercion, pruning, defaulting and validation,
// CEL rules included (custom_resource_schema_hooks.hpp), compiled here once.
std::vector<registry::KindInfo> customResourceKinds(
    std::shared_ptr<const util::json::Document> crd);

// The kind of `crd`'s storage version, served or not (what its custom
// resources are listed and deleted through); none without accepted names.
std::optional<registry::KindInfo> customResourceStorageKind(
    std::shared_ptr<const util::json::Document> crd);

// Kube's version priority (version.CompareKubeAwareVersionStrings): v2 >
// v1 > v1beta2 > v1beta1 > v1alpha1, then names that are no Kubernetes
// version, in alphabetical order. Negative when `a` goes before `b`.
int compareKubeAwareVersions(std::string_view a, std::string_view b);

}  // namespace kube::apis::apiextensions
