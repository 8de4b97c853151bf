// The kinds kubectl's quota, priorityclass, pdb and ingress generators make:
// their defaults, what create sets, kube's validation messages and the
// cells of kube's printers.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "registry/scheme.hpp"
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
#include "kind_calls.hpp"

namespace json = kube::util::json;
using kube::meta::StatusCause;
using kube::registry::KindInfo;
using kube::registry::TableColumn;

namespace {

// What the kinds' unit tests share (kind_calls.hpp).
auto& kind = kube::testing::builtinKind;
auto& cell = kube::testing::tableCell;
auto& create = kube::testing::runCreate;
auto& messages = kube::testing::causeMessages;
auto& assertMessages = kube::testing::assertCauses;

const KindInfo& quota() {
    return kind("", "resourcequotas");
}
const KindInfo& priorityClass() {
    return kind("scheduling.k8s.io", "priorityclasses");
}
const KindInfo& pdb() {
    return kind("policy", "poddisruptionbudgets");
}
const KindInfo& ingress() {
    return kind("networking.k8s.io", "ingresses");
}

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

std::vector<std::string> columnNames(const KindInfo& k) {
    std::vector<std::string> out;
    for (const TableColumn& c : k.columns) {
        out.push_back(c.name + (c.priority ? "(wide)" : ""));
    }
    return out;
}

std::string at(const json::Value& obj, std::initializer_list<std::string_view> path) {
    const json::Value* v = json::at(obj, path);
    return v ? json::serialize(*v) : "<absent>";
}

void the_four_kinds_are_served_as_kube_serves_them(void**) {
    assert_true(quota().namespaced);
    assert_false(priorityClass().namespaced);
    assert_true(pdb().namespaced);
    assert_true(ingress().namespaced);
    // kube validates no PodDisruptionBudget name beyond a path segment.
    assert_true(pdb().nameRule == kube::registry::NameRule::PathSegment);
    assert_true(quota().nameRule == kube::registry::NameRule::DNS1123Subdomain);
    assert_true(ingress().statusIsSubresource() && pdb().statusIsSubresource() &&
                quota().statusIsSubresource());
    assert_false(priorityClass().statusIsSubresource());
    assert_true(
        (columnNames(quota()) == std::vector<std::string>{"Name", "Age", "Request", "Limit"}));
    assert_true(
        (columnNames(priorityClass()) ==
         std::vector<std::string>{"Name", "Value", "Global-Default", "Age", "PreemptionPolicy"}));
    assert_true(
        (columnNames(pdb()) == std::vector<std::string>{"Name", "Min Available", "Max Unavailable",
                                                        "Allowed Disruptions", "Age"}));
    assert_true((columnNames(ingress()) ==
                 std::vector<std::string>{"Name", "Class", "Hosts", "Address", "Ports", "Age"}));
}

void quota_create_clears_status_and_accepts_kubectls_quota(void**) {
    json::Document q = parse(R"({"metadata":{"name":"q"},"spec":{"hard":{"cpu":"1",)"
                             R"("memory":"1G","pods":"2"}},"status":{"hard":{"pods":"9"}}})");
    assertMessages(create(quota(), q), {});
    assert_string_equal(at(q, {"status"}).c_str(), "{}");
}

void quota_validation_reports_names_amounts_and_scopes_like_kube(void**) {
    json::Document q =
        parse(R"({"metadata":{"name":"q"},"spec":{"hard":{"cpu":"-1","foo":"1",)"
              R"("pods":"1500m","example.com/gpu":"0.5","count/deployments.apps":"3"},)"
              R"("scopes":["BestEffort","NotBestEffort"]}})");
    assertMessages(
        create(quota(), q),
        {"spec.hard[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
         "spec.hard[foo]: Invalid value: \"foo\": must be a standard resource type or fully "
         "qualified",
         "spec.hard[foo]: Invalid value: \"foo\": must be a standard resource for quota",
         "spec.hard[pods]: Invalid value: \"1500m\": must be an integer",
         "spec.hard[example.com/gpu]: Invalid value: \"0.5\": must be an integer",
         // BestEffort limits pod counts only: cpu is refused once.
         "spec.scopes: Invalid value: []core.ResourceQuotaScope{\"BestEffort\", "
         "\"NotBestEffort\"}: unsupported scope applied to resource",
         "spec.scopes: Invalid value: []core.ResourceQuotaScope{\"BestEffort\", "
         "\"NotBestEffort\"}: conflicting scopes"});

    json::Document unknown = parse(R"({"metadata":{"name":"q"},"spec":{"scopes":["Nope"]}})");
    assertMessages(create(quota(), unknown),
                   {"spec.scopes: Invalid value: []core.ResourceQuotaScope{\"Nope\"}: "
                    "unsupported scope"});
}

void quota_cells_list_used_of_hard_with_limits_apart(void**) {
    json::Document q =
        parse(R"({"metadata":{"name":"q","creationTimestamp":"2026-11-21T23:50:01Z"},)"
              R"("status":{"hard":{"pods":"4","limits.cpu":"2","requests.cpu":"1"},)"
              R"("used":{"pods":"1","limits.cpu":"500m"}}})");
    assert_string_equal(cell(quota(), "Request", q).c_str(), "\"pods: 1/4, requests.cpu: 0/1\"");
    assert_string_equal(cell(quota(), "Limit", q).c_str(), "\"limits.cpu: 500m/2\"");
    assert_string_equal(cell(quota(), "Age", q).c_str(), "\"5m\"");
    json::Document fresh = parse(R"({"metadata":{"name":"q"},"spec":{"hard":{"pods":"2"}}})");
    assert_string_equal(cell(quota(), "Request", fresh).c_str(), "\"\"");
}

void priority_class_defaults_its_policy_and_guards_system_names(void**) {
    json::Document pc = parse(R"({"metadata":{"name":"high"},"value":1000,"description":"x"})");
    assertMessages(create(priorityClass(), pc), {});
    assert_string_equal(at(pc, {"preemptionPolicy"}).c_str(), "\"PreemptLowerPriority\"");
    assert_string_equal(cell(priorityClass(), "Value", pc).c_str(), "1000");
    assert_string_equal(cell(priorityClass(), "Global-Default", pc).c_str(), "false");
    assert_string_equal(cell(priorityClass(), "PreemptionPolicy", pc).c_str(),
                        "\"PreemptLowerPriority\"");

    json::Document big = parse(R"({"metadata":{"name":"big"},"value":1000000001})");
    assertMessages(create(priorityClass(), big),
                   {"value: Forbidden: maximum allowed value of a user defined priority is "
                    "1000000000"});

    json::Document system =
        parse(R"({"metadata":{"name":"system-mine"},"value":5,"preemptionPolicy":"Sometimes"})");
    assertMessages(create(priorityClass(), system),
                   {"metadata.name: Forbidden: priority class names with 'system-' prefix are "
                    "reserved for system use only. error: system-mine is not a known system "
                    "priority class",
                    "preemptionPolicy: Unsupported value: \"Sometimes\": supported values: "
                    "\"PreemptLowerPriority\", \"Never\""});

    json::Document critical =
        parse(R"({"metadata":{"name":"system-node-critical"},"value":2000001000})");
    assertMessages(create(priorityClass(), critical), {});
    json::Document wrong = parse(R"({"metadata":{"name":"system-node-critical"},"value":7})");
    assertMessages(create(priorityClass(), wrong),
                   {"metadata.name: Forbidden: priority class names with 'system-' prefix are "
                    "reserved for system use only. error: value of system-node-critical "
                    "PriorityClass must be 2000001000"});
}

void pdb_create_zeroes_the_status_counters(void**) {
    json::Document p = parse(R"({"metadata":{"name":"p"},"spec":{"minAvailable":1,)"
                             R"("selector":{"matchLabels":{"app":"web"}}}})");
    assertMessages(create(pdb(), p), {});
    assert_string_equal(at(p, {"status"}).c_str(),
                        R"({"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,)"
                        R"("expectedPods":0})");
    assert_string_equal(cell(pdb(), "Min Available", p).c_str(), "\"1\"");
    assert_string_equal(cell(pdb(), "Max Unavailable", p).c_str(), "\"N/A\"");
    assert_string_equal(cell(pdb(), "Allowed Disruptions", p).c_str(), "0");
}

void pdb_validation_checks_bounds_and_selector_like_kube(void**) {
    json::Document p = parse(
        R"({"metadata":{"name":"p"},"spec":{"minAvailable":"150%","maxUnavailable":-1,)"
        R"("selector":{"matchExpressions":[{"key":"app","operator":"In"},)"
        R"({"key":"tier","operator":"Exists","values":["x"]},{"key":"k","operator":"Near"}]},)"
        R"("unhealthyPodEvictionPolicy":"Never"}})");
    std::vector<StatusCause> causes = create(pdb(), p);
    assert_int_equal(causes.size(), 7);
    // kube prints the whole spec struct here.
    assert_string_equal(causes[0].field.c_str(), "spec");
    assert_true(
        causes[0].message.ends_with(": minAvailable and maxUnavailable cannot be both set"));
    assertMessages(
        std::vector<StatusCause>(causes.begin() + 1, causes.end()),
        {"spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
         "StrVal:\"150%\"}: must not be greater than 100%",
         "spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0",
         "spec.selector.matchExpressions[0].values: Required value: must be specified when "
         "`operator` is 'In' or 'NotIn'",
         "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when "
         "`operator` is 'Exists' or 'DoesNotExist'",
         "spec.selector.matchExpressions[2].operator: Invalid value: \"Near\": not a valid "
         "selector operator",
         "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": supported values: "
         "\"AlwaysAllow\", \"IfHealthyBudget\""});

    json::Document percent = parse(R"({"metadata":{"name":"p"},"spec":{"minAvailable":"5x"}})");
    assertMessages(create(pdb(), percent),
                   {"spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
                    "StrVal:\"5x\"}: a valid percent string must be a numeric string followed by "
                    "an ending '%' (e.g. '1%',  or '93%', regex used for validation is "
                    "'[0-9]+%')"});
}

void ingress_create_accepts_kubectls_rule_and_sets_an_empty_load_balancer(void**) {
    json::Document i =
        parse(R"({"metadata":{"name":"i"},"spec":{"rules":[{"host":"foo.com","http":{"paths":[)"
              R"({"path":"/bar","pathType":"Exact","backend":{"service":{"name":"svc1",)"
              R"("port":{"number":8080}}}}]}}]}})");
    assertMessages(create(ingress(), i), {});
    assert_string_equal(at(i, {"status"}).c_str(), R"({"loadBalancer":{}})");
    assert_string_equal(cell(ingress(), "Class", i).c_str(), "\"<none>\"");
    assert_string_equal(cell(ingress(), "Hosts", i).c_str(), "\"foo.com\"");
    assert_string_equal(cell(ingress(), "Address", i).c_str(), "\"\"");
    assert_string_equal(cell(ingress(), "Ports", i).c_str(), "\"80\"");
}

void ingress_validation_reports_rules_paths_and_backends_like_kube(void**) {
    json::Document none = parse(R"({"metadata":{"name":"i"},"spec":{}})");
    assertMessages(create(ingress(), none),
                   {"spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` "
                    "or `rules` must be specified"});

    json::Document bad =
        parse(R"({"metadata":{"name":"i"},"spec":{"ingressClassName":"Nginx","rules":[)"
              R"({"host":"10.0.0.1","http":{"paths":[{"path":"bar","pathType":"Prefix",)"
              R"("backend":{"service":{"name":"svc","port":{"name":"http","number":80}}}},)"
              R"({"path":"/a","backend":{}},)"
              R"({"path":"/b","pathType":"Regex","backend":{"service":{"name":"svc"}}}]}},)"
              R"({"host":"*.example.com","http":{"paths":[]}}],)"
              R"("tls":[{"hosts":["*.x.com","Bad"],"secretName":"s"}]}})");
    std::vector<std::string> got = messages(create(ingress(), bad));
    std::vector<std::string> want = {
        "spec.rules[0].host: Invalid value: \"10.0.0.1\": must be a DNS name, not an IP address",
        "spec.rules[0].http.paths[0].path: Invalid value: \"bar\": must be an absolute path",
        "spec.rules[0].http.paths[0].backend: Invalid value: \"\": cannot set both port name & "
        "port number",
        "spec.rules[0].http.paths[1].pathType: Required value: pathType must be specified",
        "spec.rules[0].http.paths[2].pathType: Unsupported value: \"Regex\": supported values: "
        "\"Exact\", \"ImplementationSpecific\", \"Prefix\"",
        "spec.rules[0].http.paths[2].backend: Required value: port name or number is required",
        "spec.rules[1].http.paths: Required value",
    };
    assert_true(got.size() >= want.size() + 2);
    for (size_t n = 0; n < want.size(); n++) {
        if (got[n] != want[n]) {
            fail_msg("cause %zu: got %s, want %s", n, got[n].c_str(), want[n].c_str());
        }
    }
    // Then the TLS host and the class name, worded as IsDNS1123Subdomain.
    assert_true(
        got[want.size()].starts_with("spec.tls[0].hosts[1]: Invalid value: \"Bad\": a "
                                     "lowercase RFC 1123 subdomain"));
    assert_true(got[want.size() + 1].starts_with(
        "spec.ingressClassName: Invalid value: \"Nginx\": a lowercase RFC 1123 subdomain"));
}

void ingress_hosts_cell_names_three_then_counts_the_rest(void**) {
    json::Document i = parse(R"({"metadata":{"name":"i"},"spec":{"rules":[{"host":"a"},)"
                             R"({"host":"b"},{},{"host":"c"},{"host":"d"},{"host":"e"}],)"
                             R"("tls":[{"hosts":["a"]}],"ingressClassName":"nginx"},)"
                             R"("status":{"loadBalancer":{"ingress":[{"ip":"10.0.0.2"},)"
                             R"({"hostname":"lb.example.com"},{"ip":"10.0.0.1"}]}}})");
    assert_string_equal(cell(ingress(), "Hosts", i).c_str(), "\"a,b,c + 3 more...\"");
    assert_string_equal(cell(ingress(), "Ports", i).c_str(), "\"80, 443\"");
    assert_string_equal(cell(ingress(), "Class", i).c_str(), "\"nginx\"");
    assert_string_equal(cell(ingress(), "Address", i).c_str(),
                        "\"10.0.0.1,10.0.0.2,lb.example.com\"");
    json::Document hostless = parse(R"({"metadata":{"name":"i"},"spec":{"rules":[{}]}})");
    assert_string_equal(cell(ingress(), "Hosts", hostless).c_str(), "\"*\"");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_four_kinds_are_served_as_kube_serves_them),
        cmocka_unit_test(quota_create_clears_status_and_accepts_kubectls_quota),
        cmocka_unit_test(quota_validation_reports_names_amounts_and_scopes_like_kube),
        cmocka_unit_test(quota_cells_list_used_of_hard_with_limits_apart),
        cmocka_unit_test(priority_class_defaults_its_policy_and_guards_system_names),
        cmocka_unit_test(pdb_create_zeroes_the_status_counters),
        cmocka_unit_test(pdb_validation_checks_bounds_and_selector_like_kube),
        cmocka_unit_test(ingress_create_accepts_kubectls_rule_and_sets_an_empty_load_balancer),
        cmocka_unit_test(ingress_validation_reports_rules_paths_and_backends_like_kube),
        cmocka_unit_test(ingress_hosts_cell_names_three_then_counts_the_rest),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
