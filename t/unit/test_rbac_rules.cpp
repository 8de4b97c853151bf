// authz::ruleAllows: kube's RuleAllows table (verbs, apiGroups, resources
// with subresources and "*/x", resourceNames, nonResourceURLs), and the ABAC
// policy file's lines as kube reads and matches them.
#include <string>
#include <vector>

#include "authz/abac.hpp"
#include "authz/policy_rule.hpp"
#include "authz/union.hpp"

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
using authz::PolicyRule;

namespace {

authz::Attributes resource(std::string verb, std::string group, std::string res,
                           std::string sub = "", std::string name = "", std::string ns = "ns") {
    authz::Attributes a;
    a.user.name = "u";
    a.verb = std::move(verb);
    a.isResourceRequest = true;
    a.apiGroup = std::move(group);
    a.resource = std::move(res);
    a.subresource = std::move(sub);
    a.name = std::move(name);
    a.namespace_ = std::move(ns);
    return a;
}

authz::Attributes path(std::string verb, std::string p) {
    authz::Attributes a;
    a.user.name = "u";
    a.verb = std::move(verb);
    a.path = std::move(p);
    return a;
}

PolicyRule rule(std::vector<std::string> verbs, std::vector<std::string> groups,
                std::vector<std::string> resources, std::vector<std::string> names = {}) {
    return {std::move(verbs), std::move(groups), std::move(resources), std::move(names), {}};
}

PolicyRule urls(std::vector<std::string> verbs, std::vector<std::string> u) {
    return {std::move(verbs), {}, {}, {}, std::move(u)};
}

void verbs_and_groups_match_exactly_or_by_star(void**) {
    PolicyRule r = rule({"get", "list"}, {""}, {"configmaps"});
    assert_true(authz::ruleAllows(resource("get", "", "configmaps"), r));
    assert_true(authz::ruleAllows(resource("list", "", "configmaps"), r));
    assert_false(authz::ruleAllows(resource("watch", "", "configmaps"), r));
    assert_false(authz::ruleAllows(resource("get", "apps", "configmaps"), r));
    assert_false(authz::ruleAllows(resource("get", "", "secrets"), r));
    PolicyRule all = rule({"*"}, {"*"}, {"*"});
    assert_true(authz::ruleAllows(resource("deletecollection", "apps", "deployments"), all));
    // "*" covers subresources too.
    assert_true(authz::ruleAllows(resource("update", "apps", "deployments", "scale"), all));
    // A rule without verbs or groups allows nothing.
    assert_false(authz::ruleAllows(resource("get", "", "pods"), rule({}, {""}, {"pods"})));
    assert_false(authz::ruleAllows(resource("get", "", "pods"), rule({"get"}, {}, {"pods"})));
}

void subresources_match_by_full_name_or_star_slash(void**) {
    PolicyRule pods = rule({"get"}, {""}, {"pods"});
    assert_false(authz::ruleAllows(resource("get", "", "pods", "log"), pods));
    PolicyRule logs = rule({"get"}, {""}, {"pods/log"});
    assert_true(authz::ruleAllows(resource("get", "", "pods", "log"), logs));
    assert_false(authz::ruleAllows(resource("get", "", "pods"), logs));
    assert_false(authz::ruleAllows(resource("get", "", "pods", "status"), logs));
    PolicyRule anyStatus = rule({"get"}, {"*"}, {"*/status"});
    assert_true(authz::ruleAllows(resource("get", "apps", "deployments", "status"), anyStatus));
    assert_false(authz::ruleAllows(resource("get", "apps", "deployments"), anyStatus));
    assert_false(authz::ruleAllows(resource("get", "apps", "deployments", "scale"), anyStatus));
    // "*/status" is not a prefix match: "*/statuses" does not cover status.
    PolicyRule longer = rule({"get"}, {"*"}, {"*/statuses"});
    assert_false(authz::ruleAllows(resource("get", "", "pods", "status"), longer));
}

void resource_names_need_the_request_to_name_one(void**) {
    PolicyRule r = rule({"get", "list", "create", "update"}, {""}, {"configmaps"}, {"a", "b"});
    assert_true(authz::ruleAllows(resource("get", "", "configmaps", "", "a"), r));
    assert_true(authz::ruleAllows(resource("update", "", "configmaps", "", "b"), r));
    assert_false(authz::ruleAllows(resource("get", "", "configmaps", "", "c"), r));
    // A list or a create has no name: a rule naming objects never allows it.
    assert_false(authz::ruleAllows(resource("list", "", "configmaps"), r));
    assert_false(authz::ruleAllows(resource("create", "", "configmaps"), r));
}

void non_resource_urls_match_exactly_or_by_trailing_star(void**) {
    PolicyRule r = urls({"get"}, {"/healthz", "/apis/*", "/logs*"});
    assert_true(authz::ruleAllows(path("get", "/healthz"), r));
    assert_false(authz::ruleAllows(path("get", "/healthz/ping"), r));
    assert_true(authz::ruleAllows(path("get", "/apis/apps/v1"), r));
    assert_false(authz::ruleAllows(path("get", "/apis"), r));
    assert_true(authz::ruleAllows(path("get", "/logs"), r));
    assert_true(authz::ruleAllows(path("get", "/logsx/y"), r));
    assert_false(authz::ruleAllows(path("post", "/healthz"), r));
    assert_true(authz::ruleAllows(path("post", "/anything"), urls({"*"}, {"*"})));
    // A resource rule never allows a path, nor a path rule a resource.
    assert_false(authz::ruleAllows(path("get", "/api"), rule({"*"}, {"*"}, {"*"})));
    assert_false(authz::ruleAllows(resource("get", "", "pods"), urls({"*"}, {"*"})));
}

void policy_rules_are_read_from_a_role_object(void**) {
    kube::util::json::Document doc;
    assert_false(kube::util::json::parse(
                     R"({"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],)"
                     R"("resourceNames":["x"]},{"verbs":["get"],"nonResourceURLs":["/x"]},7]})",
                     doc)
                     .has_value());
    std::vector<PolicyRule> rules = authz::policyRulesOf(doc);
    assert_int_equal(rules.size(), 2);
    assert_string_equal(rules[0].resourceNames[0].c_str(), "x");
    assert_string_equal(rules[1].nonResourceURLs[0].c_str(), "/x");
}

std::optional<authz::AbacAuthorizer> abac(const char* text) {
    std::string error;
    auto a = authz::AbacAuthorizer::parse(text, "policy.jsonl", &error);
    if (!a) {
        print_message("%s\n", error.c_str());
    }
    return a;
}

void abac_versioned_policies_match_user_group_namespace_and_readonly(void**) {
    auto a = abac(
        "# comment\n"
        "\n"
        R"({"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy",)"
        R"("spec":{"user":"alice","namespace":"web","resource":"*","apiGroup":"*"}})"
        "\n"
        R"({"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy",)"
        R"("spec":{"group":"readers","readonly":true,"namespace":"*","resource":"pods","apiGroup":""}})"
        "\n"
        R"({"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy",)"
        R"("spec":{"user":"*","readonly":true,"nonResourcePath":"/version*"}})"
        "\n");
    assert_true(a.has_value());
    authz::Attributes r = resource("delete", "apps", "deployments", "", "d", "web");
    r.user.name = "alice";
    assert_true(a->authorize(r).decision == authz::Decision::Allow);
    r.namespace_ = "db";
    authz::Result no = a->authorize(r);
    assert_true(no.decision == authz::Decision::NoOpinion);
    assert_string_equal(no.reason.c_str(), "No policy matched.");

    authz::Attributes p = resource("list", "", "pods", "", "", "db");
    p.user.name = "bob";
    p.user.groups = {"readers"};
    assert_true(a->authorize(p).decision == authz::Decision::Allow);
    p.verb = "create";
    assert_true(a->authorize(p).decision == authz::Decision::NoOpinion);

    // "*" user: every authenticated user (not the anonymous one).
    authz::Attributes v = path("get", "/version/x");
    v.user.groups = {"system:authenticated"};
    assert_true(a->authorize(v).decision == authz::Decision::Allow);
    v.user.groups = {"system:unauthenticated"};
    assert_true(a->authorize(v).decision == authz::Decision::NoOpinion);

    authz::SubjectRules rules = a->rulesFor(p.user, "db");
    assert_int_equal(rules.resourceRules.size(), 1);
    assert_string_equal(rules.resourceRules[0].verbs[2].c_str(), "watch");
}

void abac_unversioned_lines_use_the_v0_defaults(void**) {
    // No user or group: every authenticated user; no namespace or resource:
    // every resource of every group, and every path.
    auto a = abac(R"({"readonly": true})"
                  "\n"
                  R"({"user":"admin"})");
    assert_true(a.has_value());
    authz::Attributes r = resource("get", "apps", "deployments");
    r.user.groups = {"system:authenticated"};
    assert_true(a->authorize(r).decision == authz::Decision::Allow);
    r.verb = "update";
    assert_true(a->authorize(r).decision == authz::Decision::NoOpinion);
    r.user.name = "admin";
    assert_true(a->authorize(r).decision == authz::Decision::Allow);
    assert_true(a->authorize(path("post", "/x")).decision == authz::Decision::NoOpinion);
}

void abac_bad_lines_name_the_file_and_line(void**) {
    std::string error;
    assert_false(authz::AbacAuthorizer::parse("{\"user\":\"a\"}\n{nope\n", "p.jsonl", &error).has_value());
    assert_true(error.starts_with("error reading policy file p.jsonl, line 2: {nope: "));
    assert_false(authz::AbacAuthorizer::parse(
                     R"({"apiVersion":"v9","kind":"Policy","spec":{}})", "p.jsonl", &error)
                     .has_value());
    assert_false(authz::AbacAuthorizer::parse(R"({"user":7})", "p.jsonl", &error).has_value());
}

struct Fixed : authz::Authorizer {
    authz::Result r;
    explicit Fixed(authz::Result res) : r(std::move(res)) {}
    authz::Result authorize(const authz::Attributes&) const override { return r; }
};

void union_first_decision_wins_and_masters_always_pass(void**) {
    Fixed none1({authz::Decision::NoOpinion, "first"});
    Fixed none2({authz::Decision::NoOpinion, "second"});
    Fixed deny({authz::Decision::Deny, "no"});
    Fixed allow({authz::Decision::Allow, "yes"});
    authz::Attributes a = resource("get", "", "pods");
    authz::Result r = authz::Union({&none1, &none2}).authorize(a);
    assert_true(r.decision == authz::Decision::NoOpinion);
    assert_string_equal(r.reason.c_str(), "first\nsecond");
    assert_true(authz::Union({&none1, &deny, &allow}).authorize(a).decision ==
                authz::Decision::Deny);
    assert_true(authz::Union({&none1, &allow, &deny}).authorize(a).decision ==
                authz::Decision::Allow);
    a.user.groups = {"system:masters"};
    authz::Result m = authz::Union({&deny}).authorize(a);
    assert_true(m.decision == authz::Decision::Allow);
    assert_true(m.reason.empty());
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(verbs_and_groups_match_exactly_or_by_star),
        cmocka_unit_test(subresources_match_by_full_name_or_star_slash),
        cmocka_unit_test(resource_names_need_the_request_to_name_one),
        cmocka_unit_test(non_resource_urls_match_exactly_or_by_trailing_star),
        cmocka_unit_test(policy_rules_are_read_from_a_role_object),
        cmocka_unit_test(abac_versioned_policies_match_user_group_namespace_and_readonly),
        cmocka_unit_test(abac_unversioned_lines_use_the_v0_defaults),
        cmocka_unit_test(abac_bad_lines_name_the_file_and_line),
        cmocka_unit_test(union_first_decision_wins_and_masters_always_pass),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
