#include "authz/authorizer.hpp"

namespace kube::authz {

namespace {

// Mirrors authorizerfactory.alwaysAllowAuthorizer.
class AlwaysAllow : public Authorizer {
  public:
    Result authorize(const authn::UserInfo&, const endpoints::RequestInfo&) const override {
        return {Decision::Allow, ""};
    }
};

// Mirrors authorizerfactory.alwaysDenyAuthorizer.
class AlwaysDeny : public Authorizer {
  public:
    Result authorize(const authn::UserInfo&, const endpoints::RequestInfo&) const override {
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

std::string forbiddenMessage(const authn::UserInfo& user, const endpoints::RequestInfo& info) {
    std::string msg = "User " + quote(user.name) + " cannot " + info.verb;
    if (!info.isResourceRequest) {
        return msg + " path " + quote(info.path);
    }
    std::string resource = info.resource;
    if (!info.subresource.empty()) {
        resource += "/" + info.subresource;
    }
    msg += " resource " + quote(resource) + " in API group " + quote(info.apiGroup);
    if (!info.namespace_.empty()) {
        return msg + " in the namespace " + quote(info.namespace_);
    }
    return msg + " at the cluster scope";
}

}  // namespace kube::authz
