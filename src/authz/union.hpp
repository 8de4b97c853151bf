#pragma once

#include <string>
#include <vector>

#include "authz/authorizer.hpp"

namespace kube::authz {

// The authorizers of kube_authorization_mode asked in order; mirrors
// union.New over the modes, preceded by the privileged-group authorizer
// kube-apiserver puts first (authorizerfactory.NewPrivilegedGroups with
// system:masters): a member of a privileged group is allowed whatever the
// modes say. The first Allow or Deny wins; when all have no opinion, their
// reasons are joined by newlines.
class Union : public Authorizer {
public:
    // `authorizers` are not owned and must outlive the union.
    explicit Union(std::vector<const Authorizer*> authorizers,
                   std::vector<std::string> privilegedGroups = {"system:masters"});

    Result authorize(const Attributes& attrs) const override;
    // Mirrors union.NewRuleResolvers: every mode's rules together (the
    // privileged groups list none), incomplete if any mode is.
    SubjectRules rulesFor(const authn::UserInfo& user, std::string_view namespace_) const override;

private:
    std::vector<const Authorizer*> authorizers_;
    std::vector<std::string> privilegedGroups_;
};

}  // namespace kube::authz
