#include "authz/authorizer.hpp"

namespace kube::authz {

namespace {

// Mirrors authorizerfactory.alwaysAllowAuthorizer.
class AlwaysAllow : public Authorizer {
  public:
    Result authorize(const Attributes&) const override {
        return {Decision::Allow, ""};
    }
    SubjectRules rulesFor(const authn::UserInfo&, std::string_view) const override {
        SubjectRules all;
        all.resourceRules.push_back({{"*"}, {"*"}, {"*"}, {}, {}});
        all.nonResourceRules.push_back({{"*"}, {}, {}, {}, {"*"}});
        return all;
    }
};

// Mirrors authorizerfactory.alwaysDenyAuthorizer.
class AlwaysDeny : public Authorizer {
  public:
    Result authorize(const Attributes&) const override {
        return {Decision::NoOpinion, "Everything is forbidden."};
    }
    SubjectRules rulesFor(const authn::UserInfo&, std::string_view) const override {
        return {};
    }
};

std::string quote(std::string_view s) {
    return "\"" + std::string(s) + "\"";
}

}  // namespace

std::optional<Mode> parseMode(std::string_view name, std::string* error) {
    if (name == "AlwaysAllow") {
        return Mode::AlwaysAllow;
    }
    if (name == "AlwaysDeny") {
        return Mode::AlwaysDeny;
    }
    if (name == "ABAC") {
        return Mode::ABAC;
    }
    if (name == "RBAC") {
        return Mode::RBAC;
    }
    if (name == "Node" || name == "Webhook") {
        *error = "authorization mode " + quote(name) + " is not supported yet";
    } else {
        *error = "unknown authorization mode " + quote(name) +
                 ", it must be \"AlwaysAllow\", \"AlwaysDeny\", \"ABAC\" or \"RBAC\"";
    }
    return std::nullopt;
}

std::unique_ptr<Authorizer> makeAuthorizer(Mode mode) {
    switch (mode) {
        case Mode::AlwaysAllow:
            return std::make_unique<AlwaysAllow>();
        case Mode::AlwaysDeny:
            return std::make_unique<AlwaysDeny>();
        case Mode::ABAC:
        case Mode::RBAC:
            return nullptr;
    }
    return nullptr;
}

bool isReadOnly(const Attributes& attrs) {
    return attrs.verb == "get" || attrs.verb == "list" || attrs.verb == "watch";
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
