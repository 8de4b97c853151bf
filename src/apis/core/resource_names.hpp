#pragma once

#include <string_view>

#include "apis/core/field_errors.hpp"

// What kind of resource a resource name ("cpu", "requests.memory",
// "example.com/gpu") stands for; mirrors pkg/apis/core/helper.
namespace kube::apis::core {

// IsHugePageResourceName: "hugepages-<size>".
bool isHugePageResourceName(std::string_view name);
// IsStandardResourceName: the unprefixed names kube knows.
bool isStandardResourceName(std::string_view name);
// IsStandardQuotaResourceName: the unprefixed names quota tracks.
bool isStandardQuotaResourceName(std::string_view name);
// IsStandardContainerResourceName: cpu, memory, ephemeral-storage, hugepages-*.
bool isStandardContainerResourceName(std::string_view name);
// IsNativeResource: unprefixed, or in the kubernetes.io domain.
bool isNativeResource(std::string_view name);
// IsExtendedResourceName: domain-prefixed outside kubernetes.io, usable in quota.
bool isExtendedResourceName(std::string_view name);
// IsIntegerResourceName: object counts and extended resources.
bool isIntegerResourceName(std::string_view name);
// IsOvercommitAllowed: native resources but huge pages.
bool isOvercommitAllowed(std::string_view name);

// Mirrors validateResourceName: a qualified name, and a standard one when
// it has no domain prefix.
void validateResourceName(std::string_view name, const std::string& path, field::Causes& out);
// Mirrors validateContainerResourceName: validateResourceName, then a name
// containers may request.
void validateContainerResourceName(std::string_view name, const std::string& path,
                                   field::Causes& out);

}  // namespace kube::apis::core
