#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authn/headers.hpp"
#include "authn/user.hpp"
#include "authz/authorizer.hpp"

// kube's WithImpersonation filter, without the HTTP: what the Impersonate-*
// headers ask for, the `impersonate` checks each part needs, and the user the
// request then acts as.
namespace kube::authn {

// One thing a request asks to act as (kube builds an ObjectReference each).
struct ImpersonationRequest {
    enum class Kind { User, ServiceAccount, Group, UserExtra, Uid };
    Kind kind = Kind::User;
    std::string namespace_;  // ServiceAccount
    std::string name;        // the user, account, group, extra value or uid
    std::string extraKey;    // UserExtra: the key, lowercased and unescaped
};

struct ImpersonationParse {
    std::vector<ImpersonationRequest> requests;  // empty: no impersonation
    // Set when groups, extras or a uid come without a user; kube answers
    // 500 with `Internal Server Error: "<request URI>": ` and this text.
    std::optional<std::string> error;
};

// Reads Impersonate-User (the first one), Impersonate-Group (each),
// Impersonate-Extra-<key> (each value; the key unescaped as a URL path
// segment) and Impersonate-Uid, in kube's order.
ImpersonationParse parseImpersonation(const std::vector<Header>& headers);

// Whether a header is one of the impersonation headers (to strip them before
// the request goes on, as kube does).
bool isImpersonationHeader(std::string_view name);

// What `requestor` must be allowed for one part: verb impersonate on users,
// groups, serviceaccounts (namespaced), uids or userextras/<key>.
authz::Attributes impersonationAttributes(const UserInfo& requestor,
                                          const ImpersonationRequest& request);

// The user the request acts as once every part was allowed: a service
// account's groups when none were asked for, and system:authenticated (or,
// for system:anonymous, system:unauthenticated) unless already there.
UserInfo impersonatedUser(const std::vector<ImpersonationRequest>& requests);

}  // namespace kube::authn
