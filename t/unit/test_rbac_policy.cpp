#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "authz/aggregation.hpp"
#include "authz/bootstrap_policy.hpp"
#include "authz/covers.hpp"
#include "authz/escalation.hpp"
#include "authz/policy_json.hpp"
#include "authz/reconcile.hpp"
#include "endpoints/request_info.hpp"
#include "fake_loop.hpp"
#include "server/server.hpp"
#include "storage/memory/memory_store.hpp"
#include "util/json.hpp"

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

#include "json_reading.hpp"

namespace json = kube::util::json;
namespace authz = kube::authz;
using authz::PolicyRule;
using kube::authn::UserInfo;
using kube::endpoints::HttpRequest;
using kube::endpoints::HttpResponse;
using kube::testing::FakeLoop;

namespace {

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

std::string canonical(std::string_view text) {
    return json::serialize(parse(text));
}

const authz::BootstrapObject* find(std::string_view resource, std::string_view ns,
                                   std::string_view name) {
    for (const auto& o : authz::bootstrapPolicy()) {
        if (o.resource == resource && o.namespace_ == ns && o.name == name) {
            return &o;
        }
    }
    return nullptr;
}

std::string member(const authz::BootstrapObject* o, std::string_view field) {
    if (o == nullptr) {
        fail_msg("no such bootstrap object");
    }
    const json::Value* v = json::member(*o->object, field);
    return v ? json::serialize(*v) : "<absent>";
}

// --- the bootstrap policy ---------------------------------------------------

void bootstrap_policy_has_kubes_objects(void**) {
    std::map<std::string, int> counts;
    for (const auto& o : authz::bootstrapPolicy()) {
        counts[o.resource]++;
        const json::Value& meta = (*o.object)["metadata"];
        assert_string_equal(json::serialize(*json::member(meta, "annotations")).c_str(),
                            R"({"rbac.authorization.kubernetes.io/autoupdate":"true"})");
        assert_string_equal(
            json::serialize(*json::at(meta, {"labels", "kubernetes.io/bootstrapping"})).c_str(),
            "\"rbac-defaults\"");
    }
    assert_int_equal(counts["clusterroles"], 68);
    assert_int_equal(counts["clusterrolebindings"], 49);
    assert_int_equal(counts["roles"], 7);
    assert_int_equal(counts["rolebindings"], 7);
    for (const char* name : {"cluster-admin",
                             "admin",
                             "edit",
                             "view",
                             "system:aggregate-to-admin",
                             "system:aggregate-to-edit",
                             "system:aggregate-to-view",
                             "system:discovery",
                             "system:basic-user",
                             "system:public-info-viewer",
                             "system:monitoring",
                             "system:node",
                             "system:node-proxier",
                             "system:kube-controller-manager",
                             "system:kube-scheduler",
                             "system:volume-scheduler",
                             "system:kube-dns",
                             "system:heapster",
                             "system:auth-delegator",
                             "system:service-account-issuer-discovery",
                             "system:certificates.k8s.io:kube-apiserver-client-approver",
                             "system:controller:clusterrole-aggregation-controller",
                             "system:controller:namespace-controller",
                             "system:controller:service-cidrs-controller",
                             "system:controller:legacy-service-account-token-cleaner"}) {
        if (find("clusterroles", "", name) == nullptr) {
            fail_msg("no clusterrole %s", name);
        }
    }
    for (const char* ns_name : {"kube-system/extension-apiserver-authentication-reader",
                                "kube-system/system::leader-locking-kube-controller-manager",
                                "kube-public/system:controller:bootstrap-signer"}) {
        std::string_view s = ns_name;
        size_t slash = s.find('/');
        assert_non_null(find("roles", s.substr(0, slash), s.substr(slash + 1)));
    }
}

void bootstrap_policy_rules_are_kubes(void**) {
    assert_string_equal(
        member(find("clusterroles", "", "cluster-admin"), "rules").c_str(),
        R"([{"verbs":["*"],"apiGroups":["*"],"resources":["*"]},{"verbs":["*"],"nonResourceURLs":["*"]}])");
    assert_string_equal(
        member(find("clusterroles", "", "system:public-info-viewer"), "rules").c_str(),
        R"([{"verbs":["get"],"nonResourceURLs":["/healthz","/livez","/readyz","/version","/version/"]}])");
    assert_string_equal(
        member(find("clusterroles", "", "system:basic-user"), "rules").c_str(),
        R"([{"verbs":["create"],"apiGroups":["authorization.k8s.io"],)"
        R"("resources":["selfsubjectaccessreviews","selfsubjectrulesreviews"]},)"
        R"({"verbs":["create"],"apiGroups":["authentication.k8s.io"],"resources":["selfsubjectreviews"]}])");
    assert_string_equal(
        member(find("clusterroles", "", "admin"), "aggregationRule").c_str(),
        R"({"clusterRoleSelectors":[{"matchLabels":{"rbac.authorization.k8s.io/aggregate-to-admin":"true"}}]})");
    assert_string_equal(member(find("clusterroles", "", "admin"), "rules").c_str(), "null");
    assert_string_equal(
        json::serialize((*find("clusterroles", "", "edit")->object)["metadata"]["labels"]).c_str(),
        R"({"kubernetes.io/bootstrapping":"rbac-defaults","rbac.authorization.k8s.io/aggregate-to-admin":"true"})");
    // Resource names and several groups.
    assert_string_equal(
        member(find("roles", "kube-system", "system::leader-locking-kube-scheduler"), "rules")
            .c_str(),
        R"([{"verbs":["watch"],"apiGroups":[""],"resources":["configmaps"]},)"
        R"({"verbs":["get","update"],"apiGroups":[""],"resources":["configmaps"],"resourceNames":["kube-scheduler"]}])");
    assert_string_equal(
        member(find("clusterrolebindings", "", "cluster-admin"), "roleRef").c_str(),
        R"({"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"})");
    assert_string_equal(
        member(find("clusterrolebindings", "", "cluster-admin"), "subjects").c_str(),
        R"([{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"system:masters"}])");
    assert_string_equal(
        member(find("clusterrolebindings", "", "system:public-info-viewer"), "subjects").c_str(),
        R"([{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"system:authenticated"},)"
        R"({"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"system:unauthenticated"}])");
    assert_string_equal(
        member(find("clusterrolebindings", "", "system:controller:job-controller"), "subjects")
            .c_str(),
        R"([{"kind":"ServiceAccount","name":"job-controller","namespace":"kube-system"}])");
}

// --- Covers -------------------------------------------------------------------

PolicyRule rule(std::vector<std::string> verbs, std::vector<std::string> groups,
                std::vector<std::string> resources, std::vector<std::string> names = {}) {
    return {std::move(verbs), std::move(groups), std::move(resources), std::move(names), {}};
}

PolicyRule urls(std::vector<std::string> verbs, std::vector<std::string> paths) {
    return {std::move(verbs), {}, {}, {}, std::move(paths)};
}

void covers_follows_kubes_policy_comparator(void**) {
    std::vector<PolicyRule> admin = {rule({"*"}, {"*"}, {"*"}), urls({"*"}, {"*"})};
    assert_true(authz::covers(
        admin, {rule({"get"}, {"apps"}, {"deployments"}, {"x"}), urls({"get"}, {"/healthz"})}));
    // Verbs, groups and resources must each be held.
    std::vector<PolicyRule> pods = {rule({"get", "list"}, {""}, {"pods"})};
    assert_true(authz::covers(pods, {rule({"get"}, {""}, {"pods"})}));
    assert_false(authz::covers(pods, {rule({"delete"}, {""}, {"pods"})}));
    assert_false(authz::covers(pods, {rule({"get"}, {"apps"}, {"pods"})}));
    assert_false(authz::covers(pods, {rule({"get"}, {""}, {"pods/log"})}));
    // */scale covers every scale subresource, and nothing else.
    std::vector<PolicyRule> scale = {rule({"get"}, {"*"}, {"*/scale"})};
    assert_true(authz::covers(scale, {rule({"get"}, {"apps"}, {"deployments/scale"})}));
    assert_false(authz::covers(scale, {rule({"get"}, {"apps"}, {"deployments"})}));
    // Resource names: a named rule never covers all names; an unnamed one covers any.
    std::vector<PolicyRule> named = {rule({"get"}, {""}, {"configmaps"}, {"a", "b"})};
    assert_true(authz::covers(named, {rule({"get"}, {""}, {"configmaps"}, {"a"})}));
    assert_false(authz::covers(named, {rule({"get"}, {""}, {"configmaps"}, {"c"})}));
    assert_false(authz::covers(named, {rule({"get"}, {""}, {"configmaps"})}));
    assert_true(authz::covers({rule({"get"}, {""}, {"configmaps"})},
                              {rule({"get"}, {""}, {"configmaps"}, {"c"})}));
    // Non-resource URLs: exact, or a trailing * as a prefix.
    std::vector<PolicyRule> health = {urls({"get"}, {"/healthz", "/api/*"})};
    assert_true(authz::covers(health, {urls({"get"}, {"/healthz", "/api/v1", "/api/"})}));
    assert_false(authz::covers(health, {urls({"get"}, {"/healthz/etcd"})}));
    assert_false(authz::covers(health, {urls({"get"}, {"/api"})}));
    assert_false(authz::covers(health, {urls({"post"}, {"/healthz"})}));
    // Resource rules never cover URLs and the reverse.
    assert_false(authz::covers({rule({"*"}, {"*"}, {"*"})}, {urls({"get"}, {"/version"})}));
    // What is missing is broken down to one verb, group, resource and name.
    std::vector<PolicyRule> missing =
        authz::uncoveredRules(pods, {rule({"get", "delete"}, {"", "apps"}, {"pods"})});
    assert_int_equal(missing.size(), 3);
    assert_string_equal(authz::compactString(missing[0]).c_str(),
                        R"({APIGroups:[""], Resources:["pods"], Verbs:["delete"]})");
}

UserInfo user(std::string name, std::vector<std::string> groups) {
    UserInfo u;
    u.name = std::move(name);
    u.groups = std::move(groups);
    return u;
}

// The messages kube-apiserver 1.26.5 answered for the same requests.
void escalation_messages_are_kubes(void**) {
    UserInfo bob = user("bob", {"g1", "g2", "system:authenticated"});
    std::optional<std::string> msg =
        authz::escalationError(bob, {},
                               {rule({"get", "list", "delete"}, {"", "apps"},
                                     {"pods", "deployments", "secrets"}, {"a", "b"})},
                               {});
    assert_true(msg.has_value());
    // kubectl create role --resource=pods,deployments.apps,secrets: one rule per group.
    msg = authz::escalationError(
        bob, {},
        {rule({"get", "list", "delete"}, {""}, {"pods", "secrets"}, {"a", "b"}),
         rule({"get", "list", "delete"}, {"apps"}, {"deployments"}, {"a", "b"})},
        {});
    assert_string_equal(
        msg->c_str(),
        "user \"bob\" (groups=[\"g1\" \"g2\" \"system:authenticated\"]) is attempting to grant "
        "RBAC permissions not currently held:\n"
        "{APIGroups:[\"\"], Resources:[\"pods\"], ResourceNames:[\"a\"], Verbs:[\"get\" \"list\" "
        "\"delete\"]}\n"
        "{APIGroups:[\"\"], Resources:[\"pods\"], ResourceNames:[\"b\"], Verbs:[\"get\" \"list\" "
        "\"delete\"]}\n"
        "{APIGroups:[\"\"], Resources:[\"secrets\"], ResourceNames:[\"a\"], Verbs:[\"get\" "
        "\"list\" \"delete\"]}\n"
        "{APIGroups:[\"\"], Resources:[\"secrets\"], ResourceNames:[\"b\"], Verbs:[\"get\" "
        "\"list\" \"delete\"]}\n"
        "{APIGroups:[\"apps\"], Resources:[\"deployments\"], ResourceNames:[\"a\"], Verbs:[\"get\" "
        "\"list\" \"delete\"]}\n"
        "{APIGroups:[\"apps\"], Resources:[\"deployments\"], ResourceNames:[\"b\"], Verbs:[\"get\" "
        "\"list\" \"delete\"]}");
    msg = authz::escalationError(user("bob", {"system:authenticated"}), {},
                                 {urls({"get", "post"}, {"/foo", "/bar/*"})}, {});
    assert_string_equal(
        msg->c_str(),
        "user \"bob\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions "
        "not currently held:\n"
        "{NonResourceURLs:[\"/bar/*\"], Verbs:[\"get\"]}\n"
        "{NonResourceURLs:[\"/bar/*\"], Verbs:[\"post\"]}\n"
        "{NonResourceURLs:[\"/foo\"], Verbs:[\"get\"]}\n"
        "{NonResourceURLs:[\"/foo\"], Verbs:[\"post\"]}");
    // Held rules drop out; resolution errors follow.
    msg = authz::escalationError(user("bob", {}), {rule({"get"}, {""}, {"pods"})},
                                 {rule({"get", "list"}, {""}, {"pods"})},
                                 {"clusterrole.rbac.authorization.k8s.io \"x\" not found"});
    assert_string_equal(
        msg->c_str(),
        "user \"bob\" (groups=[]) is attempting to grant RBAC permissions not "
        "currently held:\n{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"list\"]}"
        "; resolution errors: [clusterrole.rbac.authorization.k8s.io \"x\" not found]");
    assert_false(authz::escalationError(bob, {rule({"*"}, {""}, {"pods"})},
                                        {rule({"get", "list"}, {""}, {"pods"})}, {})
                     .has_value());
}

// --- reconciliation ---------------------------------------------------------

void reconcile_adds_what_is_missing_and_keeps_the_rest(void**) {
    json::Document expected =
        parse(R"({"metadata":{"name":"r","labels":{"kubernetes.io/bootstrapping":"rbac-defaults"},)"
              R"("annotations":{"rbac.authorization.kubernetes.io/autoupdate":"true"}},)"
              R"("rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]})");
    authz::Reconciled r = authz::reconcileRole(expected, nullptr);
    assert_true(r.operation == authz::ReconcileOperation::Create);

    // A stored role lacking "list", with an extra rule and its own label.
    json::Document stored =
        parse(R"({"metadata":{"name":"r","resourceVersion":"7","labels":{"mine":"x"},)"
              R"("annotations":{"rbac.authorization.kubernetes.io/autoupdate":"true"}},)"
              R"("rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]},)"
              R"({"verbs":["delete"],"apiGroups":[""],"resources":["secrets"]}]})");
    r = authz::reconcileRole(expected, &stored);
    assert_true(r.operation == authz::ReconcileOperation::Update);
    assert_string_equal(
        json::serialize(*r.object).c_str(),
        canonical(R"({"metadata":{"name":"r","resourceVersion":"7","labels":{"mine":"x",)"
                  R"("kubernetes.io/bootstrapping":"rbac-defaults"},)"
                  R"("annotations":{"rbac.authorization.kubernetes.io/autoupdate":"true"}},)"
                  R"("rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]},)"
                  R"({"verbs":["delete"],"apiGroups":[""],"resources":["secrets"]},)"
                  R"({"verbs":["list"],"apiGroups":[""],"resources":["pods"]}]})")
            .c_str());

    // Up to date: nothing to do.
    r = authz::reconcileRole(expected, &expected);
    assert_true(r.operation == authz::ReconcileOperation::None);

    // autoupdate "false" protects it, whatever it lacks.
    json::Document protectedRole = parse(
        R"({"metadata":{"name":"r","annotations":{"rbac.authorization.kubernetes.io/autoupdate":"false"}},"rules":[]})");
    r = authz::reconcileRole(expected, &protectedRole);
    assert_true(r.operation == authz::ReconcileOperation::None);
    assert_true(r.isProtected);
    assert_null(r.object.get());
}

void reconcile_unions_binding_subjects_and_recreates_on_new_role_ref(void**) {
    json::Document expected = parse(
        R"({"metadata":{"name":"b","annotations":{"rbac.authorization.kubernetes.io/autoupdate":"true"}},)"
        R"("roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"c"},)"
        R"("subjects":[{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"g"}]})");
    json::Document stored = parse(
        R"({"metadata":{"name":"b","resourceVersion":"3","annotations":{"rbac.authorization.kubernetes.io/autoupdate":"true"}},)"
        R"("roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"c"},)"
        R"("subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"u"}]})");
    authz::Reconciled r = authz::reconcileBinding(expected, &stored);
    assert_true(r.operation == authz::ReconcileOperation::Update);
    assert_string_equal(json::serialize((*r.object)["subjects"]).c_str(),
                        R"([{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"u"},)"
                        R"({"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"g"}])");
    json::Document otherRef = parse(json::serialize(stored));
    otherRef["roleRef"]["name"].SetString("d");
    r = authz::reconcileBinding(expected, &otherRef);
    assert_true(r.operation == authz::ReconcileOperation::Recreate);
    assert_string_equal(json::serialize((*r.object)["roleRef"]["name"]).c_str(), "\"c\"");
    assert_null(json::at(*r.object, {"metadata", "resourceVersion"}));
}

// --- aggregation --------------------------------------------------------------

void aggregation_unions_matching_roles_by_name(void**) {
    json::Document agg = parse(
        R"({"metadata":{"name":"agg"},"aggregationRule":{"clusterRoleSelectors":[)"
        R"({"matchLabels":{"a":"1"}},{"matchExpressions":[{"key":"b","operator":"Exists"}]}]},"rules":null})");
    json::Document z = parse(
        R"({"metadata":{"name":"z","labels":{"a":"1"}},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]})");
    json::Document y = parse(
        R"({"metadata":{"name":"y","labels":{"a":"1","b":"x"}},"rules":[{"verbs":["list"],"apiGroups":[""],"resources":["pods"]},{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]})");
    json::Document other = parse(
        R"({"metadata":{"name":"o","labels":{"a":"2"}},"rules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]})");
    std::vector<const json::Value*> all = {&agg, &z, &y, &other};
    std::optional<json::Document> rules = authz::aggregatedRules(agg, all);
    assert_true(rules.has_value());
    assert_string_equal(json::serialize(*rules).c_str(),
                        R"([{"verbs":["list"],"apiGroups":[""],"resources":["pods"]},)"
                        R"({"verbs":["get"],"apiGroups":[""],"resources":["pods"]}])");
    // Already aggregated: nothing to write.
    agg["rules"].CopyFrom(*rules, agg.GetAllocator());
    assert_false(authz::aggregatedRules(agg, all).has_value());
    // Not aggregated: never touched.
    assert_false(authz::aggregatedRules(z, all).has_value());
}

// --- the server ---------------------------------------------------------------

// Grants what a table says: rules per user name, `escalate`/`bind` by
// "verb resource name" strings.
struct FakeRbac : authz::RuleResolver, authz::Authorizer {
    std::map<std::string, std::vector<PolicyRule>> rules;
    std::set<std::string> allowed;

    std::vector<PolicyRule> rulesFor(const UserInfo& u, std::string_view,
                                     std::vector<std::string>*) const override {
        auto it = rules.find(u.name);
        return it == rules.end() ? std::vector<PolicyRule>{} : it->second;
    }
    authz::Result authorize(const authz::Attributes& a) const override {
        std::string key = a.user.name + " " + a.verb + " " + a.resource + " " + a.name;
        return {allowed.count(key) ? authz::Decision::Allow : authz::Decision::NoOpinion, ""};
    }
};

struct Fixture {
    FakeLoop loop;
    kube::storage::memory::Store memory{loop};
    std::unique_ptr<kube::server::Server> server;
    FakeRbac rbac;

    Fixture() { startServer(); }

    // A new server on the same store: a restart.
    void startServer() {
        kube::server::ServerOptions opts;
        opts.rbacPolicyOwner = true;
        server = std::make_unique<kube::server::Server>(loop, memory, opts);
        server->enableEscalationChecks(rbac, rbac);
        server->start();
        settle();
        assert_true(server->ready());
    }

    // Lets writes, watch events and aggregation passes run to the end.
    void settle() {
        for (int i = 0; i < 20; ++i) {
            loop.run();
            server->pollChanges();
            if (loop.run() == 0) {
                break;
            }
        }
    }

    HttpResponse send(std::string method, std::string url, std::string body = "",
                      const UserInfo* as = nullptr) {
        auto keep =
            std::make_shared<std::vector<std::string>>(std::vector<std::string>{method, url, body});
        std::string& u = (*keep)[1];
        size_t mark = u.find('?');
        auto path = std::make_shared<std::string>(u.substr(0, mark));
        auto info = std::make_shared<kube::endpoints::RequestInfo>(
            kube::endpoints::resolveRequestInfo((*keep)[0], *path, ""));
        HttpRequest req;
        req.method = (*keep)[0];
        req.path = *path;
        req.accept = "application/json";
        req.contentType = "application/json";
        req.host = "127.0.0.1:6443";
        req.body = (*keep)[2];
        req.info = info.get();
        req.user = as;
        auto out = std::make_shared<std::optional<HttpResponse>>();
        server->serve(req, [out, keep, path, info](HttpResponse&& r) { *out = std::move(r); });
        settle();
        if (!*out) {
            fail_msg("%s %s: no response", method.c_str(), url.c_str());
        }
        return std::move(**out);
    }

    json::Document get(const std::string& url) {
        HttpResponse r = send("GET", url);
        if (r.status != 200) {
            fail_msg("GET %s: %d %s", url.c_str(), r.status, r.body.c_str());
        }
        return parse(r.body);
    }
};

const char* kClusterRoles = "/apis/rbac.authorization.k8s.io/v1/clusterroles";

void expectCode(const HttpResponse& r, int code) {
    if (r.status != code) {
        fail_msg("want %d, got %d: %s", code, r.status, r.body.c_str());
    }
}

void first_start_creates_the_policy_and_aggregates(void**) {
    Fixture f;
    const authz::BootstrapSummary* s = f.server->bootstrapSummary();
    assert_non_null(s);
    assert_int_equal(s->created, authz::bootstrapPolicy().size());
    assert_int_equal(s->errors.size(), 0);
    json::Document list = f.get(kClusterRoles);
    assert_int_equal(list["items"].Size(), 68);
    json::Document binding =
        f.get("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin");
    assert_string_equal(
        json::serialize(binding["subjects"]).c_str(),
        R"([{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"system:masters"}])");
    f.get(
        "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/"
        "extension-apiserver-authentication-reader");
    // view holds aggregate-to-view's rules; edit also view's; admin also edit's.
    std::vector<PolicyRule> toView =
        authz::rulesOf(f.get(std::string(kClusterRoles) + "/system:aggregate-to-view"));
    std::vector<PolicyRule> view = authz::rulesOf(f.get(std::string(kClusterRoles) + "/view"));
    std::vector<PolicyRule> edit = authz::rulesOf(f.get(std::string(kClusterRoles) + "/edit"));
    std::vector<PolicyRule> admin = authz::rulesOf(f.get(std::string(kClusterRoles) + "/admin"));
    assert_true(view == toView);
    assert_true(authz::covers(edit, view));
    assert_true(authz::covers(admin, edit));
    assert_false(authz::covers(view, edit));
    assert_true(
        authz::covers(admin, {rule({"create"}, {"rbac.authorization.k8s.io"}, {"rolebindings"})}));

    // A labelled role joins view (and so edit and admin), and leaves it when deleted.
    expectCode(
        f.send(
            "POST", kClusterRoles,
            R"({"metadata":{"name":"widgets","labels":{"rbac.authorization.k8s.io/aggregate-to-view":"true"}},)"
            R"("rules":[{"verbs":["get"],"apiGroups":["example.com"],"resources":["widgets"]}]})"),
        201);
    PolicyRule widgets = rule({"get"}, {"example.com"}, {"widgets"});
    for (const char* name : {"/view", "/edit", "/admin"}) {
        assert_true(
            authz::covers(authz::rulesOf(f.get(std::string(kClusterRoles) + name)), {widgets}));
    }
    expectCode(f.send("DELETE", std::string(kClusterRoles) + "/widgets"), 200);
    for (const char* name : {"/view", "/edit", "/admin"}) {
        assert_false(
            authz::covers(authz::rulesOf(f.get(std::string(kClusterRoles) + name)), {widgets}));
    }
}

void restart_reconciles_autoupdate_roles_only(void**) {
    Fixture f;
    // Strip system:discovery (autoupdate true) and system:basic-user (now false).
    json::Document discovery = f.get(std::string(kClusterRoles) + "/system:discovery");
    discovery["rules"].SetArray();
    expectCode(
        f.send("PUT", std::string(kClusterRoles) + "/system:discovery", json::serialize(discovery)),
        200);
    json::Document basic = f.get(std::string(kClusterRoles) + "/system:basic-user");
    basic["rules"].SetArray();
    basic["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"].SetString(
        "false");
    expectCode(
        f.send("PUT", std::string(kClusterRoles) + "/system:basic-user", json::serialize(basic)),
        200);
    // A binding that lost its subject, and a deleted role.
    expectCode(f.send("DELETE", std::string(kClusterRoles) + "/system:heapster"), 200);

    f.startServer();
    const authz::BootstrapSummary* s = f.server->bootstrapSummary();
    assert_int_equal(s->created, 1);
    assert_int_equal(s->updated, 1);
    assert_int_equal(s->protectedObjects, 1);
    assert_true(
        authz::covers(authz::rulesOf(f.get(std::string(kClusterRoles) + "/system:discovery")),
                      {urls({"get"}, {"/api", "/apis/*", "/version/", "/openapi/v2"})}));
    assert_int_equal(
        authz::rulesOf(f.get(std::string(kClusterRoles) + "/system:basic-user")).size(), 0);
    f.get(std::string(kClusterRoles) + "/system:heapster");
}

void escalation_is_refused_unless_held_or_escalate_or_bind(void**) {
    Fixture f;
    UserInfo bob = user("bob", {"system:authenticated"});
    UserInfo master = user("root", {"system:masters", "system:authenticated"});
    const std::string roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
    const std::string bindings =
        "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";
    const char* podReader =
        R"({"metadata":{"name":"pod-reader"},"rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}]})";
    HttpResponse r = f.send("POST", roles, podReader, &bob);
    expectCode(r, 403);
    json::Document st = parse(r.body);
    assert_string_equal(
        json::view(st["message"]).data(),
        "roles.rbac.authorization.k8s.io \"pod-reader\" is forbidden: user \"bob\" "
        "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions "
        "not currently held:\n{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"get\" \"list\"]}");
    // Held rules may be granted.
    f.rbac.rules["bob"] = {rule({"get", "list", "watch"}, {""}, {"pods"})};
    expectCode(f.send("POST", roles, podReader, &bob), 201);
    // Widening it is not, unless bob holds escalate on roles.
    const char* wider =
        R"({"metadata":{"name":"pod-reader"},"rules":[{"verbs":["get","list","delete"],"apiGroups":[""],"resources":["pods"]}]})";
    expectCode(f.send("PUT", roles + "/pod-reader", wider, &bob), 403);
    f.rbac.allowed.insert("bob escalate roles pod-reader");
    expectCode(f.send("PUT", roles + "/pod-reader", wider, &bob), 200);

    // Binding: only to a role whose rules bob holds, or with bind on it.
    const char* bindAdmin =
        R"({"metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"admin"},)"
        R"("subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"eve"}]})";
    r = f.send("POST", bindings, bindAdmin, &bob);
    expectCode(r, 403);
    assert_true(std::string(json::view(parse(r.body)["message"]))
                    .starts_with(
                        "rolebindings.rbac.authorization.k8s.io \"b\" is forbidden: user \"bob\""));
    f.rbac.allowed.insert("bob bind clusterroles admin");
    expectCode(f.send("POST", bindings, bindAdmin, &bob), 201);
    // A binding to a missing role: its NotFound.
    r = f.send(
        "POST", bindings,
        R"({"metadata":{"name":"c"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"nope"},"subjects":[]})",
        &bob);
    expectCode(r, 404);
    assert_string_equal(json::view(parse(r.body)["message"]).data(),
                        "roles.rbac.authorization.k8s.io \"nope\" not found");

    // An aggregation rule needs full authority, even with no rules.
    const char* agg =
        R"({"metadata":{"name":"agg"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"x":"y"}}]}})";
    r = f.send("POST", kClusterRoles, agg, &bob);
    expectCode(r, 403);
    assert_string_equal(json::view(parse(r.body)["message"]).data(),
                        "clusterroles.rbac.authorization.k8s.io \"agg\" is forbidden: must have "
                        "cluster-admin privileges to use the aggregationRule");
    f.rbac.rules["bob"] = {rule({"*"}, {"*"}, {"*"}), urls({"*"}, {"*"})};
    expectCode(f.send("POST", kClusterRoles, agg, &bob), 201);
    // system:masters always passes.
    expectCode(
        f.send(
            "POST", kClusterRoles,
            R"({"metadata":{"name":"anything"},"rules":[{"verbs":["*"],"nonResourceURLs":["*"]}]})",
            &master),
        201);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bootstrap_policy_has_kubes_objects),
        cmocka_unit_test(bootstrap_policy_rules_are_kubes),
        cmocka_unit_test(covers_follows_kubes_policy_comparator),
        cmocka_unit_test(escalation_messages_are_kubes),
        cmocka_unit_test(reconcile_adds_what_is_missing_and_keeps_the_rest),
        cmocka_unit_test(reconcile_unions_binding_subjects_and_recreates_on_new_role_ref),
        cmocka_unit_test(aggregation_unions_matching_roles_by_name),
        cmocka_unit_test(first_start_creates_the_policy_and_aggregates),
        cmocka_unit_test(restart_reconciles_autoupdate_roles_only),
        cmocka_unit_test(escalation_is_refused_unless_held_or_escalate_or_bind),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
