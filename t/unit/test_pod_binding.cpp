// pods/<name>/binding and bindings, as kube-apiserver 1.26 answers what a
// scheduler posts: the pod gets its node, the Binding's annotations and a
// PodScheduled condition; a bound or deleted pod, a bad target, a name or
// precondition that does not match are refused with kube's statuses.
#include <memory>
#include <optional>
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

namespace json = kube::util::json;
using kube::endpoints::HttpResponse;

constexpr const char* kPods = "/api/v1/namespaces/default/pods";

struct Server : kube::testing::ServedServer {
    void createPod(const std::string& name) {
        HttpResponse r = send("POST", kPods,
                              R"({"metadata":{"name":")" + name +
                                  R"(","annotations":{"x":"z"}},"spec":{"containers":)"
                                  R"([{"name":"c","image":"nginx:1.25"}]}})");
        if (r.status != 201) {
            fail_msg("pod %s: %d %s", name.c_str(), r.status, r.body.c_str());
        }
    }

    HttpResponse bind(const std::string& pod, const std::string& binding) {
        return send("POST", std::string(kPods) + "/" + pod + "/binding", binding);
    }
};

// The answers' readers every kind's unit test shares.
auto& parse = kube::testing::parseJson;
auto& at = kube::testing::bodyAt;

std::string binding(const std::string& name, const std::string& node,
                    const std::string& extraMeta = "") {
    return R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + name + "\"" + extraMeta +
           R"(},"target":{"kind":"Node","name":")" + node + "\"}}";
}

void binding_sets_the_node_annotations_and_the_scheduled_condition(void**) {
    Server s;
    s.createPod("p1");
    HttpResponse r = s.bind("p1", binding("p1", "n1", R"(,"annotations":{"a":"b"})"));
    assert_int_equal(r.status, 201);
    assert_string_equal(r.body.c_str(),
                        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",)"
                        R"("code":201})");
    std::string pod = s.send("GET", std::string(kPods) + "/p1").body;
    assert_string_equal(at(pod, {"spec", "nodeName"}).c_str(), "n1");
    assert_string_equal(at(pod, {"metadata", "annotations"}).c_str(), R"({"x":"z","a":"b"})");
    json::Document d = parse(pod);
    const json::Value& c = (*json::at(d, {"status", "conditions"}))[0];
    assert_string_equal(json::stringMember(c, "type").data(), "PodScheduled");
    assert_string_equal(json::stringMember(c, "status").data(), "True");
    assert_true(json::member(c, "lastProbeTime")->IsNull());
    assert_int_equal(json::stringMember(c, "lastTransitionTime").size(), 20);
}

void a_bound_pod_is_a_conflict_on_pods_binding(void**) {
    Server s;
    s.createPod("p1");
    assert_int_equal(s.bind("p1", binding("p1", "n1")).status, 201);
    HttpResponse r = s.bind("p1", binding("p1", "n2"));
    assert_int_equal(r.status, 409);
    assert_string_equal(at(r.body, {"message"}).c_str(),
                        "Operation cannot be fulfilled on pods/binding \"p1\": pod p1 is already "
                        "assigned to node \"n1\"");
    assert_string_equal(at(r.body, {"details", "kind"}).c_str(), "pods/binding");
    assert_string_equal(
        at(s.send("GET", std::string(kPods) + "/p1").body, {"spec", "nodeName"}).c_str(), "n1");
}

void an_unschedulable_condition_is_replaced_by_scheduled_true(void**) {
    Server s;
    s.createPod("p5");
    HttpResponse r = s.send("PATCH", std::string(kPods) + "/p5/status",
                            R"({"status":{"conditions":[{"type":"PodScheduled","status":"False",)"
                            R"("reason":"Unschedulable","message":"no",)"
                            R"("lastTransitionTime":"2026-01-01T00:00:00Z"}]}})",
                            "application/merge-patch+json");
    assert_int_equal(r.status, 200);
    assert_int_equal(s.bind("p5", binding("p5", "n1")).status, 201);
    json::Document d = parse(s.send("GET", std::string(kPods) + "/p5").body);
    const json::Value& conditions = *json::at(d, {"status", "conditions"});
    assert_int_equal(conditions.Size(), 1);
    // The reason and message go; the condition became True just now.
    assert_false(json::member(conditions[0], "reason"));
    assert_false(json::member(conditions[0], "message"));
    assert_string_equal(json::stringMember(conditions[0], "status").data(), "True");
    assert_string_not_equal(json::stringMember(conditions[0], "lastTransitionTime").data(),
                            "2026-01-01T00:00:00Z");
}

void a_pod_being_deleted_is_not_bound(void**) {
    Server s;
    HttpResponse r = s.send("POST", kPods,
                            R"({"metadata":{"name":"p6","finalizers":["example.com/hold"]},)"
                            R"("spec":{"containers":[{"name":"c","image":"nginx:1.25"}]}})");
    assert_int_equal(r.status, 201);
    assert_int_equal(s.send("DELETE", std::string(kPods) + "/p6").status, 200);
    r = s.bind("p6", binding("p6", "n1"));
    assert_int_equal(r.status, 409);
    assert_string_equal(at(r.body, {"message"}).c_str(),
                        "Operation cannot be fulfilled on pods/binding \"p6\": pod p6 is being "
                        "deleted, cannot be assigned to a host");
}

void a_bad_target_is_kubes_500_and_changes_nothing(void**) {
    Server s;
    s.createPod("p2");
    HttpResponse r =
        s.bind("p2", R"({"metadata":{"name":"p2"},"target":{"kind":"Pod","name":"n1"}})");
    assert_int_equal(r.status, 500);
    assert_string_equal(at(r.body, {"message"}).c_str(),
                        "target.kind: Unsupported value: \"Pod\": supported values: \"Node\", "
                        "\"<empty>\"");
    assert_string_equal(at(r.body, {"reason"}).c_str(), "<absent>");
    r = s.bind("p2", R"({"metadata":{"name":"p2"},"target":{}})");
    assert_int_equal(r.status, 500);
    assert_string_equal(at(r.body, {"message"}).c_str(), "target.name: Required value");
    assert_string_equal(
        at(s.send("GET", std::string(kPods) + "/p2").body, {"spec", "nodeName"}).c_str(),
        "<absent>");
}

void names_namespaces_and_preconditions_must_match_the_pod(void**) {
    Server s;
    s.createPod("p2");
    HttpResponse r = s.bind("p2", binding("p3", "n1"));
    assert_int_equal(r.status, 400);
    assert_string_equal(at(r.body, {"message"}).c_str(),
                        "name in URL does not match name in Binding object");
    r = s.bind("p2", binding("p2", "n1", R"(,"namespace":"other")"));
    assert_int_equal(r.status, 400);
    assert_string_equal(at(r.body, {"message"}).c_str(),
                        "the namespace of the provided object does not match the namespace sent "
                        "on the request");
    r = s.bind("p2", binding("p2", "n1", R"(,"uid":"abc")"));
    assert_int_equal(r.status, 409);
    std::string message = at(r.body, {"message"});
    assert_true(
        message.starts_with("Operation cannot be fulfilled on pods \"p2\": StorageError: "
                            "invalid object, Code: 4, Key: /registry/pods/default/p2, "
                            "ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: "
                            "UID in precondition: abc, UID in object meta: "));
    r = s.bind("p2", binding("p2", "n1", R"(,"resourceVersion":"1")"));
    assert_int_equal(r.status, 409);
    assert_true(at(r.body, {"message"}).find("ResourceVersion in precondition: 1") !=
                std::string::npos);
    r = s.bind("nope", binding("nope", "n1"));
    assert_int_equal(r.status, 404);
    assert_string_equal(at(r.body, {"message"}).c_str(), "pods \"nope\" not found");
}

void the_bindings_resource_names_the_pod_in_the_body(void**) {
    Server s;
    s.createPod("p3");
    HttpResponse r = s.send("POST", "/api/v1/namespaces/default/bindings",
                            R"({"metadata":{},"target":{"name":"n1"}})");
    assert_int_equal(r.status, 400);
    assert_string_equal(at(r.body, {"message"}).c_str(), "Name parameter required.");
    r = s.send("POST", "/api/v1/namespaces/default/bindings", binding("p3", "n1"));
    assert_int_equal(r.status, 201);
    assert_string_equal(
        at(s.send("GET", std::string(kPods) + "/p3").body, {"spec", "nodeName"}).c_str(), "n1");
    // Create is all either path serves.
    assert_int_equal(s.send("GET", "/api/v1/namespaces/default/bindings").status, 405);
    assert_int_equal(s.send("GET", std::string(kPods) + "/p3/binding").status, 405);
}

void a_dry_run_binding_leaves_the_pod_alone(void**) {
    Server s;
    s.createPod("p4");
    HttpResponse r =
        s.send("POST", std::string(kPods) + "/p4/binding?dryRun=All", binding("p4", "n1"));
    assert_int_equal(r.status, 201);
    assert_string_equal(
        at(s.send("GET", std::string(kPods) + "/p4").body, {"spec", "nodeName"}).c_str(),
        "<absent>");
}

void discovery_lists_bindings_and_pods_binding_for_create(void**) {
    Server s;
    json::Document d = parse(s.send("GET", "/api/v1").body);
    std::string bindings, podsBinding;
    for (const json::Value& r : d["resources"].GetArray()) {
        std::string_view name = json::stringMember(r, "name");
        if (name == "bindings") {
            bindings = json::serialize(r);
        } else if (name == "pods/binding") {
            podsBinding = json::serialize(r);
        }
    }
    assert_string_equal(bindings.c_str(),
                        R"({"name":"bindings","singularName":"binding","namespaced":true,)"
                        R"("kind":"Binding","verbs":["create"]})");
    assert_string_equal(podsBinding.c_str(),
                        R"({"name":"pods/binding","singularName":"","namespaced":true,)"
                        R"("kind":"Binding","verbs":["create"]})");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(binding_sets_the_node_annotations_and_the_scheduled_condition),
        cmocka_unit_test(a_bound_pod_is_a_conflict_on_pods_binding),
        cmocka_unit_test(an_unschedulable_condition_is_replaced_by_scheduled_true),
        cmocka_unit_test(a_pod_being_deleted_is_not_bound),
        cmocka_unit_test(a_bad_target_is_kubes_500_and_changes_nothing),
        cmocka_unit_test(names_namespaces_and_preconditions_must_match_the_pod),
        cmocka_unit_test(the_bindings_resource_names_the_pod_in_the_body),
        cmocka_unit_test(a_dry_run_binding_leaves_the_pod_alone),
        cmocka_unit_test(discovery_lists_bindings_and_pods_binding_for_create),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
