// authz::RbacIndex and RbacAuthorizer: bindings found by subject, kept
// current from a watch cache's events (add, change, delete, reset), kube's
// allow and deny reasons, and rulesFor.
#include <chrono>
#include <string>
#include <vector>

#include "authz/decision_cache.hpp"
#include "authz/rbac.hpp"

// cmocka last: its fail() macro breaks standard headers included after it.
// clang-format off
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}
// clang-format on

namespace authz = kube::authz;
namespace cacher = kube::storage::cacher;
using authz::Decision;
using authz::RbacResource;

namespace {

std::string keep(std::string_view bytes, kube::storage::Revision) {
    return std::string(bytes);
}

struct Caches {
    cacher::WatchCache roles{"/registry/roles/", "roles", keep, 1 << 20};
    cacher::WatchCache clusterRoles{"/registry/clusterroles/", "clusterroles", keep, 1 << 20};
    cacher::WatchCache roleBindings{"/registry/rolebindings/", "rolebindings", keep, 1 << 20};
    cacher::WatchCache clusterRoleBindings{"/registry/clusterrolebindings/", "clusterrolebindings",
                                           keep, 1 << 20};
    kube::storage::Revision rev = 1;
    authz::RbacAuthorizer rbac;

    Caches() {
        rbac.follow(RbacResource::Roles, roles);
        rbac.follow(RbacResource::ClusterRoles, clusterRoles);
        rbac.follow(RbacResource::RoleBindings, roleBindings);
        rbac.follow(RbacResource::ClusterRoleBindings, clusterRoleBindings);
    }

    void put(cacher::WatchCache& c, const std::string& nsName, const std::string& json,
             bool created = true) {
        kube::storage::Event e;
        e.type = kube::storage::Event::Put;
        e.revision = ++rev;
        e.created = created;
        std::string key = c.prefix() + nsName;
        e.key = key;
        e.value = json;
        c.apply(e, std::chrono::steady_clock::now());
    }
    void del(cacher::WatchCache& c, const std::string& nsName, const std::string& json) {
        kube::storage::Event e;
        e.type = kube::storage::Event::Delete;
        e.revision = ++rev;
        std::string key = c.prefix() + nsName;
        e.key = key;
        e.value = json;
        c.apply(e, std::chrono::steady_clock::now());
    }
};

const char* kReader = R"({"metadata":{"name":"reader"},"rules":[{"verbs":["get","list","watch"],)"
                      R"("apiGroups":[""],"resources":["configmaps"]}]})";
const char* kHealth =
    R"({"metadata":{"name":"health"},"rules":[{"verbs":["get"],"nonResourceURLs":["/healthz"]}]})";

std::string roleBinding(const std::string& ns, const std::string& name, const std::string& kind,
                        const std::string& role, const std::string& subjects) {
    return R"({"metadata":{"namespace":")" + ns + R"(","name":")" + name +
           R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":")" + kind +
           R"(","name":")" + role + R"("},"subjects":[)" + subjects + "]}";
}

std::string clusterRoleBinding(const std::string& name, const std::string& role,
                               const std::string& subjects) {
    return R"({"metadata":{"name":")" + name +
           R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":")" +
           role + R"("},"subjects":[)" + subjects + "]}";
}

authz::Attributes listConfigMaps(const std::string& user, const std::string& ns,
                                 std::vector<std::string> groups = {}) {
    authz::Attributes a;
    a.user.name = user;
    a.user.groups = std::move(groups);
    a.verb = "list";
    a.isResourceRequest = true;
    a.resource = "configmaps";
    a.namespace_ = ns;
    return a;
}

void a_role_binding_grants_in_its_namespace_only(void**) {
    Caches c;
    c.put(c.clusterRoles, "reader", kReader);
    authz::Attributes a = listConfigMaps("alice", "web");
    authz::Result r = c.rbac.authorize(a);
    assert_true(r.decision == Decision::NoOpinion);
    assert_string_equal(r.reason.c_str(), "");

    std::string rb =
        roleBinding("web", "rb", "ClusterRole", "reader", R"({"kind":"User","name":"alice"})");
    c.put(c.roleBindings, "web/rb", rb);
    r = c.rbac.authorize(a);
    assert_true(r.decision == Decision::Allow);
    assert_string_equal(r.reason.c_str(),
                        "RBAC: allowed by RoleBinding \"rb/web\" of ClusterRole \"reader\" to "
                        "User \"alice\"");
    assert_true(c.rbac.authorize(listConfigMaps("alice", "db")).decision == Decision::NoOpinion);
    assert_true(c.rbac.authorize(listConfigMaps("alice", "")).decision == Decision::NoOpinion);
    assert_true(c.rbac.authorize(listConfigMaps("bob", "web")).decision == Decision::NoOpinion);
    a.verb = "delete";
    assert_true(c.rbac.authorize(a).decision == Decision::NoOpinion);

    // Revoked: the delete event takes the grant away.
    c.del(c.roleBindings, "web/rb", rb);
    assert_true(c.rbac.authorize(listConfigMaps("alice", "web")).decision == Decision::NoOpinion);
    assert_int_equal(c.rbac.index().bindings(), 0);
}

void cluster_role_bindings_grant_everywhere_to_groups(void**) {
    Caches c;
    c.put(c.clusterRoles, "reader", kReader);
    c.put(c.clusterRoleBindings, "crb",
          clusterRoleBinding("crb", "reader", R"({"kind":"Group","name":"devs"})"));
    authz::Result r = c.rbac.authorize(listConfigMaps("x", "any", {"devs"}));
    assert_true(r.decision == Decision::Allow);
    assert_string_equal(r.reason.c_str(),
                        "RBAC: allowed by ClusterRoleBinding \"crb\" of ClusterRole \"reader\" "
                        "to Group \"devs\"");
    assert_true(c.rbac.authorize(listConfigMaps("x", "")).decision == Decision::NoOpinion);
    assert_true(c.rbac.authorize(listConfigMaps("devs", "any")).decision == Decision::NoOpinion);
}

void a_changed_binding_or_role_replaces_the_old_one(void**) {
    Caches c;
    c.put(c.clusterRoles, "reader", kReader);
    c.put(c.clusterRoleBindings, "crb",
          clusterRoleBinding("crb", "reader", R"({"kind":"User","name":"alice"})"));
    assert_true(c.rbac.authorize(listConfigMaps("alice", "n")).decision == Decision::Allow);
    c.put(c.clusterRoleBindings, "crb",
          clusterRoleBinding("crb", "reader", R"({"kind":"User","name":"bob"})"), false);
    assert_true(c.rbac.authorize(listConfigMaps("alice", "n")).decision == Decision::NoOpinion);
    assert_true(c.rbac.authorize(listConfigMaps("bob", "n")).decision == Decision::Allow);
    // The role loses the rule: nobody lists any more.
    c.put(c.clusterRoles, "reader", R"({"metadata":{"name":"reader"},"rules":[]})", false);
    assert_true(c.rbac.authorize(listConfigMaps("bob", "n")).decision == Decision::NoOpinion);
}

void service_accounts_match_by_their_user_name(void**) {
    Caches c;
    c.put(c.roles, "web/r",
          R"({"metadata":{"namespace":"web","name":"r"},"rules":[{"verbs":["*"],)"
          R"("apiGroups":["*"],"resources":["*"]}]})");
    // No namespace on the subject: the binding's.
    c.put(c.roleBindings, "web/rb",
          roleBinding("web", "rb", "Role", "r", R"({"kind":"ServiceAccount","name":"builder"})"));
    authz::Result r = c.rbac.authorize(listConfigMaps("system:serviceaccount:web:builder", "web"));
    assert_true(r.decision == Decision::Allow);
    assert_string_equal(r.reason.c_str(),
                        "RBAC: allowed by RoleBinding \"rb/web\" of Role \"r\" to ServiceAccount "
                        "\"builder/web\"");
    assert_true(
        c.rbac.authorize(listConfigMaps("system:serviceaccount:db:builder", "web")).decision ==
        Decision::NoOpinion);
    assert_true(c.rbac.authorize(listConfigMaps("builder", "web")).decision == Decision::NoOpinion);
    // A Role is found in the binding's namespace only.
    c.put(c.roleBindings, "db/rb",
          roleBinding("db", "rb", "Role", "r",
                      R"({"kind":"ServiceAccount","name":"builder","namespace":"web"})"));
    r = c.rbac.authorize(listConfigMaps("system:serviceaccount:web:builder", "db"));
    assert_true(r.decision == Decision::NoOpinion);
    assert_string_equal(r.reason.c_str(), "RBAC: role.rbac.authorization.k8s.io \"r\" not found");
}

void missing_roles_are_reported_and_other_bindings_still_count(void**) {
    Caches c;
    c.put(c.roleBindings, "web/a",
          roleBinding("web", "a", "Role", "nope", R"({"kind":"User","name":"bob"})"));
    c.put(c.roleBindings, "web/b",
          roleBinding("web", "b", "ClusterRole", "nope2", R"({"kind":"User","name":"bob"})"));
    authz::Result r = c.rbac.authorize(listConfigMaps("bob", "web"));
    assert_true(r.decision == Decision::NoOpinion);
    assert_string_equal(r.reason.c_str(),
                        "RBAC: [role.rbac.authorization.k8s.io \"nope\" not found, "
                        "clusterrole.rbac.authorization.k8s.io \"nope2\" not found]");
    c.put(c.clusterRoles, "nope2",
          R"({"metadata":{"name":"nope2"},"rules":[{"verbs":["list"],)"
          R"("apiGroups":[""],"resources":["configmaps"]}]})");
    assert_true(c.rbac.authorize(listConfigMaps("bob", "web")).decision == Decision::Allow);

    authz::SubjectRules rules = c.rbac.rulesFor({"bob", "", {}, {}}, "web");
    assert_int_equal(rules.resourceRules.size(), 1);
    assert_int_equal(rules.errors.size(), 1);
    assert_false(rules.incomplete);
}

void rules_for_lists_cluster_then_namespace_rules(void**) {
    Caches c;
    c.put(c.clusterRoles, "reader", kReader);
    c.put(c.clusterRoles, "health", kHealth);
    c.put(c.clusterRoleBindings, "h",
          clusterRoleBinding("h", "health", R"({"kind":"Group","name":"system:authenticated"})"));
    c.put(c.roleBindings, "web/rb",
          roleBinding("web", "rb", "ClusterRole", "reader",
                      R"({"kind":"User","name":"x"},{"kind":"User","name":"alice"})"));
    kube::authn::UserInfo alice{"alice", "", {"system:authenticated"}, {}};
    std::vector<std::string> errors;
    std::vector<authz::PolicyRule> rules = c.rbac.index().rulesFor(alice, "web", &errors);
    assert_int_equal(rules.size(), 2);
    assert_string_equal(rules[0].nonResourceURLs[0].c_str(), "/healthz");
    assert_string_equal(rules[1].resources[0].c_str(), "configmaps");
    assert_int_equal(c.rbac.index().rulesFor(alice, "db", &errors).size(), 1);
    authz::SubjectRules sr = c.rbac.rulesFor(alice, "web");
    assert_int_equal(sr.resourceRules.size(), 1);
    assert_int_equal(sr.nonResourceRules.size(), 1);
    assert_true(sr.nonResourceRules[0].resources.empty());
}

void a_reset_cache_rebuilds_the_index_from_its_state(void**) {
    Caches c;
    c.put(c.clusterRoles, "reader", kReader);
    c.put(c.clusterRoleBindings, "old",
          clusterRoleBinding("old", "reader", R"({"kind":"User","name":"alice"})"));
    assert_true(c.rbac.authorize(listConfigMaps("alice", "n")).decision == Decision::Allow);
    // Refilled from the store where only "new" exists.
    std::string bytes = clusterRoleBinding("new", "reader", R"({"kind":"User","name":"bob"})");
    std::string key = "/registry/clusterrolebindings/new";
    std::vector<kube::storage::ObjectView> objects{{key, bytes, 50, 50}};
    c.clusterRoleBindings.reset(objects, 50);
    assert_true(c.rbac.authorize(listConfigMaps("alice", "n")).decision == Decision::NoOpinion);
    assert_true(c.rbac.authorize(listConfigMaps("bob", "n")).decision == Decision::Allow);
    assert_int_equal(c.rbac.index().bindings(), 1);
}

void many_bindings_cost_only_those_of_the_user(void**) {
    Caches c;
    c.put(c.clusterRoles, "reader", kReader);
    for (int i = 0; i < 1000; ++i) {
        std::string ns = "ns" + std::to_string(i % 50);
        std::string name = "rb" + std::to_string(i);
        c.put(c.roleBindings, ns + "/" + name,
              roleBinding(ns, name, "ClusterRole", "reader",
                          R"({"kind":"User","name":"user)" + std::to_string(i) + R"("})"));
    }
    int visited = 0;
    c.rbac.index().visitRulesFor({"user7", "", {"system:authenticated"}, {}}, "ns7",
                                 [&](const authz::Binding&, const authz::Subject&,
                                     const authz::PolicyRule*, const std::string*) {
                                     ++visited;
                                     return true;
                                 });
    assert_int_equal(visited, 1);
    assert_true(c.rbac.authorize(listConfigMaps("user7", "ns7")).decision == Decision::Allow);
    assert_true(c.rbac.authorize(listConfigMaps("user7", "ns8")).decision == Decision::NoOpinion);
}

// A repeated question is answered from the decision cache, which forgets
// everything when a role or binding changes, and tells apart every part of
// a question RBAC reads.
void decisions_are_kept_until_the_index_changes(void**) {
    Caches c;
    c.put(c.clusterRoles, "reader", kReader);
    c.put(c.roleBindings, "web/rb",
          roleBinding("web", "rb", "ClusterRole", "reader", R"({"kind":"Group","name":"devs"})"));
    authz::Attributes a = listConfigMaps("alice", "web", {"devs"});
    authz::Result first = c.rbac.authorize(a);
    assert_true(first.decision == Decision::Allow);
    authz::Result again = c.rbac.authorize(a);
    assert_true(again.decision == Decision::Allow);
    assert_string_equal(again.reason.c_str(), first.reason.c_str());

    // the role loses the verb: the kept answer is dropped
    c.put(c.clusterRoles, "reader",
          R"({"metadata":{"name":"reader"},"rules":[{"verbs":["get"],)"
          R"("apiGroups":[""],"resources":["configmaps"]}]})",
          false);
    assert_true(c.rbac.authorize(a).decision == Decision::NoOpinion);
    a.verb = "get";
    assert_true(c.rbac.authorize(a).decision == Decision::Allow);
    // another group, name, subresource or namespace is another question
    authz::Attributes other = a;
    other.user.groups = {"ops"};
    assert_true(c.rbac.authorize(other).decision == Decision::NoOpinion);
    other = a;
    other.user.groups = {"dev", "s"};
    assert_true(c.rbac.authorize(other).decision == Decision::NoOpinion);
    other = a;
    other.subresource = "status";
    assert_true(c.rbac.authorize(other).decision == Decision::NoOpinion);
    other = a;
    other.namespace_ = "db";
    assert_true(c.rbac.authorize(other).decision == Decision::NoOpinion);
    // the binding goes: so does the grant
    c.del(c.roleBindings, "web/rb",
          roleBinding("web", "rb", "ClusterRole", "reader", R"({"kind":"Group","name":"devs"})"));
    assert_true(c.rbac.authorize(a).decision == Decision::NoOpinion);

    authz::Attributes b = a;
    b.user.name = "al";
    b.user.groups = {"ice"};
    assert_true(authz::DecisionCache::keyOf(a) != authz::DecisionCache::keyOf(b));
    b = a;
    b.isResourceRequest = false;
    b.path = "configmaps";
    assert_true(authz::DecisionCache::keyOf(a) != authz::DecisionCache::keyOf(b));
    // the cache is bounded
    authz::DecisionCache small(2);
    for (int i = 0; i < 5; i++) {
        a.name = std::to_string(i);
        small.put(authz::DecisionCache::keyOf(a), 1, {Decision::Allow, ""});
    }
    assert_true(small.size() <= 2);
    assert_non_null(small.find(authz::DecisionCache::keyOf(a), 1));
    assert_null(small.find(authz::DecisionCache::keyOf(a), 2));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_role_binding_grants_in_its_namespace_only),
        cmocka_unit_test(cluster_role_bindings_grant_everywhere_to_groups),
        cmocka_unit_test(a_changed_binding_or_role_replaces_the_old_one),
        cmocka_unit_test(service_accounts_match_by_their_user_name),
        cmocka_unit_test(missing_roles_are_reported_and_other_bindings_still_count),
        cmocka_unit_test(rules_for_lists_cluster_then_namespace_rules),
        cmocka_unit_test(a_reset_cache_rebuilds_the_index_from_its_state),
        cmocka_unit_test(many_bindings_cost_only_those_of_the_user),
        cmocka_unit_test(decisions_are_kept_until_the_index_changes),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
