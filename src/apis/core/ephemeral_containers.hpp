#pragma once

#include <vector>

#include "apis/meta/status.hpp"
#include "util/json.hpp"

// The pods/ephemeralcontainers strategy: only spec.ephemeralContainers of a
// pod changes, and only by additions.
namespace kube::apis::core {

namespace json = util::json;

// Mirrors dropNonEphemeralContainerUpdates: the stored pod `old`, with the
// name, namespace, uid, resourceVersion and spec.ephemeralContainers of
// `next`, replaces `next`.
void keepOnlyEphemeralContainers(json::Document& next, const json::Value& old);

// Mirrors ValidatePodEphemeralContainersUpdate for a defaulted pod: every
// ephemeral container named, with an image, a name no other container of
// the pod has, a target that is one of the pod's containers, and none of
// the fields an ephemeral container may not set; the ones already there
// neither removed nor changed.
std::vector<meta::StatusCause> validateEphemeralContainersUpdate(const json::Value& pod,
                                                                 const json::Value& old);

}  // namespace kube::apis::core
