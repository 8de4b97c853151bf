#pragma once

#include <map>
#include <string>
#include <vector>

namespace kube::authn {

// Who made a request; mirrors k8s.io/apiserver/pkg/authentication/user.Info.
struct UserInfo {
    std::string name;
    std::string uid;
    std::vector<std::string> groups;
    // Extra attributes an authenticator adds (kube's user.Info.GetExtra):
    // keys are lowercase, e.g. "authentication.kubernetes.io/pod-name".
    std::map<std::string, std::vector<std::string>> extra;

    bool authenticated() const { return !name.empty(); }
};

inline constexpr const char* kAnonymousUser = "system:anonymous";
inline constexpr const char* kAllUnauthenticated = "system:unauthenticated";
inline constexpr const char* kAllAuthenticated = "system:authenticated";

// The user of an unauthenticated request when anonymous access is enabled.
UserInfo anonymousUser();

}  // namespace kube::authn
