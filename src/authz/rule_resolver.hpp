#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "authn/user.hpp"

namespace kube::authz {

// One rule of a Role or ClusterRole (rbac/v1 PolicyRule).
struct PolicyRule {
    std::vector<std::string> verbs;
    std::vector<std::string> apiGroups;
    std::vector<std::string> resources;  // "pods", "pods/log", "*", "*/scale"
    std::vector<std::string> resourceNames;
    std::vector<std::string> nonResourceURLs;
};

// The rules that apply to a user in a namespace: those of the ClusterRoles
// bound cluster-wide, plus, for a namespace, those bound in it; mirrors
// rbac validation.AuthorizationRuleResolver.RulesFor. Answers from memory,
// on the loop, never reading storage. `errors` gets one line per binding
// whose role does not exist (kube reports them the same way).
class RuleResolver {
public:
    virtual ~RuleResolver() = default;
    virtual std::vector<PolicyRule> rulesFor(const authn::UserInfo& user,
                                             std::string_view namespace_,
                                             std::vector<std::string>* errors) const = 0;
};

}  // namespace kube::authz
