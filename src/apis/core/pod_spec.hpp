#pragma once

#include <string>
#include <string_view>

#include "apis/core/field_errors.hpp"
#include "util/json.hpp"

// The PodSpec parts every workload kind shares: defaults, validation and
// the QoS class. Pods use them directly; Deployments, Jobs and the other
// controllers through their pod templates.
namespace kube::apis::core {

namespace json = util::json;

// Mirrors SetDefaults_PodSpec with the nested container, port, probe and
// volume defaults (what `-o yaml` shows after a create).
void defaultPodSpec(json::Value& spec, json::Allocator& a);

// Defaults `parent.template.spec` (a controller's pod template), creating
// the template and spec objects as Go's non-pointer structs would.
void defaultPodTemplate(json::Value& parent, json::Allocator& a);

// Mirrors the essentials of ValidatePodSpec: containers present, each with a
// valid unique name and an image, enum fields, port numbers.
void validatePodSpec(const json::Value* spec, const std::string& path, field::Causes& out);

// ValidatePodTemplateSpec: the template is required and its spec valid.
void validatePodTemplate(const json::Value* tmpl, const std::string& path, field::Causes& out);

// qos.GetPodQOS: "BestEffort", "Burstable" or "Guaranteed". Requests that
// are not given count as equal to the limits (SetDefaults_Pod), so the result
// is the same before and after defaulting.
std::string podQOSClass(const json::Value& spec);

}  // namespace kube::apis::core
