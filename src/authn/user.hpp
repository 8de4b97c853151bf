#pragma once

#include <string>
#include <vector>

namespace kube::authn {

// Who made a request; mirrors k8s.io/apiserver/pkg/authentication/user.Info.
struct UserInfo {
    std::string name;
    std::string uid;
    std::vector<std::string> groups;

    bool authenticated() const { return !name.empty(); }
};

inline constexpr const char* kAnonymousUser = "system:anonymous";
inline constexpr const char* kAllUnauthenticated = "system:unauthenticated";
inline constexpr const char* kAllAuthenticated = "system:authenticated";

// The user of an unauthenticated request when anonymous access is enabled.
UserInfo anonymousUser();

}  // namespace kube::authn
