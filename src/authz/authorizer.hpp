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

// Decides whether `user` may do what `info` describes; mirrors
// authorizer.Authorizer. Called on the loop; must not block (a webhook
// authorizer will answer through its own asynchronous path).
class Authorizer {
public:
    virtual ~Authorizer() = default;
    virtual Result authorize(const authn::UserInfo& user,
                             const endpoints::RequestInfo& info) const = 0;
};

// The kube-apiserver --authorization-mode values this server knows.
enum class Mode { AlwaysAllow, AlwaysDeny };

// nullptr for an unknown name.
std::unique_ptr<Authorizer> makeAuthorizer(Mode mode);

// kube's forbiddenMessage: `User "x" cannot list resource "pods" in API group
// "" in the namespace "ns"` (or "at the cluster scope", or `cannot get path "/x"`).
std::string forbiddenMessage(const authn::UserInfo& user, const endpoints::RequestInfo& info);

}  // namespace kube::authz
