#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "authz/rule_resolver.hpp"
#include "util/json.hpp"

namespace kube::authz {

// One subject of a RoleBinding or ClusterRoleBinding (rbac/v1 Subject).
struct Subject {
    std::string kind;  // User, Group, ServiceAccount
    std::string name;
    std::string namespace_;
    // For a ServiceAccount, the user name it stands for in its binding
    // (system:serviceaccount:<ns>:<name>), "" when it has no namespace.
    std::string user;
};

// A RoleBinding (namespace_ set) or ClusterRoleBinding, as RBAC needs it.
struct Binding {
    std::string namespace_;
    std::string name;
    std::string roleKind;  // Role, ClusterRole
    std::string roleName;
    std::vector<Subject> subjects;
};

// kube's appliesToUser with the subject's kind already told apart.

// The four RBAC resources.
enum class RbacResource { Roles, ClusterRoles, RoleBindings, ClusterRoleBindings };

// The Roles, ClusterRoles, RoleBindings and ClusterRoleBindings one worker
// knows, indexed by subject: a user's bindings are found by one lookup for
// the user name and one per group, never by scanning every binding. Mirrors
// validation.DefaultRuleResolver over the informers' listers. Fed by the
// watch caches (RbacAuthorizer); loop thread only.
class RbacIndex : public RuleResolver {
  public:
    // Adds or replaces the object `obj` of `resource` (as stored).
    void put(RbacResource resource, const util::json::Value& obj);
    // Forgets the object `name` in `namespace_` ("" for cluster objects).
    void remove(RbacResource resource, std::string_view namespace_, std::string_view name);
    // Forgets every object of `resource` (the cache is refilled next).
    void clear(RbacResource resource);

    // Calls `visit` with each rule that applies to `user` in `namespace_`:
    // those of the ClusterRoleBindings first, then those of the namespace's
    // RoleBindings, each with the binding and the subject that matched; and
    // with an error (rule null) for each binding whose role is missing.
    // Stops when `visit` returns false. Mirrors VisitRulesFor.
    using Visitor = std::function<bool(const Binding& binding, const Subject& subject,
                                       const PolicyRule* rule, const std::string* error)>;
    void visitRulesFor(const authn::UserInfo& user, std::string_view namespace_,
                       const Visitor& visit) const;

    std::vector<PolicyRule> rulesFor(const authn::UserInfo& user, std::string_view namespace_,
                                     std::vector<std::string>* errors) const override;

    // kube's source description of a rule: `RoleBinding "rb/ns" of ClusterRole
    // "view" to User "alice"`.
    static std::string describe(const Binding& binding, const Subject& subject);

    size_t bindings() const { return roleBindings_.size() + clusterRoleBindings_.size(); }

    // Moves on with every change: answers drawn from an earlier generation
    // may be stale.
    uint64_t generation() const { return generation_; }

  private:
    using Rules = std::shared_ptr<const std::vector<PolicyRule>>;
    using BindingRef = std::shared_ptr<const Binding>;

    // The bindings naming one user or group: cluster-wide, and by namespace.
    struct Bound {
        std::vector<const Binding*> cluster;
        std::unordered_map<std::string, std::vector<const Binding*>> namespaced;
    };

    // The bindings of the subjects a user matches, in name order, each once.
    class Collected {
      public:
        void add(const std::vector<const Binding*>& list);
        const std::vector<const Binding*>& bindings();

      private:
        int lists_ = 0;
        const std::vector<const Binding*>* only_ = &merged_;
        std::vector<const Binding*> merged_;
    };

    static bool byName(const Binding* a, const Binding* b);
    void putBinding(RbacResource resource, const util::json::Value& obj);
    void index(const Binding& b, bool add);
    void collect(const std::unordered_map<std::string, Bound>& by, const std::string& key,
                 std::string_view namespace_, Collected& cluster, Collected& local) const;
    const std::vector<PolicyRule>* roleRules(const Binding& b, std::string* error) const;

    std::unordered_map<std::string, Rules> roles_;  // "<namespace>/<name>"
    std::unordered_map<std::string, Rules> clusterRoles_;
    std::unordered_map<std::string, BindingRef> roleBindings_;  // "<namespace>/<name>"
    std::unordered_map<std::string, BindingRef> clusterRoleBindings_;
    // Keyed by user name (User subjects and service accounts'
    // system:serviceaccount:<ns>:<name>) and by group name.
    std::unordered_map<std::string, Bound> users_;
    std::unordered_map<std::string, Bound> groups_;
    uint64_t generation_ = 0;
};

// True when `subject` of a binding in `bindingNamespace` names `user`;
// mirrors appliesToUser.
bool appliesToUser(const authn::UserInfo& user, const Subject& subject,
                   std::string_view bindingNamespace);

}  // namespace kube::authz
