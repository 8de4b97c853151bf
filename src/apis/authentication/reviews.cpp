#include "apis/authentication/kinds.hpp"

#include <cctype>

#include "registry/table_cells.hpp"

namespace kube::apis::authentication {

namespace {

constexpr const char* kGroup = "authentication.k8s.io";

registry::KindInfo review(std::string version, std::string kind, std::string resource) {
    registry::KindInfo k;
    k.group = kGroup;
    k.version = std::move(version);
    k.kind = std::move(kind);
    k.resource = std::move(resource);
    for (char c : k.kind) {
        k.singular.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    k.namespaced = false;
    k.verbs = {"create"};
    k.storage = registry::KindStorage::Review;
    k.columns = {registry::cells::nameColumn(), registry::cells::ageColumn()};
    return k;
}

}  // namespace

registry::KindInfo tokenReviewKind() {
    return review("v1", "TokenReview", "tokenreviews");
}

registry::KindInfo selfSubjectReviewKind(const std::string& version) {
    return review(version, "SelfSubjectReview", "selfsubjectreviews");
}

registry::KindInfo selfSubjectReviewV1Kind() {
    return selfSubjectReviewKind("v1");
}

registry::KindInfo selfSubjectReviewV1beta1Kind() {
    return selfSubjectReviewKind("v1beta1");
}

registry::SubresourceInfo tokenSubresource() {
    registry::SubresourceInfo s{"token", kGroup, "v1", "TokenRequest", {"create"}};
    s.storage = registry::SubresourceStorage::TokenRequest;
    s.responseKind = &tokenRequestKind();
    return s;
}

const registry::KindInfo& tokenRequestKind() {
    static const registry::KindInfo kind = [] {
        registry::KindInfo k = review("v1", "TokenRequest", "token");
        k.namespaced = true;
        k.verbs = {};
        k.storage = registry::KindStorage::Store;
        return k;
    }();
    return kind;
}

}  // namespace kube::apis::authentication
