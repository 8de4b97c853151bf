#pragma once

#include <optional>
#include <string_view>

#include "apis/meta/status.hpp"
#include "registry/kind.hpp"

// A Binding assigns a pod to a node: what a scheduler posts to
// pods/<name>/binding (or to the namespace's bindings). It is never stored;
// it changes the pod (mirrors BindingREST in pkg/registry/core/pod/storage).
namespace kube::apis::core {

// The Binding kind, what decodes a Binding body and renders its answer;
// static storage, for the pods/binding subresource.
const registry::KindInfo& bindingRequestKind();

// How pods list their binding subresource: Binding; create.
registry::SubresourceInfo bindingSubresource();

// Mirrors ValidatePodBinding: target.kind is "Node" or empty, target.name is
// set. kube returns the errors unwrapped, so a client sees a 500 Status with
// no reason whose message is the errors joined.
std::optional<meta::Status> validateBinding(const util::json::Value& binding);

// Mirrors the update function of BindingREST.setPodHostAndAnnotations on the
// stored pod `pod` (named `name`): a pod being deleted or already on a node
// is a 409 Conflict on pods/binding; otherwise spec.nodeName becomes `node`,
// `annotations` are merged into the pod's, and its PodScheduled condition is
// True since `now` (or since when it last became True).
std::optional<meta::Status> bindPod(util::json::Value& pod, std::string_view name,
                                    std::string_view node, const util::json::Value* annotations,
                                    std::string_view now, util::json::Allocator& a);

}  // namespace kube::apis::core
