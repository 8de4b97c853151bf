// autoscaling/v2 HorizontalPodAutoscalers: kube's defaults (metrics,
// behavior), validation messages, status subresource and table cells; the
// same objects at autoscaling/v1, converted as kube converts them.
#include <string>
#include <string_view>

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

using kube::endpoints::HttpResponse;
using kube::testing::bodyAt;
using kube::testing::kTableAccept;
using kube::testing::statusCauses;
using kube::testing::tableColumns;
using kube::testing::tableRow;

using Server = kube::testing::ServedServer;

constexpr const char* kHPAs = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
constexpr const char* kV1HPAs = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";

std::string hpa(std::string_view name, std::string_view spec) {
    return R"({"metadata":{"name":")" + std::string(name) +
           R"("},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment",)"
           R"("name":"web"})" +
           std::string(spec) + "}}";
}

void defaults_are_80_percent_cpu_and_kubes_scaling_rules(void**) {
    Server s;
    HttpResponse r = s.send("POST", kHPAs, hpa("cpu", R"(,"maxReplicas":5)"));
    assert_int_equal(r.status, 201);
    assert_string_equal(bodyAt(r.body, {"spec", "minReplicas"}).c_str(), "1");
    assert_string_equal(bodyAt(r.body, {"spec", "metrics"}).c_str(),
                        R"([{"type":"Resource","resource":{"name":"cpu","target":{"type":)"
                        R"("Utilization","averageUtilization":80}}}])");
    assert_string_equal(bodyAt(r.body, {"status"}).c_str(), R"({"desiredReplicas":0})");
    assert_string_equal(bodyAt(r.body, {"metadata", "generation"}).c_str(), "<absent>");

    r = s.send("POST", kHPAs,
               hpa("beh", R"(,"maxReplicas":2,"behavior":{"scaleUp":{"selectPolicy":"Min"}})"));
    assert_int_equal(r.status, 201);
    assert_string_equal(bodyAt(r.body, {"spec", "behavior"}).c_str(),
                        R"({"scaleUp":{"selectPolicy":"Min","stabilizationWindowSeconds":0,)"
                        R"("policies":[{"type":"Pods","value":4,"periodSeconds":15},)"
                        R"({"type":"Percent","value":100,"periodSeconds":15}]},)"
                        R"("scaleDown":{"selectPolicy":"Max","policies":[{"type":"Percent",)"
                        R"("value":100,"periodSeconds":15}]}})");

    r = s.send("POST", kHPAs,
               hpa("two", R"(,"minReplicas":2,"maxReplicas":5,"metrics":[)"
                          R"({"type":"Resource","resource":{"name":"cpu","target":{"type":)"
                          R"("Utilization","averageUtilization":50}}},)"
                          R"({"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":)"
                          R"("AverageValue","averageValue":"1k"}}},)"
                          R"({"type":"External","external":{"metric":{"name":"queue"},)"
                          R"("target":{"type":"AverageValue","averageValue":"30"}}}])"));
    assert_int_equal(r.status, 201);
    HttpResponse t = s.send("GET", kHPAs, "", "application/json", kTableAccept);
    assert_string_equal(tableColumns(t.body).c_str(),
                        "Name Reference Targets MinPods MaxPods Replicas Age");
    assert_string_equal(tableRow(t.body, 1).c_str(),
                        R"(["cpu","Deployment/web","cpu: <unknown>/80%","1",5,0,"0s"])");
    assert_string_equal(
        tableRow(t.body, 2).c_str(),
        R"(["two","Deployment/web","cpu: <unknown>/50%, <unknown>/1k + 1 more...","2",5,0,"0s"])");
}

void spec_checks_are_kubes(void**) {
    Server s;
    HttpResponse r = s.send("POST", kHPAs,
                            R"({"metadata":{"name":"bad"},"spec":{"scaleTargetRef":{"kind":"",)"
                            R"("name":"a/b"},"minReplicas":0,"maxReplicas":0}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(statusCauses(r.body).c_str(),
                        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1\n"
                        "spec.maxReplicas: Invalid value: 0: must be greater than 0\n"
                        "spec.scaleTargetRef.kind: Required value\n"
                        "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'\n"
                        "spec.metrics: Forbidden: must specify at least one Object or External "
                        "metric to support scaling to zero replicas\n");
    r = s.send(
        "POST", kHPAs,
        hpa("bad",
            R"(,"minReplicas":3,"maxReplicas":2,"metrics":[{"type":"Foo"},{"type":""},)"
            R"({"type":"Pods","resource":{"name":"cpu","target":{"type":"Utilization",)"
            R"("averageUtilization":5}}},{"type":"Object","object":{"describedObject":)"
            R"({"kind":"","name":""},"metric":{"name":""},"target":{"type":"Bad","value":"-1",)"
            R"("averageUtilization":0}}},{"type":"External","external":{"metric":{"name":"q"},)"
            R"("target":{"type":"Value","value":"1","averageValue":"2"}}},{"type":"Resource",)"
            R"("resource":{"name":"","target":{"type":"Utilization","averageUtilization":10,)"
            R"("averageValue":"1"}}},{"type":"ContainerResource","containerResource":)"
            R"({"name":"cpu","container":"","target":{"type":"Utilization"}}},{"type":"Pods",)"
            R"("pods":{"metric":{"name":"m"},"target":{"type":"Value"}}}],"behavior":)"
            R"({"scaleUp":{"stabilizationWindowSeconds":-1,"selectPolicy":"Foo","policies":)"
            R"([{"type":"Bad","value":0,"periodSeconds":2000}]},"scaleDown":)"
            R"({"stabilizationWindowSeconds":4000,"policies":[]}})"));
    assert_int_equal(r.status, 422);
    const char* types =
        "supported values: \"ContainerResource\", \"External\", \"Object\", "
        "\"Pods\", \"Resource\"\n";
    std::string want =
        "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`\n" +
        std::string("spec.metrics[0].type: Unsupported value: \"Foo\": ") + types +
        "spec.metrics[0].type: Unsupported value: \"Foo\": " + types +
        "spec.metrics[1].type: Required value: must specify a metric source type\n" +
        "spec.metrics[1].type: Unsupported value: \"\": " + types +
        "spec.metrics[1].type: Unsupported value: \"\": " + types +
        "spec.metrics[2].pods: Required value: must populate information for the given metric "
        "source\n"
        "spec.metrics[3].object.describedObject.kind: Required value\n"
        "spec.metrics[3].object.describedObject.name: Required value\n"
        "spec.metrics[3].object.metric.name: Required value: must specify a metric name\n"
        "spec.metrics[3].object.target.type: Invalid value: \"Bad\": must be either "
        "Utilization, Value, or AverageValue\n"
        "spec.metrics[3].object.target.value: Invalid value: "
        "resource.Quantity{i:resource.int64Amount{value:-1, scale:0}, "
        "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"-1\", Format:\"DecimalSI\"}: must be "
        "positive\n"
        "spec.metrics[3].object.target.averageUtilization: Invalid value: 0: must be greater "
        "than 0\n"
        "spec.metrics[4].external.target.value: Forbidden: may not set both a target value for "
        "metric and a per-pod target\n"
        "spec.metrics[5].resource.name: Required value: must specify a resource name\n"
        "spec.metrics[5].resource.target.averageValue: Forbidden: may not set both a target raw "
        "value and a target utilization\n"
        // kube 1.33 checks container resource metrics (HPAContainerMetrics is GA).
        "spec.metrics[6].containerResource.container: Required value: must specify a "
        "container\n"
        "spec.metrics[6].containerResource.target.averageUtilization: Required value: must set "
        "either a target raw value or a target utilization\n"
        "spec.metrics[7].pods.target.averageValue: Required value: must specify a positive "
        "target averageValue\n"
        "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: -1: must be greater "
        "than or equal to zero\n"
        "spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Foo\": supported values: "
        "\"Disabled\", \"Max\", \"Min\"\n"
        "spec.behavior.scaleUp.policies[0].type: Unsupported value: \"Bad\": supported values: "
        "\"Percent\", \"Pods\"\n"
        "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero\n"
        "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less "
        "than or equal to 1800\n"
        "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 4000: must be less "
        "than or equal to 3600\n"
        "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy\n";
    assert_string_equal(statusCauses(r.body).c_str(), want.c_str());
}

void status_is_its_own_subresource(void**) {
    Server s;
    HttpResponse r = s.send("POST", kHPAs, hpa("web", R"(,"maxReplicas":5)"));
    assert_int_equal(r.status, 201);
    std::string name = std::string(kHPAs) + "/web";
    // The status a create or update brings is dropped.
    r = s.send("PATCH", name, R"({"spec":{"maxReplicas":7},"status":{"currentReplicas":3}})",
               "application/merge-patch+json");
    assert_int_equal(r.status, 200);
    assert_string_equal(bodyAt(r.body, {"status"}).c_str(), R"({"desiredReplicas":0})");
    // The status subresource writes the status only.
    r = s.send("PATCH", name + "/status",
               R"({"spec":{"maxReplicas":9},"status":{"currentReplicas":3,"desiredReplicas":4,)"
               R"("currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":)"
               R"({"averageUtilization":42}}}]}})",
               "application/merge-patch+json");
    assert_int_equal(r.status, 200);
    assert_string_equal(bodyAt(r.body, {"spec", "maxReplicas"}).c_str(), "7");
    assert_string_equal(bodyAt(r.body, {"status", "desiredReplicas"}).c_str(), "4");
    HttpResponse t = s.send("GET", name, "", "application/json", kTableAccept);
    assert_string_equal(tableRow(t.body, 0).c_str(),
                        R"(["web","Deployment/web","cpu: 42%/80%","1",7,3,"0s"])");
    r = s.send("PATCH", name + "/status",
               R"({"status":{"currentReplicas":-1,"desiredReplicas":-2}})",
               "application/merge-patch+json");
    assert_int_equal(r.status, 422);
    assert_string_equal(statusCauses(r.body).c_str(),
                        "status.currentReplicas: Invalid value: -1: must be greater than or "
                        "equal to 0\n"
                        "status.desiredReplicasa: Invalid value: -2: must be greater than or "
                        "equal to 0\n");
    // Discovery: short name and category, as kube lists them.
    kube::util::json::Document d =
        kube::testing::parseJson(s.send("GET", "/apis/autoscaling/v2").body);
    std::string seen;
    for (const auto& res : d["resources"].GetArray()) {
        seen += std::string(kube::util::json::stringMember(res, "name")) + " ";
        if (kube::util::json::stringMember(res, "name") == "horizontalpodautoscalers") {
            assert_string_equal(kube::util::json::serialize(res["shortNames"]).c_str(),
                                R"(["hpa"])");
            assert_string_equal(kube::util::json::serialize(res["categories"]).c_str(),
                                R"(["all"])");
        }
    }
    assert_string_equal(seen.c_str(), "horizontalpodautoscalers horizontalpodautoscalers/status ");
}

void v2_objects_read_at_v1_with_the_rest_in_annotations(void**) {
    Server s;
    HttpResponse r = s.send(
        "POST", kHPAs,
        hpa("full", R"(,"minReplicas":2,"maxReplicas":10,"metrics":[)"
                    R"({"type":"Resource","resource":{"name":"memory","target":{"type":)"
                    R"("AverageValue","averageValue":"500Mi"}}},)"
                    R"({"type":"Resource","resource":{"name":"cpu","target":{"type":)"
                    R"("Utilization","averageUtilization":60}}},)"
                    R"({"type":"Pods","pods":{"metric":{"name":"pps","selector":{"matchLabels":)"
                    R"({"a":"b"}}},"target":{"type":"AverageValue","averageValue":"1k"}}},)"
                    R"({"type":"Object","object":{"describedObject":{"kind":"Ingress","name":)"
                    R"("main","apiVersion":"networking.k8s.io/v1"},"metric":{"name":"rps"},)"
                    R"("target":{"type":"Value","value":"10k"}}},)"
                    R"({"type":"External","external":{"metric":{"name":"q"},"target":{"type":)"
                    R"("AverageValue","averageValue":"30"}}}],)"
                    R"("behavior":{"scaleDown":{"stabilizationWindowSeconds":300,"policies":)"
                    R"([{"type":"Percent","value":10,"periodSeconds":60}]}})"));
    assert_int_equal(r.status, 201);
    r = s.send("PATCH", std::string(kHPAs) + "/full/status",
               R"({"status":{"currentReplicas":3,"desiredReplicas":4,"currentMetrics":[)"
               R"({"type":"Resource","resource":{"name":"cpu","current":{"averageUtilization":)"
               R"(55,"averageValue":"120m"}}},{"type":"External","external":{"metric":)"
               R"({"name":"q"},"current":{"averageValue":"20"}}}],"conditions":[{"type":)"
               R"("AbleToScale","status":"True","reason":"ReadyForNewScale"}]}})",
               "application/merge-patch+json");
    assert_int_equal(r.status, 200);
    // What kube-apiserver 1.26.5 answers for the same object at autoscaling/v1.
    r = s.send("GET", std::string(kV1HPAs) + "/full");
    assert_int_equal(r.status, 200);
    assert_string_equal(bodyAt(r.body, {"apiVersion"}).c_str(), "autoscaling/v1");
    assert_string_equal(bodyAt(r.body, {"spec"}).c_str(),
                        R"({"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":)"
                        R"("apps/v1"},"minReplicas":2,"maxReplicas":10,)"
                        R"("targetCPUUtilizationPercentage":60})");
    assert_string_equal(bodyAt(r.body, {"status"}).c_str(),
                        R"({"currentReplicas":3,"desiredReplicas":4,)"
                        R"("currentCPUUtilizationPercentage":55})");
    assert_string_equal(
        bodyAt(r.body, {"metadata", "annotations"}).c_str(),
        R"({"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":{\"StabilizationWindowSeconds\":0,)"
        R"(\"SelectPolicy\":\"Max\",\"Policies\":[{\"Type\":\"Pods\",\"Value\":4,\"PeriodSeconds\":15},)"
        R"({\"Type\":\"Percent\",\"Value\":100,\"PeriodSeconds\":15}]},\"ScaleDown\":)"
        R"({\"StabilizationWindowSeconds\":300,\"SelectPolicy\":\"Max\",\"Policies\":[{\"Type\":)"
        R"(\"Percent\",\"Value\":10,\"PeriodSeconds\":60}]}}",)"
        R"("autoscaling.alpha.kubernetes.io/conditions":"[{\"type\":\"AbleToScale\",\"status\":)"
        R"(\"True\",\"lastTransitionTime\":null,\"reason\":\"ReadyForNewScale\"}]",)"
        R"("autoscaling.alpha.kubernetes.io/current-metrics":"[{\"type\":\"Resource\",\"resource\":)"
        R"({\"name\":\"cpu\",\"currentAverageUtilization\":55,\"currentAverageValue\":\"120m\"}},)"
        R"({\"type\":\"External\",\"external\":{\"metricName\":\"q\",\"currentValue\":\"0\",)"
        R"(\"currentAverageValue\":\"20\"}}]",)"
        R"("autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"Resource\",\"resource\":)"
        R"({\"name\":\"memory\",\"targetAverageValue\":\"500Mi\"}},{\"type\":\"Pods\",\"pods\":)"
        R"({\"metricName\":\"pps\",\"targetAverageValue\":\"1k\",\"selector\":{\"matchLabels\":)"
        R"({\"a\":\"b\"}}}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Ingress\",)"
        R"(\"name\":\"main\",\"apiVersion\":\"networking.k8s.io/v1\"},\"metricName\":\"rps\",)"
        R"(\"targetValue\":\"10k\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"q\",)"
        R"(\"targetAverageValue\":\"30\"}}]"})");
    // Written back at v1, the annotations restore what v1 cannot say; the
    // CPU target comes last, as kube's conversion appends it.
    std::string v1 = r.body;
    r = s.send("PUT", std::string(kV1HPAs) + "/full", v1);
    assert_int_equal(r.status, 200);
    r = s.send("GET", std::string(kHPAs) + "/full");
    assert_string_equal(bodyAt(r.body, {"metadata", "annotations"}).c_str(), "<absent>");
    assert_string_equal(
        bodyAt(r.body, {"spec", "metrics"}).c_str(),
        R"([{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue",)"
        R"("averageValue":"500Mi"}}},{"type":"Pods","pods":{"metric":{"name":"pps","selector":)"
        R"({"matchLabels":{"a":"b"}}},"target":{"type":"AverageValue","averageValue":"1k"}}},)"
        R"({"type":"Object","object":{"describedObject":{"kind":"Ingress","name":"main",)"
        R"("apiVersion":"networking.k8s.io/v1"},"target":{"type":"Value","value":"10k"},)"
        R"("metric":{"name":"rps"}}},{"type":"External","external":{"metric":{"name":"q"},)"
        R"("target":{"type":"AverageValue","averageValue":"30"}}},{"type":"Resource",)"
        R"("resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}}])");
    assert_string_equal(bodyAt(r.body, {"spec", "behavior", "scaleDown"}).c_str(),
                        R"({"stabilizationWindowSeconds":300,"selectPolicy":"Max","policies":)"
                        R"([{"type":"Percent","value":10,"periodSeconds":60}]})");
    // Lists and tables at v1 (the printer pairs metrics and statuses by index).
    r = s.send("GET", kV1HPAs);
    assert_string_equal(bodyAt(r.body, {"kind"}).c_str(), "HorizontalPodAutoscalerList");
    assert_string_equal(bodyAt(r.body, {"apiVersion"}).c_str(), "autoscaling/v1");
    assert_true(r.body.find(R"("targetCPUUtilizationPercentage":60)") != std::string::npos);
    HttpResponse t = s.send("GET", kV1HPAs, "", "application/json", kTableAccept);
    assert_string_equal(tableRow(t.body, 0).c_str(),
                        R"(["full","Deployment/web","memory: 120m/500Mi, <unknown>/1k + 3 )"
                        R"(more...","2",10,3,"0s"])");
}

void v1_writes_convert_as_kube_converts(void**) {
    Server s;
    // No CPU target: v1's implicit 80%, made explicit; v1 defaults minReplicas.
    HttpResponse r = s.send("POST", kV1HPAs,
                            R"({"metadata":{"name":"a"},"spec":{"scaleTargetRef":{"kind":)"
                            R"("Deployment","name":"web"},"maxReplicas":3}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(bodyAt(r.body, {"spec"}).c_str(),
                        R"({"scaleTargetRef":{"kind":"Deployment","name":"web"},"minReplicas":1,)"
                        R"("maxReplicas":3,"targetCPUUtilizationPercentage":80})");
    assert_string_equal(bodyAt(r.body, {"status"}).c_str(),
                        R"({"currentReplicas":0,"desiredReplicas":0})");
    // Annotations in v1's metric shapes and Go's field names become v2
    // fields; one Go cannot decode is ignored.
    r = s.send(
        "POST", kV1HPAs,
        R"({"metadata":{"name":"b","annotations":{"z":"1",)"
        R"("autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"External\",)"
        R"(\"external\":{\"metricName\":\"q\",\"targetValue\":\"0.5\"}}]",)"
        R"("autoscaling.alpha.kubernetes.io/current-metrics":"[{\"type\":\"Pods\",)"
        R"(\"pods\":{\"metricName\":3}}]",)"
        R"("autoscaling.alpha.kubernetes.io/behavior":"{\"scaleDown\":{\"selectPolicy\":)"
        R"(\"Min\",\"policies\":[{\"type\":\"Pods\",\"value\":1,\"periodSeconds\":60}]}}"}},)"
        R"("spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":4,)"
        R"("targetCPUUtilizationPercentage":70}})");
    assert_int_equal(r.status, 201);
    r = s.send("GET", std::string(kHPAs) + "/b");
    assert_string_equal(bodyAt(r.body, {"metadata", "annotations"}).c_str(), R"({"z":"1"})");
    assert_string_equal(
        bodyAt(r.body, {"spec", "metrics"}).c_str(),
        R"([{"type":"External","external":{"metric":{"name":"q"},"target":{"type":"Value",)"
        R"("value":"500m"}}},{"type":"Resource","resource":{"name":"cpu","target":{"type":)"
        R"("Utilization","averageUtilization":70}}}])");
    assert_string_equal(
        bodyAt(r.body, {"spec", "behavior"}).c_str(),
        R"({"scaleDown":{"selectPolicy":"Min","policies":[{"type":"Pods",)"
        R"("value":1,"periodSeconds":60}]},"scaleUp":{"stabilizationWindowSeconds")"
        R"(:0,"selectPolicy":"Max","policies":[{"type":"Pods","value":4,)"
        R"("periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]}})");
    // The status subresource at v1: the CPU utilization is a current metric.
    r = s.send("PATCH", std::string(kV1HPAs) + "/b/status",
               R"({"status":{"currentReplicas":2,"desiredReplicas":3,)"
               R"("currentCPUUtilizationPercentage":42}})",
               "application/merge-patch+json");
    assert_int_equal(r.status, 200);
    assert_string_equal(bodyAt(r.body, {"status", "currentCPUUtilizationPercentage"}).c_str(),
                        "42");
    r = s.send("GET", std::string(kHPAs) + "/b");
    assert_string_equal(bodyAt(r.body, {"status", "currentMetrics"}).c_str(),
                        R"([{"type":"Resource","resource":{"name":"cpu","current":)"
                        R"({"averageUtilization":42}}}])");
    // Invalid objects are judged in v2's terms, as kube validates the
    // internal object.
    r = s.send("POST", kV1HPAs,
               R"({"metadata":{"name":"bad","annotations":{"autoscaling.alpha.kubernetes.io/)"
               R"(metrics":"[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"\"}}]"}},)"
               R"("spec":{"scaleTargetRef":{"kind":"","name":"x"},"minReplicas":0,)"
               R"("maxReplicas":0,"targetCPUUtilizationPercentage":0}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(bodyAt(r.body, {"details", "kind"}).c_str(), "HorizontalPodAutoscaler");
    assert_string_equal(bodyAt(r.body, {"details", "group"}).c_str(), "autoscaling");
    std::string causes = statusCauses(r.body);
    assert_true(causes.starts_with(
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1\n"
        "spec.maxReplicas: Invalid value: 0: must be greater than 0\n"
        "spec.scaleTargetRef.kind: Required value\n"
        "spec.metrics[0].pods.metric.name: Required value: must specify a metric name\n"));
    assert_true(causes.find("spec.metrics[1].resource.target.averageUtilization: Invalid value: "
                            "0: must be greater than 0\n") != std::string::npos);
    // Discovery lists v2 first and prefers it, as kube 1.26 does.
    kube::util::json::Document g =
        kube::testing::parseJson(s.send("GET", "/apis/autoscaling").body);
    assert_string_equal(kube::util::json::serialize(g["versions"]).c_str(),
                        R"([{"groupVersion":"autoscaling/v2","version":"v2"},)"
                        R"({"groupVersion":"autoscaling/v1","version":"v1"}])");
    assert_string_equal(kube::util::json::serialize(g["preferredVersion"]).c_str(),
                        R"({"groupVersion":"autoscaling/v2","version":"v2"})");
}

void v1_is_applied_and_managed_at_v1(void**) {
    Server s;
    std::string name = std::string(kV1HPAs) + "/ssa";
    std::string body =
        "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\n"
        "metadata: {name: ssa}\nspec:\n  scaleTargetRef: {kind: Deployment, "
        "name: web}\n  maxReplicas: 4\n  targetCPUUtilizationPercentage: 55\n";
    HttpResponse r =
        s.send("PATCH", name + "?fieldManager=ctl", body, "application/apply-patch+yaml");
    assert_int_equal(r.status, 201);
    kube::util::json::Document d = kube::testing::parseJson(r.body);
    const auto& entry = d["metadata"]["managedFields"][0];
    assert_string_equal(kube::util::json::stringMember(entry, "apiVersion").data(),
                        "autoscaling/v1");
    // v1's CrossVersionObjectReference is atomic.
    assert_string_equal(kube::util::json::serialize(entry["fieldsV1"]).c_str(),
                        R"({"f:spec":{"f:maxReplicas":{},"f:scaleTargetRef":{},)"
                        R"("f:targetCPUUtilizationPercentage":{}}})");
    r = s.send("GET", std::string(kHPAs) + "/ssa");
    assert_true(r.body.find(R"("averageUtilization":55)") != std::string::npos);
    r = s.send("PATCH", name + "?fieldManager=other",
               "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: ssa}\n"
               "spec:\n  maxReplicas: 6\n",
               "application/apply-patch+yaml");
    assert_int_equal(r.status, 409);
    assert_string_equal(bodyAt(r.body, {"message"}).c_str(),
                        "Apply failed with 1 conflict: conflict with \"ctl\": .spec.maxReplicas");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_80_percent_cpu_and_kubes_scaling_rules),
        cmocka_unit_test(spec_checks_are_kubes),
        cmocka_unit_test(status_is_its_own_subresource),
        cmocka_unit_test(v2_objects_read_at_v1_with_the_rest_in_annotations),
        cmocka_unit_test(v1_writes_convert_as_kube_converts),
        cmocka_unit_test(v1_is_applied_and_managed_at_v1),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
