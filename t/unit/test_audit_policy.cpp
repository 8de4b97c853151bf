#include <string>
#include <vector>

#include "audit/policy.hpp"

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

namespace a = kube::audit;

namespace {

a::Policy load(const std::string& text) {
    std::string err;
    auto p = a::Policy::load(text, &err);
    if (!p) {
        fail_msg("policy did not load: %s", err.c_str());
    }
    return std::move(*p);
}

std::string loadError(const std::string& text) {
    std::string err;
    auto p = a::Policy::load(text, &err);
    assert_false(p.has_value());
    return err;
}

kube::authz::Attributes resource(const std::string& user, std::vector<std::string> groups,
                                 const std::string& verb, const std::string& ns,
                                 const std::string& group, const std::string& res,
                                 const std::string& sub = "", const std::string& name = "") {
    kube::authz::Attributes at;
    at.user.name = user;
    at.user.groups = std::move(groups);
    at.verb = verb;
    at.isResourceRequest = true;
    at.namespace_ = ns;
    at.apiGroup = group;
    at.apiVersion = "v1";
    at.resource = res;
    at.subresource = sub;
    at.name = name;
    return at;
}

kube::authz::Attributes path(const std::string& user, const std::string& p) {
    kube::authz::Attributes at;
    at.user.name = user;
    at.user.groups = {"system:authenticated"};
    at.verb = "get";
    at.path = p;
    return at;
}

// The policy of kube's policy checker tests, in YAML: each rule a level
// distinct enough that the first match is seen.
const char* kPolicy = R"(apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["Panic"]
rules:
- level: None
  users: ["system:kube-proxy"]
  verbs: ["watch"]
  resources:
  - group: ""
    resources: ["endpoints", "services"]
- level: RequestResponse
  userGroups: ["admins"]
  omitStages: ["RequestReceived"]
- level: Request
  resources:
  - group: ""
    resources: ["pods/log", "*/status"]
- level: Request
  resources:
  - group: "apps"
    resources: ["deployments/*"]
- level: Metadata
  resources:
  - group: ""
    resources: ["secrets", "configmaps"]
    resourceNames: ["special"]
  omitManagedFields: true
- level: RequestResponse
  namespaces: ["kube-system", ""]
  verbs: ["create", "update"]
- level: None
  nonResourceURLs: ["/healthz*", "/version", "/metr*"]
- level: Request
  resources:
  - group: "rbac.authorization.k8s.io"
- level: Metadata
)";

void first_matching_rule_decides_the_level(void**) {
    a::Policy p = load(kPolicy);
    using L = a::Level;
    struct Case {
        kube::authz::Attributes attrs;
        L want;
    } cases[] = {
        {resource("system:kube-proxy", {}, "watch", "default", "", "endpoints"), L::None},
        {resource("system:kube-proxy", {}, "list", "default", "", "endpoints"), L::Metadata},
        {resource("bob", {"admins"}, "get", "default", "", "pods"), L::RequestResponse},
        {resource("bob", {"devs"}, "get", "default", "", "pods", "log"), L::Request},
        {resource("bob", {}, "get", "default", "", "pods"), L::Metadata},
        // "*/status" matches any resource's status subresource, not the resource
        {resource("bob", {}, "update", "default", "", "nodes", "status"), L::Request},
        {resource("bob", {}, "update", "default", "", "status"), L::Metadata},
        // "deployments/*" matches every subresource of deployments and, as
        // kube's checker does, deployments themselves
        {resource("bob", {}, "update", "default", "apps", "deployments", "scale"), L::Request},
        {resource("bob", {}, "update", "default", "apps", "deployments"), L::Request},
        {resource("bob", {}, "update", "default", "apps", "replicasets"), L::Metadata},
        // resourceNames restrict the rule
        {resource("bob", {}, "get", "default", "", "secrets", "", "special"), L::Metadata},
        {resource("bob", {}, "get", "x", "", "secrets", "", "other"), L::Metadata},
        // namespaces: "" names cluster-scoped resources
        {resource("bob", {}, "create", "kube-system", "", "configmaps"), L::RequestResponse},
        {resource("bob", {}, "create", "", "", "namespaces"), L::RequestResponse},
        {resource("bob", {}, "delete", "", "", "namespaces"), L::Metadata},
        // a group with no resources matches all of the group
        {resource("bob", {}, "get", "", "rbac.authorization.k8s.io", "clusterroles"), L::Request},
        {path("bob", "/healthz"), L::None},
        {path("bob", "/healthz/etcd"), L::None},
        {path("bob", "/metrics"), L::None},
        {path("bob", "/version"), L::None},
        {path("bob", "/version/x"), L::Metadata},
        {path("bob", "/api"), L::Metadata},
    };
    for (auto& c : cases) {
        a::RequestAuditConfig got = p.evaluate(c.attrs);
        if (got.level != c.want) {
            fail_msg("%s %s %s/%s %s: level %s, want %s", c.attrs.user.name.c_str(),
                     c.attrs.verb.c_str(), c.attrs.resource.c_str(), c.attrs.subresource.c_str(),
                     c.attrs.path.c_str(), std::string(a::levelName(got.level)).c_str(),
                     std::string(a::levelName(c.want)).c_str());
        }
    }
}

void omit_stages_join_the_policy_and_the_rule(void**) {
    a::Policy p = load(kPolicy);
    a::RequestAuditConfig admin = p.evaluate(resource("bob", {"admins"}, "get", "d", "", "pods"));
    assert_true(admin.omitStages.has(a::Stage::RequestReceived));
    assert_true(admin.omitStages.has(a::Stage::Panic));
    assert_false(admin.omitStages.has(a::Stage::ResponseComplete));

    a::RequestAuditConfig other = p.evaluate(resource("bob", {}, "get", "d", "", "pods"));
    assert_false(other.omitStages.has(a::Stage::RequestReceived));
    assert_true(other.omitStages.has(a::Stage::Panic));
}

void omit_managed_fields_rule_overrides_the_policy(void**) {
    a::Policy p = load(kPolicy);
    assert_true(
        p.evaluate(resource("b", {}, "get", "d", "", "secrets", "", "special")).omitManagedFields);
    assert_false(p.evaluate(resource("b", {}, "get", "d", "", "pods")).omitManagedFields);

    a::Policy q = load(R"({"apiVersion":"audit.k8s.io/v1","kind":"Policy",
        "omitManagedFields":true,
        "rules":[{"level":"Request","users":["x"],"omitManagedFields":false},
                 {"level":"Request"}]})");
    assert_false(q.evaluate(resource("x", {}, "get", "d", "", "pods")).omitManagedFields);
    assert_true(q.evaluate(resource("y", {}, "get", "d", "", "pods")).omitManagedFields);
}

void no_matching_rule_is_level_none(void**) {
    a::Policy p = load(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n"
        "- level: Metadata\n  users: [alice]\n");
    assert_true(p.evaluate(resource("bob", {}, "get", "d", "", "pods")).level == a::Level::None);
    assert_true(p.evaluate(resource("alice", {}, "get", "d", "", "pods")).level ==
                a::Level::Metadata);
}

void a_rule_with_namespaces_does_not_match_non_resource_urls(void**) {
    a::Policy p = load(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n"
        "- level: None\n  namespaces: [x]\n- level: Request\n");
    assert_true(p.evaluate(path("bob", "/version")).level == a::Level::Request);
}

void invalid_policies_fail_with_kube_messages(void**) {
    assert_string_equal(
        loadError("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Foo\n").c_str(),
        "rules[0].level: Unsupported value: \"Foo\": supported values: \"None\", \"Metadata\", "
        "\"Request\", \"RequestResponse\"");
    assert_string_equal(loadError("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n").c_str(),
                        "loaded illegal policy with 0 rules");
    assert_string_equal(
        loadError("apiVersion: audit.k8s.io/v2\nkind: Policy\nrules:\n- level: None\n").c_str(),
        "failed decoding: no kind \"Policy\" is registered for version \"audit.k8s.io/v2\" in "
        "scheme \"k8s.io/apiserver/pkg/audit/scheme.go:30\"");
    assert_string_equal(loadError("rules:\n- level: None\n").c_str(),
                        "unknown group version field audit.k8s.io/__internal, Kind=Policy in "
                        "policy");
    assert_string_equal(
        loadError("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n"
                  "  users: alice\n")
            .c_str(),
        "failed decoding: json: cannot unmarshal string into Go struct field "
        "PolicyRule.rules.users of type []string");
    assert_string_equal(loadError("{not yaml: [").c_str(),
                        "failed decoding: couldn't get version/kind; json parse error: invalid "
                        "character 'n' looking for beginning of object key string");
    assert_string_equal(
        loadError("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n"
                  "- level: Metadata\n  nonResourceURLs: [\"healthz\", \"/a*b\"]\n"
                  "  namespaces: [\"x\"]\n- omitStages: [\"Bogus\"]\n  level: None\n"
                  "- level: None\n  resources:\n  - group: \"\"\n    resourceNames: [\"a\"]\n")
            .c_str(),
        "[rules[1].nonResourceURLs[0]: Invalid value: \"healthz\": non-resource URL rules must "
        "begin with a '/' character, rules[1].nonResourceURLs[1]: Invalid value: \"/a*b\": "
        "non-resource URL wildcards '*' must be the final character of the rule, "
        "rules[1].nonResourceURLs: Invalid value: []string{\"healthz\", \"/a*b\"}: rules cannot "
        "apply to both regular resources and non-resource URLs, rules[2].omitStages[0]: "
        "Invalid value: \"Bogus\": allowed stages are "
        "RequestReceived,ResponseStarted,ResponseComplete,Panic, "
        "rules[3].resources.resourceNames: Invalid value: []string{\"a\"}: using resourceNames "
        "requires at least one resource]");
    assert_string_equal(loadError("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n"
                                  "- {}\n")
                            .c_str(),
                        "rules[0].level: Required value");
}

void unknown_fields_are_ignored(void**) {
    a::Policy p = load(
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n"
        "  bogusField: 1\n");
    assert_int_equal(p.rules().size(), 1);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_matching_rule_decides_the_level),
        cmocka_unit_test(omit_stages_join_the_policy_and_the_rule),
        cmocka_unit_test(omit_managed_fields_rule_overrides_the_policy),
        cmocka_unit_test(no_matching_rule_is_level_none),
        cmocka_unit_test(a_rule_with_namespaces_does_not_match_non_resource_urls),
        cmocka_unit_test(invalid_policies_fail_with_kube_messages),
        cmocka_unit_test(unknown_fields_are_ignored),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
