#pragma once

#include "endpoints/handlers/scope.hpp"

// The authorization.k8s.io/v1 reviews; mirrors pkg/registry/authorization/*.
// Each decodes the body, asks the authorizer the request came through
// (HttpRequest::authorizer) and answers 201 with the review's status filled
// in; nothing is stored.
namespace kube::endpoints {

// SubjectAccessReview, SelfSubjectAccessReview, LocalSubjectAccessReview
// (the scope's kind says which).
void createAccessReview(Scope s);

// SelfSubjectRulesReview: the rules the caller holds in spec.namespace.
void createRulesReview(Scope s);

}  // namespace kube::endpoints
