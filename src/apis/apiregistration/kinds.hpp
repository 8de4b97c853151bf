#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "registry/kind.hpp"

// The apiregistration.k8s.io/v1 kind served: APIServices, the group/versions the server serves
// as kube-aggregator lists them.
namespace kube::apis::apiregistration {

registry::KindInfo apiServiceKind();

// Where a group/version stands in discovery: kube's apiVersionPriorities for the built-in ones,
// 1000/100 for a custom resource's (kube's crd registration controller).
struct ApiServicePriority {
    int32_t group = 0;
    int32_t version = 0;
};
ApiServicePriority apiServicePriority(std::string_view group, std::string_view version,
                                      bool builtin);

// The label kube-aggregator's autoregister controller puts on the APIServices it keeps, and its
// values: "onstart" (built-in group/versions, kept from start) and "true" (custom resources').
inline constexpr std::string_view kAutomanagedLabel = "kube-aggregator.kubernetes.io/automanaged";

}  // namespace kube::apis::apiregistration
