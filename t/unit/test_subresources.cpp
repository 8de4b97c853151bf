#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "endpoints/request_info.hpp"
#include "fake_loop.hpp"
#include "registry/scale.hpp"
#include "registry/scheme.hpp"
#include "server/server.hpp"
#include "registry/status_strategy.hpp"
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

#include "served_answers.hpp"
#include "served_server.hpp"

namespace json = kube::util::json;
namespace registry = kube::registry;
using kube::endpoints::HttpRequest;
using kube::endpoints::HttpResponse;
using kube::testing::FakeLoop;

namespace {

// The JSON readers every unit test shares.
auto& parse = kube::testing::parseJson;
using kube::testing::bodyAt;
using kube::testing::valueAt;

const registry::KindInfo& builtin(std::string_view group, std::string_view resource) {
    static registry::Scheme scheme = [] {
        registry::Scheme s;
        registry::addBuiltinKinds(s);
        return s;
    }();
    const registry::KindInfo* k = scheme.find(group, "v1", resource);
    if (!k) {
        fail_msg("no kind %s", std::string(resource).c_str());
    }
    return *k;
}

// A stored Deployment as the store returns it.
const char* kStoredDeployment =
    R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":"sub",)"
    R"("uid":"u-1","resourceVersion":"7","generation":3,)"
    R"("creationTimestamp":"2024-01-02T03:04:05Z",)"
    R"("labels":{"app":"web"},"annotations":{"a":"1"}},"spec":{"replicas":4,"selector":)"
    R"({"matchExpressions":[{"key":"tier","operator":"NotIn","values":["z","b"]}],)"
    R"("matchLabels":{"app":"web"}}},"status":{"replicas":3,"readyReplicas":2}})";

// --- the scale mapping -----------------------------------------------------------------------

void scale_of_an_object_carries_its_counts_and_its_selector_as_text(void**) {
    json::Document d = parse(kStoredDeployment);
    json::Document scale = registry::scaleFromObject(builtin("apps", "deployments"), d);
    assert_string_equal(json::serialize(scale).c_str(),
                        R"({"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web",)"
                        R"("namespace":"sub","uid":"u-1","resourceVersion":"7",)"
                        R"("creationTimestamp":"2024-01-02T03:04:05Z"},"spec":{"replicas":4},)"
                        R"j("status":{"replicas":3,"selector":"app=web,tier notin (b,z)"}})j");
}

void scale_leaves_out_zero_replicas_and_an_empty_selector(void**) {
    json::Document d =
        parse(R"({"metadata":{"name":"idle"},"spec":{"replicas":0,"selector":{}},"status":{}})");
    json::Document scale = registry::scaleFromObject(builtin("apps", "deployments"), d);
    assert_string_equal(valueAt(scale, {"spec"}).c_str(), "{}");
    // status.replicas is always written; the selector only when it selects something.
    assert_string_equal(valueAt(scale, {"status"}).c_str(), R"({"replicas":0})");
}

void applied_scale_sets_replicas_and_the_resource_version_precondition(void**) {
    const registry::KindInfo& deploys = builtin("apps", "deployments");
    json::Document parent = parse(kStoredDeployment);
    json::Document scale =
        parse(R"({"metadata":{"name":"web","namespace":"sub","resourceVersion":"6"},)"
              R"("spec":{"replicas":9}})");
    assert_false(registry::applyScale(deploys, scale, parent).has_value());
    assert_string_equal(valueAt(parent, {"spec", "replicas"}).c_str(), "9");
    assert_string_equal(valueAt(parent, {"metadata", "resourceVersion"}).c_str(), "6");
    // The rest of the parent is untouched.
    assert_string_equal(valueAt(parent, {"status", "replicas"}).c_str(), "3");
    assert_string_equal(valueAt(parent, {"spec", "selector", "matchLabels", "app"}).c_str(), "web");

    // No resourceVersion: no precondition; no replicas: 0, as Go decodes it.
    scale = parse(R"({"metadata":{"name":"web","namespace":"sub"},"spec":{}})");
    assert_false(registry::applyScale(deploys, scale, parent).has_value());
    assert_string_equal(valueAt(parent, {"metadata", "resourceVersion"}).c_str(), "<absent>");
    assert_string_equal(valueAt(parent, {"spec", "replicas"}).c_str(), "0");
}

void a_negative_scale_is_invalid_as_scale_autoscaling(void**) {
    json::Document parent = parse(kStoredDeployment);
    json::Document scale =
        parse(R"({"metadata":{"name":"web","namespace":"sub"},"spec":{"replicas":-2}})");
    auto err = registry::applyScale(builtin("apps", "deployments"), scale, parent);
    assert_true(err.has_value());
    assert_int_equal(err->code, 422);
    assert_string_equal(err->message.c_str(),
                        "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -2: "
                        "must be greater than or equal to 0");
    assert_string_equal(valueAt(parent, {"spec", "replicas"}).c_str(), "4");
}

void a_scale_with_another_uid_conflicts_on_the_scale_resource(void**) {
    json::Document parent = parse(kStoredDeployment);
    json::Document scale =
        parse(R"({"metadata":{"name":"web","namespace":"sub","uid":"u-2"},"spec":{"replicas":1}})");
    auto err = registry::applyScale(builtin("apps", "replicasets"), scale, parent);
    assert_true(err.has_value());
    assert_int_equal(err->code, 409);
    assert_string_equal(err->message.c_str(),
                        "Operation cannot be fulfilled on replicasets/scale.apps \"web\": "
                        "Precondition failed: UID in precondition: u-2, UID in object meta: u-1");
}

// --- the status strategy ---------------------------------------------------------------------

void status_update_keeps_the_stored_spec_and_takes_status_and_metadata(void**) {
    const registry::KindInfo& jobs = builtin("batch", "jobs");
    json::Document old =
        parse(R"({"metadata":{"name":"j"},"spec":{"parallelism":1},"status":{"active":1}})");
    json::Document next =
        parse(R"({"metadata":{"name":"j","labels":{"l":"1"}},"spec":{"parallelism":5},)"
              R"("status":{"succeeded":1},"extra":true})");
    registry::prepareForStatusUpdate(jobs, next, old, {});
    assert_string_equal(json::serialize(next).c_str(),
                        R"({"metadata":{"name":"j","labels":{"l":"1"}},"spec":{"parallelism":1},)"
                        R"("status":{"succeeded":1}})");
}

void deployment_status_update_keeps_the_stored_labels(void**) {
    json::Document old = parse(kStoredDeployment);
    json::Document next = parse(kStoredDeployment);
    next["metadata"]["labels"]["app"].SetString("other");
    next["metadata"]["annotations"]["a"].SetString("2");
    registry::prepareForStatusUpdate(builtin("apps", "deployments"), next, old, {});
    assert_string_equal(valueAt(next, {"metadata", "labels"}).c_str(), R"({"app":"web"})");
    assert_string_equal(valueAt(next, {"metadata", "annotations"}).c_str(), R"({"a":"2"})");
}

void pod_status_update_keeps_owner_references_and_the_qos_class(void**) {
    json::Document old =
        parse(R"({"metadata":{"name":"p","ownerReferences":[{"name":"rs"}]},"spec":{},)"
              R"("status":{"qosClass":"BestEffort","phase":"Pending"}})");
    json::Document next = parse(R"({"metadata":{"name":"p"},"status":{"phase":"Running"}})");
    registry::prepareForStatusUpdate(builtin("", "pods"), next, old, {});
    assert_string_equal(valueAt(next, {"metadata", "ownerReferences"}).c_str(),
                        R"([{"name":"rs"}])");
    assert_string_equal(valueAt(next, {"status"}).c_str(),
                        R"({"phase":"Running","qosClass":"BestEffort"})");
}

void volume_status_update_stamps_a_phase_change(void**) {
    const registry::KindInfo& pvs = builtin("", "persistentvolumes");
    registry::StatusUpdateContext ctx{
        std::chrono::system_clock::time_point(std::chrono::seconds(1700000000))};
    json::Document old = parse(R"({"metadata":{"name":"v"},"status":{"phase":"Pending",)"
                               R"("lastPhaseTransitionTime":"2023-01-01T00:00:00Z"}})");
    json::Document same = parse(R"({"metadata":{"name":"v"},"status":{"phase":"Pending"}})");
    registry::prepareForStatusUpdate(pvs, same, old, ctx);
    assert_string_equal(valueAt(same, {"status", "lastPhaseTransitionTime"}).c_str(),
                        "2023-01-01T00:00:00Z");
    json::Document moved = parse(R"({"metadata":{"name":"v"},"status":{"phase":"Bound"}})");
    registry::prepareForStatusUpdate(pvs, moved, old, ctx);
    assert_string_equal(valueAt(moved, {"status", "lastPhaseTransitionTime"}).c_str(),
                        "2023-11-14T22:13:20Z");
}

void every_kind_with_a_status_subresource_lists_it(void**) {
    registry::Scheme scheme;
    registry::addBuiltinKinds(scheme);
    int scalable = 0;
    int withStatus = 0;
    for (const auto& k : scheme.all()) {
        withStatus += k->statusIsSubresource();
        if (const registry::SubresourceInfo* s = k->subresource("scale")) {
            assert_string_equal(s->group.c_str(), "autoscaling");
            assert_string_equal(s->kind.c_str(), "Scale");
            scalable++;
        }
    }
    assert_int_equal(scalable, 4);     // replicationcontrollers too
    // the flowcontrol kinds at v1 and v1beta3, horizontalpodautoscalers at v1
    // and v2, certificatesigningrequests, apiservices, validatingadmissionpolicies and
    // servicecidrs among them
    assert_int_equal(withStatus, 28);
}

// --- over the server -------------------------------------------------------------------------

struct Fixture : kube::testing::ServedServer {
    Fixture() {
        expect(send("POST", "/api/v1/namespaces", R"({"metadata":{"name":"sub"}})"), 201);
        expect(
            send("POST", "/apis/apps/v1/namespaces/sub/deployments",
                 R"({"metadata":{"name":"web","labels":{"app":"web"}},"spec":{"replicas":2,)"
                 R"("selector":{"matchLabels":{"app":"web"}},"template":{"metadata":)"
                 R"({"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}})"),
            201);
    }

    static void expect(const HttpResponse& r, int code) {
        if (r.status != code) {
            fail_msg("want %d, got %d: %s", code, r.status, r.body.c_str());
        }
    }
};

const char* kWeb = "/apis/apps/v1/namespaces/sub/deployments/web";

void scale_patch_sets_the_deployment_replicas_and_answers_a_scale(void**) {
    Fixture f;
    HttpResponse r = f.send("PATCH", std::string(kWeb) + "/scale", R"({"spec":{"replicas":5}})",
                            "application/merge-patch+json");
    Fixture::expect(r, 200);
    assert_string_equal(bodyAt(r.body, {"kind"}).c_str(), "Scale");
    assert_string_equal(bodyAt(r.body, {"spec", "replicas"}).c_str(), "5");
    assert_string_equal(bodyAt(r.body, {"status", "selector"}).c_str(), "app=web");
    std::string d = f.send("GET", kWeb).body;
    assert_string_equal(bodyAt(d, {"spec", "replicas"}).c_str(), "5");
    // The main strategy runs: a replica change is a spec change.
    assert_string_equal(bodyAt(d, {"metadata", "generation"}).c_str(), "2");
    assert_string_equal(bodyAt(d, {"metadata", "resourceVersion"}).c_str(),
                        bodyAt(r.body, {"metadata", "resourceVersion"}).c_str());
}

void scale_put_checks_name_resource_version_and_parent(void**) {
    Fixture f;
    std::string rv = bodyAt(f.send("GET", kWeb).body, {"metadata", "resourceVersion"});
    HttpResponse r =
        f.send("PUT", std::string(kWeb) + "/scale",
               R"({"metadata":{"name":"web","resourceVersion":"1"},"spec":{"replicas":3}})");
    Fixture::expect(r, 409);
    assert_string_equal(bodyAt(r.body, {"message"}).c_str(),
                        "Operation cannot be fulfilled on deployments.apps \"web\": the object has "
                        "been modified; please apply your changes to the latest version and try "
                        "again");
    r = f.send(
        "PUT", std::string(kWeb) + "/scale",
        R"({"metadata":{"name":"web","resourceVersion":")" + rv + R"("},"spec":{"replicas":3}})");
    Fixture::expect(r, 200);
    assert_string_equal(bodyAt(r.body, {"spec", "replicas"}).c_str(), "3");
    r = f.send("PUT", std::string(kWeb) + "/scale", R"({"metadata":{"name":"x"},"spec":{}})");
    Fixture::expect(r, 400);
    r = f.send("PUT", "/apis/apps/v1/namespaces/sub/deployments/x/scale",
               R"({"metadata":{"name":"x"},"spec":{"replicas":1}})");
    Fixture::expect(r, 404);
    assert_string_equal(bodyAt(r.body, {"message"}).c_str(), "deployments.apps \"x\" not found");
    r = f.send("PUT", std::string(kWeb) + "/scale",
               R"({"kind":"Deployment","metadata":{"name":"web"}})");
    Fixture::expect(r, 400);
}

void status_put_changes_only_status_and_keeps_the_generation(void**) {
    Fixture f;
    json::Document d = parse(f.send("GET", kWeb).body);
    auto& a = d.GetAllocator();
    d["spec"]["replicas"].SetInt(7);
    json::Value status(rapidjson::kObjectType);
    status.AddMember("replicas", 2, a);
    status.AddMember("observedGeneration", 1, a);
    json::setMember(d, "status", std::move(status), a);
    HttpResponse r = f.send("PUT", std::string(kWeb) + "/status", json::serialize(d));
    Fixture::expect(r, 200);
    assert_string_equal(bodyAt(r.body, {"spec", "replicas"}).c_str(), "2");
    assert_string_equal(bodyAt(r.body, {"status"}).c_str(),
                        R"({"replicas":2,"observedGeneration":1})");
    assert_string_equal(bodyAt(r.body, {"metadata", "generation"}).c_str(), "1");
    // The main resource still ignores status.
    r = f.send("PATCH", kWeb, R"({"status":{"replicas":9}})", "application/merge-patch+json");
    Fixture::expect(r, 200);
    assert_string_equal(bodyAt(r.body, {"status", "replicas"}).c_str(), "2");
}

void status_patch_is_validated_by_the_status_strategy(void**) {
    Fixture f;
    HttpResponse r =
        f.send("PATCH", std::string(kWeb) + "/status",
               R"({"status":{"replicas":1,"readyReplicas":3}})", "application/merge-patch+json");
    Fixture::expect(r, 422);
    assert_string_equal(bodyAt(r.body, {"message"}).c_str(),
                        "Deployment.apps \"web\" is invalid: status.readyReplicas: Invalid value: "
                        "3: cannot be greater than status.replicas");
    r = f.send("PATCH", "/api/v1/namespaces/sub/status", R"({"status":{"phase":"Terminating"}})",
               "application/merge-patch+json");
    Fixture::expect(r, 422);
    assert_string_equal(bodyAt(r.body, {"message"}).c_str(),
                        "Namespace \"sub\" is invalid: status.Phase: Invalid value: "
                        "\"Terminating\": may only be 'Active' if `deletionTimestamp` is empty");
}

void subresources_route_only_what_the_kind_lists(void**) {
    Fixture f;
    Fixture::expect(f.send("GET", std::string(kWeb) + "/status"), 200);
    Fixture::expect(f.send("GET", std::string(kWeb) + "/rollback"), 404);
    Fixture::expect(f.send("DELETE", std::string(kWeb) + "/status"), 405);
    Fixture::expect(f.send("POST", std::string(kWeb) + "/scale", "{}"), 405);
    f.send("POST", "/api/v1/namespaces/sub/configmaps", R"({"metadata":{"name":"c"}})");
    Fixture::expect(f.send("GET", "/api/v1/namespaces/sub/configmaps/c/status"), 404);
    Fixture::expect(f.send("GET", "/api/v1/namespaces/sub/pods/nosuch/scale"), 404);
}

void scale_renders_as_kube_s_default_table(void**) {
    Fixture f;
    HttpResponse r = f.send("GET", std::string(kWeb) + "/scale", "", "",
                            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
    Fixture::expect(r, 200);
    json::Document t = parse(r.body);
    assert_string_equal(valueAt(t, {"kind"}).c_str(), "Table");
    std::string names;
    for (const auto& c : t["columnDefinitions"].GetArray()) {
        names += std::string(json::stringMember(c, "name")) + ",";
    }
    assert_string_equal(names.c_str(), "Name,Desired,Available,Age,");
    const json::Value& cells = t["rows"][0]["cells"];
    assert_string_equal(json::serialize(cells[0]).c_str(), "\"web\"");
    assert_string_equal(json::serialize(cells[1]).c_str(), "2");
    assert_string_equal(json::serialize(cells[2]).c_str(), "0");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scale_of_an_object_carries_its_counts_and_its_selector_as_text),
        cmocka_unit_test(scale_leaves_out_zero_replicas_and_an_empty_selector),
        cmocka_unit_test(applied_scale_sets_replicas_and_the_resource_version_precondition),
        cmocka_unit_test(a_negative_scale_is_invalid_as_scale_autoscaling),
        cmocka_unit_test(a_scale_with_another_uid_conflicts_on_the_scale_resource),
        cmocka_unit_test(status_update_keeps_the_stored_spec_and_takes_status_and_metadata),
        cmocka_unit_test(deployment_status_update_keeps_the_stored_labels),
        cmocka_unit_test(pod_status_update_keeps_owner_references_and_the_qos_class),
        cmocka_unit_test(volume_status_update_stamps_a_phase_change),
        cmocka_unit_test(every_kind_with_a_status_subresource_lists_it),
        cmocka_unit_test(scale_patch_sets_the_deployment_replicas_and_answers_a_scale),
        cmocka_unit_test(scale_put_checks_name_resource_version_and_parent),
        cmocka_unit_test(status_put_changes_only_status_and_keeps_the_generation),
        cmocka_unit_test(status_patch_is_validated_by_the_status_strategy),
        cmocka_unit_test(subresources_route_only_what_the_kind_lists),
        cmocka_unit_test(scale_renders_as_kube_s_default_table),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
