#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apis/meta/status.hpp"
#include "authn/user.hpp"
#include "authz/authorizer.hpp"
#include "authz/rule_resolver.hpp"
#include "util/json.hpp"

// Privilege escalation prevention for writes of RBAC objects; mirrors
// pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/
// policybased, escalation_check.go and validation.ConfirmNoEscalation.
namespace kube::authz {

inline constexpr const char* kSystemPrivilegedGroup = "system:masters";

// rbacregistry.EscalationAllowed: no user (an internal write: bootstrap
// reconciliation, the aggregation controller), or a member of system:masters.
bool escalationAllowed(const authn::UserInfo* user);

// validation.ConfirmNoEscalation's error text when `held` does not cover
// `requested`, nullopt when it does. `resolutionErrors` are the rule
// resolver's (bindings to missing roles), appended as kube does.
std::optional<std::string> escalationError(const authn::UserInfo& user,
                                           const std::vector<PolicyRule>& held,
                                           const std::vector<PolicyRule>& requested,
                                           const std::vector<std::string>& resolutionErrors);

// rbacregistry.IsOnlyMutatingGCFields: `obj` differs from `old` in nothing but
// ownerReferences, finalizers and other fields the server keeps.
bool onlyMutatesGCFields(const util::json::Value& obj, const util::json::Value& old);

// One create or update of a Role, ClusterRole, RoleBinding or ClusterRoleBinding.
struct RbacWrite {
    const authn::UserInfo* user = nullptr;
    std::string resource;    // "roles", "clusterroles", "rolebindings", "clusterrolebindings"
    std::string namespace_;  // the request's namespace ("" for the cluster kinds)
    std::string name;        // the request's name ("" on create, as RequestInfo has it)
    const util::json::Value* obj = nullptr;  // the object to be written
    const util::json::Value* old = nullptr;  // the stored object on update, else null
};

// The rules of the role a binding refers to (kind "Role" in `ns`, or
// "ClusterRole"); a 404 NotFound Status when there is none. Mirrors
// AuthorizationRuleResolver.GetRoleReferenceRules. May answer later, on the loop.
using RoleRulesFn = std::function<void(
    std::string_view kind, std::string_view ns, std::string_view name,
    std::function<void(const meta::Status* error, std::vector<PolicyRule> rules)> done)>;

// Decides whether a user may write an RBAC object: roles only with rules the
// user holds (or the `escalate` verb), aggregated cluster roles only with
// full cluster authority, bindings only to roles whose rules the user holds
// (or the `bind` verb on that role). Exists only when RBAC is an
// authorization mode, as kube wraps the storage only then. Loop thread only.
class EscalationGuard {
  public:
    // `authorizer` is the server's whole authorization chain (the escalate
    // and bind checks go through it); all three outlive the guard.
    EscalationGuard(const Authorizer& authorizer, const RuleResolver& resolver,
                    RoleRulesFn roleRules)
        : authorizer_(authorizer), resolver_(resolver), roleRules_(std::move(roleRules)) {}

    // `done` gets null to go on, or the 403 (or the role lookup's 404); it may
    // be called inline. `w`'s pointers need only last until check() returns.
    void check(const RbacWrite& w, std::function<void(const meta::Status* denied)> done) const;

  private:
    bool authorized(const authn::UserInfo& user, std::string_view verb, std::string_view resource,
                    std::string_view ns, std::string_view name) const;
    std::optional<meta::Status> confirmRules(const RbacWrite& w,
                                             const std::vector<PolicyRule>& rules) const;
    void checkRole(const RbacWrite& w, std::function<void(const meta::Status*)> done) const;
    void checkBinding(const RbacWrite& w, std::function<void(const meta::Status*)> done) const;

    const Authorizer& authorizer_;
    const RuleResolver& resolver_;
    RoleRulesFn roleRules_;
};

}  // namespace kube::authz
