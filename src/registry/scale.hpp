#pragma once

#include <optional>
#include <string_view>

#include "apis/meta/status.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"

// The scale subresource (deployments/<name>/scale, and custom resources'
// with subresources.scale): an autoscaling/v1 Scale read from the parent and
// written back into it, at the places its SubresourceInfo::scale names. The
// replicated kinds keep their count at spec.replicas, their observed count at
// status.replicas and their pod selector (a metav1.LabelSelector) at
// spec.selector; a custom resource where its definition says, its selector a
// string already.
namespace kube::registry {

// How a kind lists its scale subresource: autoscaling/v1 Scale; get, patch,
// update (as kube's discovery shows deployments/scale), with `paths`.
SubresourceInfo scaleSubresource(ScalePaths paths = {});

// autoscaling/v1 Scale as a kind: what decodes a Scale body (JSON, YAML,
// protobuf) and renders one (protobuf; the default table kube's printers
// register for it: Name, Desired, Available, Age). No store serves it.
const KindInfo& scaleKind();

// The Scale of a stored parent object of `kind`; mirrors scaleFromDeployment
// (and its ReplicaSet and StatefulSet twins) and scaleFromCustomResource:
// name, namespace, uid, resourceVersion and creationTimestamp of the parent,
// spec.replicas (left out when 0, as Go omits it), status.replicas (0 when
// the parent has none), and status.selector (labels.Selector.String() of a
// structured selector; a custom resource's string as it is).
util::json::Document scaleFromObject(const KindInfo& kind, const util::json::Value& parent);

// Writes `scale` into `parent` (a copy of the stored parent, of kind
// `kind`); mirrors scaleUpdatedObjectInfo.UpdatedObject: the Scale is
// validated (ValidateScale: its metadata, replicas >= 0; 422 naming
// Scale.autoscaling), a uid in it must be the parent's (409 on
// "<resource>/scale"), then spec.replicas (to the kind's spec replicas path,
// making the objects on the way; 400 when a value there is no object) and
// metadata.resourceVersion move into the parent (the store checks that
// resourceVersion). `scale`'s
// namespace must already be the request's.
std::optional<meta::Status> applyScale(const KindInfo& kind, const util::json::Value& scale,
                                       util::json::Document& parent);

}  // namespace kube::registry
