#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "authz/bootstrap.hpp"

// The FlowSchemas and PriorityLevelConfigurations kube-apiserver creates at
// first start and keeps up to date; mirrors
// staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap (default.go) and
// the ensurer of pkg/registry/flowcontrol/ensurer.
namespace kube::flowcontrol {

using authz::BootstrapObject;

inline constexpr const char* kAutoUpdateSpecAnnotation = "apf.kubernetes.io/autoupdate-spec";

// Every object, as stored (apiVersion v1, the annotation "true"): the
// priority levels first (mandatory, then suggested), then the flow schemas.
const std::vector<BootstrapObject>& bootstrapConfiguration();

// The mandatory object of `resource` ("flowschemas",
// "prioritylevelconfigurations") called `name` (exempt, catch-all); null for
// any other.
const BootstrapObject* mandatoryObject(std::string_view resource, std::string_view name);

// What the ensurer does with one stored object (null: missing): create it,
// or bring its spec back to the bootstrap one and set the annotation, as
// kube's strategy ReviseIfNeeded does. Mandatory objects always get their
// spec back; suggested ones only when annotated "true" (or, without a valid
// annotation, while their generation is 1).
authz::Reconciled reconcileObject(const BootstrapObject& o, const util::json::Value* existing);

// Creates and updates every bootstrap object through `stores`.
void ensureBootstrapConfiguration(authz::RbacStores stores,
                                  std::function<void(authz::BootstrapSummary)> done);

}  // namespace kube::flowcontrol
