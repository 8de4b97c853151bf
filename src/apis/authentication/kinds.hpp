#pragma once

#include <string>

#include "registry/kind.hpp"

// authentication.k8s.io: requests the server answers without storing them
// (create only): TokenReview, SelfSubjectReview, and the TokenRequest of the
// serviceaccounts/token subresource.
namespace kube::apis::authentication {

// authentication.k8s.io/v1 TokenReview (tokenreviews, cluster scope).
registry::KindInfo tokenReviewKind();
// SelfSubjectReview in `version`: v1 (1.28+) or v1beta1 (1.27+, what kubectl
// 1.27 asks for first).
registry::KindInfo selfSubjectReviewKind(const std::string& version);
registry::KindInfo selfSubjectReviewV1Kind();
registry::KindInfo selfSubjectReviewV1beta1Kind();

// How serviceaccounts list their token subresource in discovery.
registry::SubresourceInfo tokenSubresource();
// authentication.k8s.io/v1 TokenRequest as a kind: what decodes and renders
// one. No store serves it.
const registry::KindInfo& tokenRequestKind();

}  // namespace kube::apis::authentication
