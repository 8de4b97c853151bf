#include <map>
#include <memory>
#include <string>
#include <vector>

#include "flowcontrol/bootstrap.hpp"
#include "flowcontrol/controller.hpp"
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

namespace json = kube::util::json;
namespace fc = kube::flowcontrol;
using kube::authz::Attributes;

namespace {

// A controller holding the bootstrap configuration, each object with a uid.
std::unique_ptr<fc::Controller> bootstrapped(int total = fc::kDefaultServerConcurrencyLimit) {
    auto c = std::make_unique<fc::Controller>();
    for (const fc::BootstrapObject& o : fc::bootstrapConfiguration()) {
        json::Document d;
        d.CopyFrom(*o.object, d.GetAllocator());
        json::setMember(d["metadata"], "uid", json::stringValue("uid-" + o.name, d.GetAllocator()),
                        d.GetAllocator());
        c->put(o.resource == "flowschemas", d);
    }
    c->setServerConcurrencyLimit(total);
    return c;
}

Attributes resource(std::string user, std::vector<std::string> groups, std::string verb,
                    std::string group, std::string res, std::string ns,
                    std::string sub = "") {
    Attributes a;
    a.user.name = std::move(user);
    a.user.groups = std::move(groups);
    a.verb = std::move(verb);
    a.isResourceRequest = true;
    a.apiGroup = std::move(group);
    a.resource = std::move(res);
    a.subresource = std::move(sub);
    a.namespace_ = std::move(ns);
    return a;
}

Attributes nonResource(std::string user, std::vector<std::string> groups, std::string path) {
    Attributes a;
    a.user.name = std::move(user);
    a.user.groups = std::move(groups);
    a.verb = "get";
    a.path = std::move(path);
    return a;
}

void expectSchema(const fc::Controller& c, const Attributes& a, const char* schema,
                  const char* level, const char* distinguisher) {
    const fc::Decision* d = c.classify(a);
    assert_non_null(d);
    assert_string_equal(d->flowSchemaName.c_str(), schema);
    assert_string_equal(d->flowSchemaUid.c_str(), ("uid-" + std::string(schema)).c_str());
    assert_non_null(d->level.get());
    assert_string_equal(d->level->name.c_str(), level);
    assert_string_equal(d->flowDistinguisher.c_str(), distinguisher);
    assert_true(d->flowHash == fc::hashFlowID(schema, distinguisher));
}

const std::vector<std::string> kNode = {"system:nodes", "system:authenticated"};
const std::vector<std::string> kServiceAccount = {"system:serviceaccounts",
                                                  "system:serviceaccounts:kube-system",
                                                  "system:authenticated"};

void bootstrap_has_kubes_objects(void**) {
    std::map<std::string, int> precedence;
    std::map<std::string, std::string> levelOf;
    std::map<std::string, int64_t> shares;
    for (const fc::BootstrapObject& o : fc::bootstrapConfiguration()) {
        const json::Value& spec = (*o.object)["spec"];
        assert_string_equal(
            json::stringMember((*o.object)["metadata"]["annotations"],
                               fc::kAutoUpdateSpecAnnotation)
                .data(),
            "true");
        if (o.resource == "flowschemas") {
            precedence[o.name] = spec["matchingPrecedence"].GetInt();
            levelOf[o.name] = json::stringMember(spec["priorityLevelConfiguration"], "name");
        } else if (const json::Value* l = json::member(spec, "limited")) {
            shares[o.name] = (*l)["nominalConcurrencyShares"].GetInt64();
        }
    }
    assert_int_equal(precedence.size(), 13);
    assert_int_equal(shares.size(), 7);  // and exempt
    assert_int_equal(precedence["exempt"], 1);
    assert_int_equal(precedence["probes"], 2);
    assert_int_equal(precedence["system-leader-election"], 100);
    assert_int_equal(precedence["endpoint-controller"], 150);
    assert_int_equal(precedence["system-node-high"], 400);
    assert_int_equal(precedence["system-nodes"], 500);
    assert_int_equal(precedence["kube-controller-manager"], 800);
    assert_int_equal(precedence["kube-system-service-accounts"], 900);
    assert_int_equal(precedence["service-accounts"], 9000);
    assert_int_equal(precedence["global-default"], 9900);
    assert_int_equal(precedence["catch-all"], 10000);
    assert_string_equal(levelOf["probes"].c_str(), "exempt");
    assert_string_equal(levelOf["system-node-high"].c_str(), "node-high");
    assert_string_equal(levelOf["workload-leader-election"].c_str(), "leader-election");
    assert_int_equal(shares["catch-all"], 5);
    assert_int_equal(shares["workload-low"], 100);
    assert_int_equal(shares["node-high"], 40);
    assert_non_null(fc::mandatoryObject("flowschemas", "catch-all"));
    assert_non_null(fc::mandatoryObject("prioritylevelconfigurations", "exempt"));
    assert_null(fc::mandatoryObject("flowschemas", "global-default"));
}

// The figures kube-apiserver 1.26 reports for the same objects and 600 seats
// (apiserver_flowcontrol_nominal_limit_seats, lower = nominal - lendable).
void seats_of_the_default_set_are_kubes(void**) {
    auto c = bootstrapped();
    std::map<std::string, std::shared_ptr<const fc::Level>> byName;
    for (const auto& l : c->configuration()->levels) {
        byName[l->name] = l;
    }
    assert_int_equal(c->configuration()->serverConcurrencyLimit, 600);
    const std::map<std::string, std::pair<int, int>> want = {
        {"catch-all", {13, 13}},       {"global-default", {49, 24}}, {"leader-election", {25, 25}},
        {"node-high", {98, 73}},       {"system", {74, 50}},         {"workload-high", {98, 49}},
        {"workload-low", {245, 24}},
    };
    for (const auto& [name, seats] : want) {
        const fc::Level& l = *byName.at(name);
        assert_int_equal(l.nominalSeats, seats.first);
        assert_int_equal(l.nominalSeats - l.lendableSeats, seats.second);
        assert_int_equal(l.borrowingSeats, -1);
        assert_false(l.exempt);
    }
    assert_true(byName.at("exempt")->exempt);
    assert_int_equal(byName.at("exempt")->nominalSeats, 0);
    assert_true(byName.at("catch-all")->reject);
    assert_int_equal(byName.at("workload-high")->queuing.queues, 128);
    assert_int_equal(byName.at("leader-election")->queuing.handSize, 4);

    // A new total recomputes every level; a borrowing limit is a share of nominal.
    c->setServerConcurrencyLimit(245);
    byName.clear();
    for (const auto& l : c->configuration()->levels) {
        byName[l->name] = l;
    }
    assert_int_equal(byName.at("workload-low")->nominalSeats, 100);
    std::vector<std::shared_ptr<fc::Level>> levels = {std::make_shared<fc::Level>()};
    levels[0]->nominalConcurrencyShares = 10;
    levels[0]->lendablePercent = 25;
    levels[0]->borrowingLimitPercent = 150;
    fc::computeSeats(3, levels);
    assert_int_equal(levels[0]->nominalSeats, 3);
    assert_int_equal(levels[0]->lendableSeats, 1);  // round(0.75)
    assert_int_equal(levels[0]->borrowingSeats, 5);  // round(4.5), away from zero
}

void requests_are_classified_as_kube_does(void**) {
    auto c = bootstrapped();
    expectSchema(*c, resource("system:node:n1", kNode, "get", "", "pods", "default"),
                 "system-nodes", "system", "system:node:n1");
    expectSchema(*c, resource("system:node:n1", kNode, "patch", "", "nodes", "", "status"),
                 "system-node-high", "node-high", "system:node:n1");
    expectSchema(*c,
                 resource("system:serviceaccount:kube-system:deployment-controller",
                          kServiceAccount, "list", "apps", "replicasets", "team-a"),
                 "kube-system-service-accounts", "workload-high", "team-a");
    expectSchema(*c,
                 resource("system:serviceaccount:kube-system:x", kServiceAccount, "update",
                          "coordination.k8s.io", "leases", "kube-system"),
                 "system-leader-election", "leader-election", "system:serviceaccount:kube-system:x");
    expectSchema(*c,
                 resource("system:serviceaccount:default:app",
                          {"system:serviceaccounts", "system:authenticated"}, "get", "", "pods",
                          "default"),
                 "service-accounts", "workload-low", "system:serviceaccount:default:app");
    expectSchema(*c, resource("system:kube-scheduler", {"system:authenticated"}, "list", "",
                              "nodes", ""),
                 "kube-scheduler", "workload-high", "");
    expectSchema(*c, resource("admin", {"system:masters", "system:authenticated"}, "delete", "",
                              "namespaces", ""),
                 "exempt", "exempt", "");
    // Anonymous requests land in global-default (9900), before catch-all.
    expectSchema(*c, resource("system:anonymous", {"system:unauthenticated"}, "get", "", "pods",
                              "default"),
                 "global-default", "global-default", "system:anonymous");
    expectSchema(*c, nonResource("system:anonymous", {"system:unauthenticated"}, "/healthz"),
                 "probes", "exempt", "");
    expectSchema(*c, nonResource("alice", {"system:authenticated"}, "/metrics"), "global-default",
                 "global-default", "alice");
}

// Decisions are remembered per request shape: a request that differs from a
// remembered one in any part the rules read (a group, where one part ends and
// the next begins, resource against URL) is classified afresh.
void remembered_decisions_tell_every_part_apart(void**) {
    auto c = bootstrapped();
    for (int pass = 0; pass < 2; pass++) {
        expectSchema(*c, resource("admin", {"system:masters"}, "get", "", "pods", "default"),
                     "exempt", "exempt", "");
        expectSchema(*c, resource("admin", {"system:authenticated"}, "get", "", "pods",
                                  "default"),
                     "global-default", "global-default", "admin");
        // the same characters, split between user and group otherwise
        expectSchema(*c, resource("system:kube-scheduler", {"system:authenticated"}, "get", "",
                                  "pods", "default"),
                     "kube-scheduler", "workload-high", "default");
        expectSchema(*c, resource("system:kube-", {"scheduler", "system:authenticated"}, "get",
                                  "", "pods", "default"),
                     "global-default", "global-default", "system:kube-");
        expectSchema(*c, resource("system:node:n1", kNode, "get", "", "pods", "default"),
                     "system-nodes", "system", "system:node:n1");
        expectSchema(*c, nonResource("system:node:n1", kNode, "/healthz"), "probes", "exempt",
                     "");
    }
}

// A schema's rule: resources with subresources, namespace wildcards, cluster
// scope and URL prefixes; ties of precedence go to the first name.
void rules_match_resources_namespaces_and_urls(void**) {
    auto c = bootstrapped();
    json::Document fs;
    json::parse(R"({"metadata":{"name":"b-logs","uid":"uid-b-logs"},"spec":{
        "priorityLevelConfiguration":{"name":"workload-low"},"matchingPrecedence":50,
        "distinguisherMethod":{"type":"ByNamespace"},
        "rules":[{"subjects":[{"kind":"User","user":{"name":"*"}}],
          "resourceRules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods/log"],
                            "namespaces":["team-*","ops"]}],
          "nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/logs/*"]}]}]}})",
                fs);
    c->put(true, fs);
    json::Document tie;
    tie.CopyFrom(fs, tie.GetAllocator());
    json::setMember(tie["metadata"], "name", json::Value("a-logs"), tie.GetAllocator());
    json::setMember(tie["metadata"], "uid", json::Value("uid-a-logs"), tie.GetAllocator());
    c->put(true, tie);
    c->rebuild();
    Attributes logs = resource("bob", {"system:authenticated"}, "get", "", "pods", "ops", "log");
    expectSchema(*c, logs, "a-logs", "workload-low", "ops");
    // The pod itself, another namespace ("team-*" is a name, not a pattern), or no namespace.
    logs.subresource = "";
    expectSchema(*c, logs, "global-default", "global-default", "bob");
    logs.subresource = "log";
    logs.namespace_ = "team-1";
    expectSchema(*c, logs, "global-default", "global-default", "bob");
    logs.namespace_ = "";
    expectSchema(*c, logs, "global-default", "global-default", "bob");
    expectSchema(*c, nonResource("bob", {"system:authenticated"}, "/logs/x/y"), "a-logs",
                 "workload-low", "");
    expectSchema(*c, nonResource("bob", {"system:authenticated"}, "/logs"), "global-default",
                 "global-default", "bob");
    // A schema whose level is missing is skipped (and reported Dangling).
    std::vector<fc::DanglingChange> seen;
    c->onDanglingChanges([&](const std::vector<fc::DanglingChange>& ch) { seen = ch; });
    c->remove(false, "workload-low");
    c->rebuild();
    // a request classified before the change (its decision was remembered)
    expectSchema(*c, nonResource("bob", {"system:authenticated"}, "/logs/x/y"), "global-default",
                 "global-default", "bob");
    expectSchema(*c, nonResource("bob", {"system:authenticated"}, "/logs/x"), "global-default",
                 "global-default", "bob");
    bool sawLogs = false;
    for (const fc::DanglingChange& ch : seen) {
        if (ch.flowSchema == "a-logs") {
            sawLogs = ch.dangling && ch.level == "workload-low";
        }
    }
    assert_true(sawLogs);
}

void flow_hash_is_sha256_of_schema_and_distinguisher(void**) {
    assert_true(fc::hashFlowID("global-default", "alice") == 17644606172554983095ull);
    assert_true(fc::hashFlowID("global-default", "alice") != fc::hashFlowID("global-default", "bob"));
    assert_true(fc::hashFlowID("a", "bc") != fc::hashFlowID("ab", "c"));
}

void nothing_is_classified_before_the_configuration_is_read(void**) {
    fc::Controller c;
    assert_null(c.classify(nonResource("alice", {}, "/healthz")));
    assert_int_equal(c.configuration()->levels.size(), 0);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bootstrap_has_kubes_objects),
        cmocka_unit_test(seats_of_the_default_set_are_kubes),
        cmocka_unit_test(requests_are_classified_as_kube_does),
        cmocka_unit_test(remembered_decisions_tell_every_part_apart),
        cmocka_unit_test(rules_match_resources_namespaces_and_urls),
        cmocka_unit_test(flow_hash_is_sha256_of_schema_and_distinguisher),
        cmocka_unit_test(nothing_is_classified_before_the_configuration_is_read),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
