#include "apis/authorization/kinds.hpp"

namespace kube::apis::authorization {

namespace {

// As kube's discovery lists them: no singular name, create only.
registry::KindInfo review(std::string kind, std::string resource, bool namespaced) {
    registry::KindInfo k;
    k.group = "authorization.k8s.io";
    k.version = "v1";
    k.kind = std::move(kind);
    k.resource = std::move(resource);
    k.namespaced = namespaced;
    k.verbs = {"create"};
    k.storage = registry::KindStorage::Review;
    return k;
}

}  // namespace

registry::KindInfo localSubjectAccessReviewKind() {
    return review("LocalSubjectAccessReview", "localsubjectaccessreviews", true);
}

registry::KindInfo selfSubjectAccessReviewKind() {
    return review("SelfSubjectAccessReview", "selfsubjectaccessreviews", false);
}

registry::KindInfo selfSubjectRulesReviewKind() {
    return review("SelfSubjectRulesReview", "selfsubjectrulesreviews", false);
}

registry::KindInfo subjectAccessReviewKind() {
    return review("SubjectAccessReview", "subjectaccessreviews", false);
}

}  // namespace kube::apis::authorization
