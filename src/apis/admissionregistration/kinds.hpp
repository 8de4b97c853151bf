#pragma once

#include "registry/kind.hpp"

// The admissionregistration.k8s.io/v1 kinds served: webhook configurations (webhook_configuration)
// and validating admission policies with their bindings (validating_admission_policy). Stored and
// validated; no webhook is called and no policy evaluated yet (see admission/registered_hooks).
namespace kube::apis::admissionregistration {

registry::KindInfo mutatingWebhookConfigurationKind();
registry::KindInfo validatingWebhookConfigurationKind();
registry::KindInfo validatingAdmissionPolicyKind();
registry::KindInfo validatingAdmissionPolicyBindingKind();

}  // namespace kube::apis::admissionregistration
