#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "authn/user.hpp"
#include "endpoints/request_info.hpp"

namespace kube::authz {

enum class Decision { Allow, Deny, NoOpinion };

struct Result {
    Decision decision = Decision::NoOpinion;
    std::string reason;
};

// What is asked of an authorizer; mirrors authorizer.AttributesRecord. Built
// from a request's RequestInfo, or from a SubjectAccessReview's spec, or for
// an impersonation check.
struct Attributes {
    authn::UserInfo user;
    std::string verb;
    bool isResourceRequest = false;
    // Resource requests.
    std::string namespace_;
    std::string apiGroup;
    std::string apiVersion;
    std::string resource;
    std::string subresource;
    std::string name;
    // Non-resource requests.
    std::string path;
};

// The attributes of a request `user` made.
Attributes attributesOf(const authn::UserInfo& user, const endpoints::RequestInfo& info);

// Decides whether the user may do what `attrs` describe; mirrors
// authorizer.Authorizer. Called on the loop; must not block (a webhook
// authorizer will answer through its own asynchronous path).
class Authorizer {
public:
    virtual ~Authorizer() = default;
    virtual Result authorize(const Attributes& attrs) const = 0;
};

// The kube-apiserver --authorization-mode values this server knows.
enum class Mode { AlwaysAllow, AlwaysDeny };

// nullptr for an unknown name.
std::unique_ptr<Authorizer> makeAuthorizer(Mode mode);

// kube's forbiddenMessage: `User "x" cannot list resource "pods" in API group
// "" in the namespace "ns"` (or "at the cluster scope", or `cannot get path "/x"`).
std::string forbiddenMessage(const Attributes& attrs);

}  // namespace kube::authz
