// kube's default ServiceCIDR controller (pkg/controlplane/controller/
// defaultservicecidr): the worker that keeps the control plane's objects
// makes the ServiceCIDR `kubernetes` naming kube_service_cluster_ip_range,
// marks it Ready through its status, makes it again once deleted, and
// otherwise leaves what it finds: another range (told once, by kube's
// Warning event), a Ready condition someone set, a ServiceCIDR being
// deleted. t/065 runs it in nginx.
#include <chrono>
#include <string>

#include "controller/controlplane/control_plane_objects.hpp"
#include "server/server.hpp"
#include "util/json.hpp"
#include "util/time.hpp"

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
using kube::testing::bodyAt;
using kube::testing::ServedServer;

constexpr const char* kDefault = "/apis/networking.k8s.io/v1/servicecidrs/kubernetes";
constexpr const char* kCollection = "/apis/networking.k8s.io/v1/servicecidrs";
constexpr const char* kReady =
    R"({"type":"Ready","status":"True","lastTransitionTime":"%s","reason":"",)"
    R"("message":"Kubernetes default Service CIDR is ready"})";

kube::server::ServerOptions ownerOptions(const std::string& range = "10.0.0.0/24") {
    kube::server::ServerOptions o;
    o.rbacPolicyOwner = true;  // the worker that keeps the control plane's objects
    o.serviceClusterIPRange = range;
    return o;
}

// The next pass of the control plane's objects.
void nextPass(ServedServer& s) {
    s.loop.advance(kube::controller::controlplane::ControlPlaneObjects::kInterval);
    s.loop.run();
}

std::string readyAt(std::chrono::system_clock::time_point t) {
    std::string out(kReady);
    out.replace(out.find("%s"), 2, kube::util::time::formatRFC3339(t));
    return out;
}

std::string conditions(ServedServer& s) {
    auto r = s.send("GET", kDefault);
    assert_int_equal(r.status, 200);
    return bodyAt(r.body, {"status", "conditions"});
}

void the_range_is_made_a_ready_service_cidr(void**) {
    // kube prints the range as its network: the address's host bits go.
    ServedServer s(ownerOptions("10.96.0.5/12"));
    auto r = s.send("GET", kDefault);
    assert_int_equal(r.status, 200);
    assert_string_equal(bodyAt(r.body, {"spec", "cidrs"}).c_str(), R"(["10.96.0.0/12"])");
    assert_string_equal(bodyAt(r.body, {"status", "conditions"}).c_str(),
                        ("[" + readyAt(s.loop.now()) + "]").c_str());
    // Made by kube-apiserver, its status by the controller kube names.
    json::Document d = kube::testing::parseJson(r.body);
    std::string managers;
    for (const json::Value& m : d["metadata"]["managedFields"].GetArray()) {
        managers += std::string(json::stringMember(m, "manager")) + "/" +
                    std::string(json::stringMember(m, "subresource")) + " ";
    }
    assert_string_equal(managers.c_str(),
                        "kube-apiserver/ kubernetes-service-cidr-controller/status ");

    // Nothing to do on the next passes: the object stays as it is.
    std::string rv = bodyAt(r.body, {"metadata", "resourceVersion"});
    nextPass(s);
    nextPass(s);
    assert_string_equal(
        bodyAt(s.send("GET", kDefault).body, {"metadata", "resourceVersion"}).c_str(), rv.c_str());
}

void a_deleted_default_comes_back_at_the_next_pass(void**) {
    ServedServer s(ownerOptions());
    assert_int_equal(s.send("DELETE", kDefault).status, 200);
    assert_int_equal(s.send("GET", kDefault).status, 404);
    nextPass(s);
    auto r = s.send("GET", kDefault);
    assert_int_equal(r.status, 200);
    assert_string_equal(bodyAt(r.body, {"spec", "cidrs"}).c_str(), R"(["10.0.0.0/24"])");
    assert_string_equal(bodyAt(r.body, {"status", "conditions"}).c_str(),
                        ("[" + readyAt(s.loop.now()) + "]").c_str());
}

// One made by someone else is kept, its labels too; only the Ready
// condition it lacks is added, beside its other conditions.
void an_existing_default_only_gets_its_ready_condition(void**) {
    ServedServer s(ownerOptions());
    assert_int_equal(s.send("DELETE", kDefault).status, 200);
    assert_int_equal(s.send("POST", kCollection,
                            R"({"metadata":{"name":"kubernetes","labels":{"by":"hand"}},)"
                            R"("spec":{"cidrs":["10.0.0.0/24"]}})")
                         .status,
                     201);
    json::Document d = kube::testing::parseJson(s.send("GET", kDefault).body);
    json::Document other = kube::testing::parseJson(
        R"({"conditions":[{"type":"Other","status":"True","lastTransitionTime":)"
        R"("2024-01-01T00:00:00Z","reason":"Mine","message":"kept"}]})");
    json::setMember(d, "status", json::Value(other, d.GetAllocator()), d.GetAllocator());
    assert_int_equal(s.send("PUT", std::string(kDefault) + "/status", json::serialize(d)).status,
                     200);

    nextPass(s);
    auto r = s.send("GET", kDefault);
    assert_string_equal(bodyAt(r.body, {"metadata", "labels", "by"}).c_str(), "hand");
    assert_string_equal(
        bodyAt(r.body, {"status", "conditions"}).c_str(),
        (R"([{"type":"Other","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z",)"
         R"("reason":"Mine","message":"kept"},)" +
         readyAt(s.loop.now()) + "]")
            .c_str());
}

// Ready False is an administrator's to look at; Unknown is replaced.
void a_false_ready_is_left_and_an_unknown_one_replaced(void**) {
    ServedServer s(ownerOptions());
    for (const char* status : {"False", "Unknown"}) {
        json::Document d = kube::testing::parseJson(s.send("GET", kDefault).body);
        json::Value& c = d["status"]["conditions"][0];
        c["status"].SetString(status, d.GetAllocator());
        c["reason"].SetString("Broken", d.GetAllocator());
        assert_int_equal(
            s.send("PUT", std::string(kDefault) + "/status", json::serialize(d)).status, 200);
        std::string before = conditions(s);
        nextPass(s);
        if (std::string(status) == "False") {
            assert_string_equal(conditions(s).c_str(), before.c_str());
        } else {
            assert_string_equal(conditions(s).c_str(), ("[" + readyAt(s.loop.now()) + "]").c_str());
        }
        // Back to True for the next round.
        d = kube::testing::parseJson(s.send("GET", kDefault).body);
        d["status"]["conditions"][0]["status"].SetString("True");
        assert_int_equal(
            s.send("PUT", std::string(kDefault) + "/status", json::serialize(d)).status, 200);
    }
}

// A default naming another range is not this server's to change or mark.
void another_range_is_left_alone(void**) {
    ServedServer s(ownerOptions());
    assert_int_equal(s.send("DELETE", kDefault).status, 200);
    assert_int_equal(
        s.send("POST", kCollection,
               R"({"metadata":{"name":"kubernetes"},"spec":{"cidrs":["10.1.0.0/16"]}})")
            .status,
        201);
    nextPass(s);
    auto r = s.send("GET", kDefault);
    assert_string_equal(bodyAt(r.body, {"spec", "cidrs"}).c_str(), R"(["10.1.0.0/16"])");
    assert_string_equal(bodyAt(r.body, {"status", "conditions"}).c_str(), "<absent>");
    std::string uid = bodyAt(r.body, {"metadata", "uid"});

    // told once, by a Warning event in default, as client-go's recorder
    // writes it for kube's kubernetes-service-cidr-controller
    nextPass(s);
    auto events = s.send("GET", "/api/v1/namespaces/default/events");
    assert_int_equal(events.status, 200);
    json::Document list = kube::testing::parseJson(events.body);
    assert_int_equal(list["items"].Size(), 1);
    const json::Value& e = list["items"][0];
    assert_string_equal(json::stringMember(e, "type").data(), "Warning");
    assert_string_equal(json::stringMember(e, "reason").data(),
                        "KubernetesDefaultServiceCIDRInconsistent");
    assert_string_equal(json::stringMember(e, "message").data(),
                        "The default ServiceCIDR [10.1.0.0/16] does not match the controller "
                        "flag configurations [10.0.0.0/24]");
    assert_string_equal(kube::testing::valueAt(e, {"involvedObject"}).c_str(),
                        (R"({"kind":"ServiceCIDR","name":"kubernetes","uid":")" + uid +
                         R"(","apiVersion":"networking.k8s.io/v1","resourceVersion":")" +
                         bodyAt(r.body, {"metadata", "resourceVersion"}) + "\"}")
                            .c_str());
    assert_string_equal(kube::testing::valueAt(e, {"source"}).c_str(),
                        R"({"component":"kubernetes-service-cidr-controller"})");
    assert_string_equal(json::stringMember(e, "reportingComponent").data(),
                        "kubernetes-service-cidr-controller");
    assert_int_equal(e["count"].GetInt(), 1);
    std::string name(json::stringMember(e["metadata"], "name"));
    assert_true(name.starts_with("kubernetes."));
}

// Only the worker that keeps the control plane's objects makes it.
void other_workers_make_none(void**) {
    ServedServer s;
    s.loop.advance(std::chrono::seconds(30));
    s.loop.run();
    assert_int_equal(s.send("GET", kDefault).status, 404);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_range_is_made_a_ready_service_cidr),
        cmocka_unit_test(a_deleted_default_comes_back_at_the_next_pass),
        cmocka_unit_test(an_existing_default_only_gets_its_ready_condition),
        cmocka_unit_test(a_false_ready_is_left_and_an_unknown_one_replaced),
        cmocka_unit_test(another_range_is_left_alone),
        cmocka_unit_test(other_workers_make_none),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
