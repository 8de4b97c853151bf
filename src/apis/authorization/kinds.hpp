#pragma once

#include "registry/kind.hpp"

// authorization.k8s.io/v1: the access reviews (kubectl auth can-i), answered
// by the authorizer on create and never stored (KindInfo::review).
namespace kube::apis::authorization {

registry::KindInfo localSubjectAccessReviewKind();
registry::KindInfo selfSubjectAccessReviewKind();
registry::KindInfo selfSubjectRulesReviewKind();
registry::KindInfo subjectAccessReviewKind();

}  // namespace kube::apis::authorization
