// core/v1 PodTemplates and ComponentStatuses, apps/v1 ControllerRevisions,
// node.k8s.io/v1 RuntimeClasses and networking.k8s.io/v1 IngressClasses (with
// the DefaultIngressClass admission plugin): kube's defaults, validation
// messages, update rules, table cells and discovery.
#include <chrono>
#include <string>
#include <string_view>

#include "endpoints/protobuf_codec.hpp"
#include "server/server.hpp"
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

#include "served_answers.hpp"
#include "served_server.hpp"

namespace {

namespace json = kube::util::json;
using kube::endpoints::HttpResponse;
using kube::testing::bodyAt;
using kube::testing::kTableAccept;
using kube::testing::statusCauses;
using kube::testing::tableColumns;
using kube::testing::tableRow;

using Server = kube::testing::ServedServer;

constexpr const char* kTemplates = "/api/v1/namespaces/default/podtemplates";
constexpr const char* kRevisions = "/apis/apps/v1/namespaces/default/controllerrevisions";
constexpr const char* kRuntimeClasses = "/apis/node.k8s.io/v1/runtimeclasses";
constexpr const char* kIngressClasses = "/apis/networking.k8s.io/v1/ingressclasses";
constexpr const char* kIngresses = "/apis/networking.k8s.io/v1/namespaces/default/ingresses";

std::string rv(const std::string& body) {
    return bodyAt(body, {"metadata", "resourceVersion"});
}

// The discovery entry of `resource` in `groupVersionPath`, as
// "<verbs> <shortNames> <categories>".
std::string discovered(Server& s, const std::string& groupVersionPath, std::string_view resource) {
    HttpResponse r = s.send("GET", groupVersionPath);
    json::Document d = kube::testing::parseJson(r.body);
    for (const json::Value& res : d["resources"].GetArray()) {
        if (json::stringMember(res, "name") != resource) {
            continue;
        }
        auto field = [&res](const char* name) {
            const json::Value* v = json::member(res, name);
            return v ? json::serialize(*v) : std::string("-");
        };
        return field("verbs") + " " + field("shortNames") + " " + field("categories");
    }
    return "<absent>";
}

void pod_template_defaults_its_pod_spec_and_prints_kubes_columns(void**) {
    Server s;
    HttpResponse r =
        s.send("POST", kTemplates,
               R"({"metadata":{"name":"pt1"},"template":{"metadata":{"labels":)"
               R"({"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(bodyAt(r.body, {"metadata", "generation"}).c_str(), "1");
    assert_string_equal(bodyAt(r.body, {"template", "spec", "restartPolicy"}).c_str(), "Always");
    assert_string_equal(bodyAt(r.body, {"template", "spec", "dnsPolicy"}).c_str(), "ClusterFirst");
    std::string container = bodyAt(r.body, {"template", "spec", "containers"});
    for (const char* defaulted : {R"("imagePullPolicy":"Always")", R"("resources":{})",
                                  R"("terminationMessagePath":"/dev/termination-log")",
                                  R"("terminationMessagePolicy":"File")"}) {
        assert_non_null(strstr(container.c_str(), defaulted));
    }
    HttpResponse t = s.send("GET", kTemplates, "", "application/json", kTableAccept);
    assert_int_equal(t.status, 200);
    assert_string_equal(tableColumns(t.body).c_str(), "Name Containers Images Pod Labels");
    assert_string_equal(tableRow(t.body, 0).c_str(), R"(["pt1","c","nginx","app=x"])");

    r = s.send("POST", kTemplates,
               R"({"metadata":{"name":"bad"},"template":{"metadata":{"labels":{"a":"b"}},)"
               R"("spec":{"containers":[],"restartPolicy":"Sometimes"}}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(statusCauses(r.body).c_str(),
                        "template.spec.containers: Required value\n"
                        "template.spec.restartPolicy: Unsupported value: \"Sometimes\": "
                        "supported values: \"Always\", \"OnFailure\", \"Never\"\n");
    r = s.send("POST", kTemplates, R"({"metadata":{"name":"bad2"}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(statusCauses(r.body).c_str(), "template.spec.containers: Required value\n");
    assert_string_equal(discovered(s, "/api/v1", "podtemplates").c_str(),
                        R"(["create","delete","deletecollection","get","list","patch","update",)"
                        R"("watch"] - -)");
}

void controller_revision_data_is_required_and_immutable(void**) {
    Server s;
    HttpResponse r = s.send("POST", kRevisions, R"({"metadata":{"name":"bad"},"revision":-1})");
    assert_int_equal(r.status, 422);
    assert_string_equal(statusCauses(r.body).c_str(),
                        "data: Required value: data is mandatory\n"
                        "revision: Invalid value: -1: must be greater than or equal to 0\n");
    r = s.send("POST", kRevisions,
               R"({"metadata":{"name":"ds-1","ownerReferences":[{"apiVersion":"apps/v1",)"
               R"("kind":"DaemonSet","name":"ds","uid":"u1","controller":true}]},)"
               R"("data":{"spec":{"template":{"x":1}}},"revision":3})");
    assert_int_equal(r.status, 201);
    assert_string_equal(bodyAt(r.body, {"data"}).c_str(), R"({"spec":{"template":{"x":1}}})");
    assert_string_equal(bodyAt(r.body, {"metadata", "generation"}).c_str(), "<absent>");
    HttpResponse t = s.send("GET", kRevisions, "", "application/json", kTableAccept);
    assert_string_equal(tableColumns(t.body).c_str(), "Name Controller Revision Age");
    assert_string_equal(tableRow(t.body, 0).c_str(), R"(["ds-1","daemonset.apps/ds",3,"0s"])");
    r = s.send("PUT", std::string(kRevisions) + "/ds-1",
               R"({"metadata":{"name":"ds-1","resourceVersion":")" + rv(r.body) +
                   R"("},"data":{"a":1},"revision":4})");
    assert_int_equal(r.status, 422);
    std::string c = statusCauses(r.body);
    assert_true(c.starts_with("data: Invalid value: "));
    assert_true(c.ends_with(": field is immutable\n"));
}

void runtime_class_checks_are_kubes(void**) {
    Server s;
    HttpResponse r = s.send(
        "POST", kRuntimeClasses,
        R"({"metadata":{"name":"bad"},"handler":"Bad_H","overhead":{"podFixed":{"cpu":"-1"}},)"
        R"("scheduling":{"nodeSelector":{"bad key!":"v"},"tolerations":[{"key":"k",)"
        R"("operator":"Exists","value":"v"},{"operator":"Foo","effect":"Bar"}]}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(
        statusCauses(r.body).c_str(),
        "handler: Invalid value: \"Bad_H\": a lowercase RFC 1123 label must consist of lower "
        "case alphanumeric characters or '-', and must start and end with an alphanumeric "
        "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"
        "overhead.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0\n"
        "scheduling.nodeSelector: Invalid value: \"bad key!\": name part must consist of "
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n"
        "scheduling.tolerations.tolerations[0].operator: Invalid value: core.Toleration{Key:\"k\", "
        "Operator:\"Exists\", Value:\"v\", Effect:\"\", TolerationSeconds:(*int64)(nil)}: value "
        "must be empty when `operator` is 'Exists'\n"
        "scheduling.tolerations.tolerations[1].operator: Invalid value: \"Foo\": operator must be "
        "Exists when `key` is empty, which means \"match all values and all keys\"\n"
        "scheduling.tolerations.tolerations[1].operator: Unsupported value: \"Foo\": supported "
        "values: \"Equal\", \"Exists\"\n"
        "scheduling.tolerations.tolerations[1].effect: Unsupported value: \"Bar\": supported "
        "values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"\n");
    r = s.send(
        "POST", kRuntimeClasses,
        R"({"metadata":{"name":"rc1"},"handler":"runc","overhead":{"podFixed":)"
        R"({"cpu":"100m"}},"scheduling":{"tolerations":[{"key":"k","operator":"Exists"}]}})");
    assert_int_equal(r.status, 201);
    HttpResponse t = s.send("GET", kRuntimeClasses, "", "application/json", kTableAccept);
    assert_string_equal(tableColumns(t.body).c_str(), "Name Handler Age");
    assert_string_equal(tableRow(t.body, 0).c_str(), R"(["rc1","runc","0s"])");
    r = s.send("PATCH", std::string(kRuntimeClasses) + "/rc1",
               R"([{"op":"replace","path":"/handler","value":"other"}])",
               "application/json-patch+json");
    assert_int_equal(r.status, 422);
    assert_string_equal(statusCauses(r.body).c_str(),
                        "handler: Invalid value: \"other\": field is immutable\n");
}

void ingress_class_checks_are_kubes(void**) {
    Server s;
    HttpResponse r = s.send(
        "POST", kIngressClasses,
        R"({"metadata":{"name":"bad"},"spec":{"controller":"nodomain","parameters":{"kind":"",)"
        R"("name":"","scope":"Foo","namespace":"x"}}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(statusCauses(r.body).c_str(),
                        "spec.controller: Invalid value: \"nodomain\": must be a domain-prefixed "
                        "path (such as \"acme.io/foo\")\n"
                        "spec.parameters.kind: Required value: kind is required\n"
                        "spec.parameters.name: Required value: name is required\n"
                        "spec.parameters.scope: Unsupported value: \"Foo\": supported values: "
                        "\"Cluster\", \"Namespace\"\n");
    r = s.send("POST", kIngressClasses,
               R"({"metadata":{"name":"bad"},"spec":{"parameters":{"apiGroup":"Bad Group",)"
               R"("kind":"K/x","name":"n/1","scope":"Cluster","namespace":"x"}}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(
        statusCauses(r.body).c_str(),
        "spec.controller: Required value\n"
        "spec.parameters.apiGroup: Invalid value: \"Bad Group\": a lowercase RFC 1123 subdomain "
        "must consist of lower case alphanumeric characters, '-' or '.', and must start and end "
        "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
        "spec.parameters.kind: Invalid value: \"K/x\": may not contain '/'\n"
        "spec.parameters.name: Invalid value: \"n/1\": may not contain '/'\n"
        "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'\n");
    r = s.send("POST", kIngressClasses,
               R"({"metadata":{"name":"bad"},"spec":{"controller":"Bad_D/p a","parameters":)"
               R"({"kind":"K","name":"n","scope":"Namespace"}}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(
        statusCauses(r.body).c_str(),
        "spec.controller: Invalid value: \"Bad_D\": a lowercase RFC 1123 subdomain must consist "
        "of lower case alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
        "spec.controller: Invalid value: \"p a\": Invalid path (regex used for validation is "
        "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')\n"
        "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'\n");

    r = s.send("POST", kIngressClasses,
               R"({"metadata":{"name":"ic1"},"spec":{"controller":"example.com/ingress",)"
               R"("parameters":{"apiGroup":"k8s.example.com","kind":"IngressParameters",)"
               R"("name":"external-lb"}}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(bodyAt(r.body, {"spec", "parameters", "scope"}).c_str(), "Cluster");
    assert_string_equal(bodyAt(r.body, {"metadata", "generation"}).c_str(), "1");
    HttpResponse t = s.send("GET", kIngressClasses, "", "application/json", kTableAccept);
    assert_string_equal(tableColumns(t.body).c_str(), "Name Controller Parameters Age");
    assert_string_equal(
        tableRow(t.body, 0).c_str(),
        R"(["ic1","example.com/ingress","IngressParameters.k8s.example.com/external-lb","0s"])");
    r = s.send("PATCH", std::string(kIngressClasses) + "/ic1",
               R"([{"op":"replace","path":"/spec/controller","value":"a.b/c"}])",
               "application/json-patch+json");
    assert_int_equal(r.status, 422);
    assert_string_equal(statusCauses(r.body).c_str(),
                        "spec.controller: Invalid value: \"a.b/c\": field is immutable\n");
}

constexpr const char* kBackend = R"("spec":{"defaultBackend":{"service":{"name":"s","port":)"
                                 R"({"number":80}}}})";

std::string ingress(std::string_view name, std::string_view metadataExtra = "") {
    return R"({"metadata":{"name":")" + std::string(name) + "\"" + std::string(metadataExtra) +
           "}," + kBackend + "}";
}

void new_ingresses_get_the_newest_default_class(void**) {
    Server s;
    HttpResponse r = s.send("POST", kIngresses, ingress("none"));
    assert_int_equal(r.status, 201);
    assert_string_equal(bodyAt(r.body, {"spec", "ingressClassName"}).c_str(), "<absent>");
    for (const char* name : {"b-old", "a-plain"}) {
        std::string annotations =
            std::string_view(name) == "b-old"
                ? R"(,"annotations":{"ingressclass.kubernetes.io/is-default-class":"true"})"
                : "";
        r = s.send("POST", kIngressClasses,
                   R"({"metadata":{"name":")" + std::string(name) + "\"" + annotations +
                       R"(},"spec":{"controller":"example.com/a"}})");
        assert_int_equal(r.status, 201);
    }
    r = s.send("POST", kIngresses, ingress("first"));
    assert_string_equal(bodyAt(r.body, {"spec", "ingressClassName"}).c_str(), "b-old");
    s.loop.advance(std::chrono::seconds(2));
    r = s.send("POST", kIngressClasses,
               R"({"metadata":{"name":"z-new","annotations":)"
               R"({"ingressclass.kubernetes.io/is-default-class":"true"}},)"
               R"("spec":{"controller":"example.com/b"}})");
    assert_int_equal(r.status, 201);
    r = s.send("POST", kIngresses, ingress("second"));
    assert_string_equal(bodyAt(r.body, {"spec", "ingressClassName"}).c_str(), "z-new");
    // A class named either way is kept; updates are not defaulted.
    r = s.send("POST", kIngresses,
               ingress("annotated", R"(,"annotations":{"kubernetes.io/ingress.class":"x"})"));
    assert_string_equal(bodyAt(r.body, {"spec", "ingressClassName"}).c_str(), "<absent>");
    r = s.send("PUT", std::string(kIngresses) + "/annotated",
               R"({"metadata":{"name":"annotated","resourceVersion":")" + rv(r.body) + "\"}," +
                   kBackend + "}");
    assert_int_equal(r.status, 200);
    assert_string_equal(bodyAt(r.body, {"spec", "ingressClassName"}).c_str(), "<absent>");
}

void component_statuses_report_the_storage(void**) {
    Server s;
    HttpResponse r = s.send("GET", "/api/v1/componentstatuses");
    assert_int_equal(r.status, 200);
    assert_string_equal(bodyAt(r.body, {"kind"}).c_str(), "ComponentStatusList");
    assert_string_equal(bodyAt(r.body, {"items"}).c_str(),
                        R"([{"metadata":{"name":"etcd-0","creationTimestamp":null},)"
                        R"("conditions":[{"type":"Healthy","status":"True"}]}])");
    bool warned = false;
    for (const auto& [name, value] : r.headers) {
        warned = warned || (name == "Warning" &&
                            value == R"(299 - "v1 ComponentStatus is deprecated in v1.19+")");
    }
    assert_true(warned);
    r = s.send("GET", "/api/v1/componentstatuses/etcd-0");
    assert_int_equal(r.status, 200);
    assert_string_equal(bodyAt(r.body, {"apiVersion"}).c_str(), "v1");
    assert_string_equal(bodyAt(r.body, {"conditions"}).c_str(),
                        R"([{"type":"Healthy","status":"True"}])");
    HttpResponse t =
        s.send("GET", "/api/v1/componentstatuses", "", "application/json", kTableAccept);
    assert_string_equal(tableColumns(t.body).c_str(), "Name Status Message Error");
    assert_string_equal(tableRow(t.body, 0).c_str(), R"(["etcd-0","Healthy","",""])");
    r = s.send("GET", "/api/v1/componentstatuses/scheduler");
    assert_int_equal(r.status, 500);
    assert_string_equal(bodyAt(r.body, {"message"}).c_str(), "Component not found: scheduler");
    assert_string_equal(bodyAt(r.body, {"reason"}).c_str(), "<absent>");
    r = s.send("POST", "/api/v1/componentstatuses", R"({"metadata":{"name":"x"}})");
    assert_int_equal(r.status, 405);
    r = s.send("DELETE", "/api/v1/componentstatuses/etcd-0");
    assert_int_equal(r.status, 405);
    assert_string_equal(discovered(s, "/api/v1", "componentstatuses").c_str(),
                        R"(["get","list"] ["cs"] -)");
}

void the_kinds_are_discovered_as_kube_lists_them(void**) {
    Server s;
    assert_string_equal(discovered(s, "/apis/apps/v1", "controllerrevisions").c_str(),
                        R"(["create","delete","deletecollection","get","list","patch","update",)"
                        R"("watch"] - -)");
    assert_string_equal(discovered(s, "/apis/node.k8s.io/v1", "runtimeclasses").c_str(),
                        R"(["create","delete","deletecollection","get","list","patch","update",)"
                        R"("watch"] - -)");
    assert_string_equal(discovered(s, "/apis/networking.k8s.io/v1", "ingressclasses").c_str(),
                        R"(["create","delete","deletecollection","get","list","patch","update",)"
                        R"("watch"] - -)");
    // The groups in kube's priority order.
    json::Document groups = kube::testing::parseJson(s.send("GET", "/apis").body);
    std::string names;
    for (const json::Value& g : groups["groups"].GetArray()) {
        names += std::string(json::stringMember(g, "name")) + " ";
    }
    assert_non_null(strstr(names.c_str(), "authorization.k8s.io autoscaling batch "));
    assert_non_null(strstr(names.c_str(), "coordination.k8s.io node.k8s.io discovery.k8s.io flowcontrol"));
    for (auto [apiVersion, kind] : {
             std::pair{"v1", "PodTemplate"},
             std::pair{"v1", "ComponentStatus"},
             std::pair{"apps/v1", "ControllerRevision"},
             std::pair{"node.k8s.io/v1", "RuntimeClass"},
             std::pair{"networking.k8s.io/v1", "IngressClass"},
             std::pair{"autoscaling/v2", "HorizontalPodAutoscaler"},
         }) {
        if (!kube::endpoints::hasProtobufSchema(apiVersion, kind)) {
            fail_msg("no schema for %s %s", apiVersion, kind);
        }
    }
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pod_template_defaults_its_pod_spec_and_prints_kubes_columns),
        cmocka_unit_test(controller_revision_data_is_required_and_immutable),
        cmocka_unit_test(runtime_class_checks_are_kubes),
        cmocka_unit_test(ingress_class_checks_are_kubes),
        cmocka_unit_test(new_ingresses_get_the_newest_default_class),
        cmocka_unit_test(component_statuses_report_the_storage),
        cmocka_unit_test(the_kinds_are_discovered_as_kube_lists_them),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
