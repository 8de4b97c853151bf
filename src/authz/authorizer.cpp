#include "authz/authorizer.hpp"

namespace kube::authz {

namespace {

// Mirrors authorizerfactory.alwaysAllowAuthorizer.
class AlwaysAllow : public Authorizer {
  public:
    Result authorize(const Attributes&) const override {
        return {Decision::Allow, ""};
    }
};

// Mirrors authorizerfactory.alwaysDenyAuthorizer.
class AlwaysDeny : public Authorizer {
  public:
    Result authorize(const Attributes&) const override {
        return {Decision::NoOpinion, "Everything is forbidden."};
    }
};

std::string quote(std::string_view s) {
    return "\"" + std::string(s) + "\"";
}

}  // namespace

std::unique_ptr<Authorizer> makeAuthorizer(Mode mode) {
    switch (mode) {
        case Mode::AlwaysAllow:
            return std::make_unique<AlwaysAllow>();
        case Mode::AlwaysDeny:
            return std::make_unique<AlwaysDeny>();
    }
    return nullptr;
}

Attributes attributesOf(const authn::UserInfo& user, const endpoints::RequestInfo& info) {
    Attributes attrs;
    attrs.user = user;
    attrs.verb = info.verb;
    attrs.isResourceRequest = info.isResourceRequest;
    attrs.namespace_ = info.namespace_;
    attrs.apiGroup = info.apiGroup;
    attrs.apiVersion = info.apiVersion;
    attrs.resource = info.resource;
    attrs.subresource = info.subresource;
    attrs.name = info.name;
    attrs.path = info.path;
    return attrs;
}

std::string forbiddenMessage(const Attributes& attrs) {
    std::string msg = "User " + quote(attrs.user.name) + " cannot " + attrs.verb;
    if (!attrs.isResourceRequest) {
        return msg + " path " + quote(attrs.path);
    }
    std::string resource = attrs.resource;
    if (!attrs.subresource.empty()) {
        resource += "/" + attrs.subresource;
    }
    msg += " resource " + quote(resource) + " in API group " + quote(attrs.apiGroup);
    if (!attrs.namespace_.empty()) {
        return msg + " in the namespace " + quote(attrs.namespace_);
    }
    return msg + " at the cluster scope";
}

}  // namespace kube::authz
