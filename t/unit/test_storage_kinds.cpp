// The storage.k8s.io/v1 kinds kube-scheduler watches (StorageClass,
// CSIDriver, CSINode, CSIStorageCapacity, VolumeAttachment) and core/v1
// ReplicationControllers: kube 1.26's defaults, validation messages, update
// rules and table cells.
#include <memory>
#include <optional>
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

using Server = kube::testing::ServedServer;

// The answers' readers every kind's unit test shares.
auto& parse = kube::testing::parseJson;
auto& at = kube::testing::bodyAt;
auto& causes = kube::testing::statusCauses;

constexpr const char* kStorage = "/apis/storage.k8s.io/v1";

std::string rv(const std::string& body) {
    return at(body, {"metadata", "resourceVersion"});
}

void storage_class_defaults_its_policies_and_prints_kubes_columns(void**) {
    Server s;
    HttpResponse r = s.send("POST", std::string(kStorage) + "/storageclasses",
                            R"({"metadata":{"name":"fast"},"provisioner":"csi.example.com"})");
    assert_int_equal(r.status, 201);
    assert_string_equal(at(r.body, {"reclaimPolicy"}).c_str(), "Delete");
    assert_string_equal(at(r.body, {"volumeBindingMode"}).c_str(), "Immediate");
    HttpResponse t = s.send("GET", std::string(kStorage) + "/storageclasses", "",
                            "application/json", "application/json;as=Table;v=v1;g=meta.k8s.io");
    assert_int_equal(t.status, 200);
    json::Document d = parse(t.body);
    std::string names;
    for (const json::Value& c : d["columnDefinitions"].GetArray()) {
        names += std::string(json::stringMember(c, "name")) + " ";
    }
    assert_string_equal(
        names.c_str(),
        "Name Provisioner ReclaimPolicy VolumeBindingMode AllowVolumeExpansion Age ");
    const json::Value& cells = d["rows"][0]["cells"];
    assert_string_equal(json::serialize(cells[1]).c_str(), "\"csi.example.com\"");
    assert_string_equal(json::serialize(cells[4]).c_str(), "false");
    // kubectl's short name.
    json::Document disc = parse(s.send("GET", kStorage).body);
    bool found = false;
    for (const json::Value& res : disc["resources"].GetArray()) {
        if (json::stringMember(res, "name") == "storageclasses") {
            found = json::serialize(res["shortNames"]) == R"(["sc"])";
        }
    }
    assert_true(found);
}

void storage_class_checks_are_kubes(void**) {
    Server s;
    HttpResponse r = s.send(
        "POST", std::string(kStorage) + "/storageclasses",
        R"({"metadata":{"name":"bad"},"provisioner":"Bad Prov!","parameters":{"":"x"},)"
        R"("reclaimPolicy":"Recycle","volumeBindingMode":"Later","allowedTopologies":)"
        R"([{"matchLabelExpressions":[{"key":"zone","values":[]},{"key":"zone","values":["x","x"]}]},{}]})");
    assert_int_equal(r.status, 422);
    std::string want =
        "provisioner: Invalid value: \"bad prov!\": name part must consist of alphanumeric "
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n"
        "parameters: Invalid value: \"\": field can not be empty.\n"
        "reclaimPolicy: Unsupported value: \"Recycle\": supported values: \"Delete\", \"Retain\"\n"
        "volumeBindingMode: Unsupported value: \"Later\": supported values: \"Immediate\", "
        "\"WaitForFirstConsumer\"\n"
        "allowedTopologies[0].matchLabelExpressions[0].values: Required value\n"
        "allowedTopologies[0].matchLabelExpressions[1].values[1]: Duplicate value: \"x\"\n"
        "allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: \"zone\"\n"
        "allowedTopologies[1].matchLabelExpressions: Duplicate value: \"\"\n"
        "allowedTopologies[1].matchLabelExpressions: Duplicate value: \"\"\n";
    assert_string_equal(causes(r.body).c_str(), want.c_str());

    r = s.send("POST", std::string(kStorage) + "/storageclasses",
               R"({"metadata":{"name":"sc1"},"provisioner":"p.example.com"})");
    assert_int_equal(r.status, 201);
    r = s.send("PUT", std::string(kStorage) + "/storageclasses/sc1",
               R"({"metadata":{"name":"sc1","resourceVersion":")" + rv(r.body) +
                   R"("},"provisioner":"other","parameters":{"a":"b"},"reclaimPolicy":"Retain",)"
                   R"("volumeBindingMode":"WaitForFirstConsumer"})");
    assert_int_equal(r.status, 422);
    assert_string_equal(causes(r.body).c_str(),
                        "parameters: Forbidden: updates to parameters are forbidden.\n"
                        "provisioner: Forbidden: updates to provisioner are forbidden.\n"
                        "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.\n"
                        "volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is "
                        "immutable\n");
}

void csi_driver_defaults_and_kube_1_26_immutable_fields(void**) {
    Server s;
    HttpResponse r = s.send("POST", std::string(kStorage) + "/csidrivers",
                            R"({"metadata":{"name":"drv.example.com"},"spec":{}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(at(r.body, {"spec"}).c_str(),
                        R"({"attachRequired":true,"podInfoOnMount":false,"storageCapacity":false,)"
                        R"("fsGroupPolicy":"ReadWriteOnceWithFSType",)"
                        R"("volumeLifecycleModes":["Persistent"],"requiresRepublish":false})");
    r = s.send("PUT", std::string(kStorage) + "/csidrivers/drv.example.com",
               R"({"metadata":{"name":"drv.example.com","resourceVersion":")" + rv(r.body) +
                   R"("},"spec":{"attachRequired":false,"podInfoOnMount":true,)"
                   R"("fsGroupPolicy":"File","volumeLifecycleModes":["Ephemeral"],)"
                   R"("storageCapacity":true}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(causes(r.body).c_str(),
                        "spec.attachedRequired: Invalid value: false: field is immutable\n"
                        "spec.fsGroupPolicy: Invalid value: \"File\": field is immutable\n"
                        "spec.podInfoOnMount: Invalid value: true: field is immutable\n"
                        "spec.volumeLifecycleModes: Invalid value: "
                        "[]storage.VolumeLifecycleMode{\"Ephemeral\"}: field is immutable\n");
    r = s.send("POST", std::string(kStorage) + "/csidrivers",
               R"({"metadata":{"name":"bad"},"spec":{"fsGroupPolicy":"Some",)"
               R"("volumeLifecycleModes":["Other"],"tokenRequests":[{"audience":"a",)"
               R"("expirationSeconds":5},{"audience":"a"}]}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(
        causes(r.body).c_str(),
        "spec.fsGroupPolicy: Unsupported value: \"Some\": supported values: \"File\", \"None\", "
        "\"ReadWriteOnceWithFSType\"\n"
        "spec.tokenRequests[0].expirationSeconds: Invalid value: 5: may not specify a duration "
        "less than 10 minutes\n"
        "spec.tokenRequests[1].audience: Duplicate value: \"a\"\n"
        "spec.volumeLifecycleModes: Unsupported value: \"Other\": supported values: "
        "\"Persistent\", \"Ephemeral\"\n");
}

void csi_node_drivers_are_checked_and_may_not_change(void**) {
    Server s;
    HttpResponse r =
        s.send("POST", std::string(kStorage) + "/csinodes",
               R"({"metadata":{"name":"bad"},"spec":{"drivers":[{"name":"","nodeID":""},)"
               R"({"name":"a.b","nodeID":"x","topologyKeys":["k","k"],"allocatable":{"count":-1}},)"
               R"({"name":"a.b","nodeID":"y"}]}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(
        causes(r.body).c_str(),
        "spec.drivers[0].name: Required value\n"
        "spec.drivers[0].name: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist "
        "of lower case alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
        "spec.drivers[0].nodeID: Required value\n"
        "spec.drivers[1].allocatable.count: Invalid value: -1: must be greater than or equal to "
        "0\n"
        "spec.drivers[1]: Duplicate value: \"k\"\n"
        "spec.drivers[2].name: Duplicate value: \"a.b\"\n");
    r = s.send("POST", std::string(kStorage) + "/csinodes",
               R"({"metadata":{"name":"node1"},"spec":{"drivers":[{"name":"drv.example.com",)"
               R"("nodeID":"node1"}]}})");
    assert_int_equal(r.status, 201);
    r = s.send("PUT", std::string(kStorage) + "/csinodes/node1",
               R"({"metadata":{"name":"node1","resourceVersion":")" + rv(r.body) +
                   R"("},"spec":{"drivers":[{"name":"drv.example.com","nodeID":"other",)"
                   R"("topologyKeys":["a"]}]}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(causes(r.body).c_str(),
                        "CSINodeDriver: Invalid value: storage.CSINodeDriver{Name:"
                        "\"drv.example.com\", NodeID:\"other\", TopologyKeys:[]string{\"a\"}, "
                        "Allocatable:(*storage.VolumeNodeResources)(nil)}: field is immutable\n");
}

void csi_storage_capacity_errors_are_listed_twice_as_kube_1_26_does(void**) {
    Server s;
    HttpResponse r =
        s.send("POST", std::string(kStorage) + "/namespaces/default/csistoragecapacities",
               R"({"metadata":{"name":"bad"},"storageClassName":"fast",)"
               R"("capacity":"-1"})");
    assert_int_equal(r.status, 422);
    assert_string_equal(causes(r.body).c_str(),
                        "capacity: Invalid value: \"-1\": must be greater than or equal to 0\n"
                        "capacity: Invalid value: \"-1\": must be greater than or equal to 0\n");
    r = s.send("POST", std::string(kStorage) + "/namespaces/default/csistoragecapacities",
               R"({"metadata":{"name":"cap1"},"storageClassName":"fast","capacity":"10Gi",)"
               R"("nodeTopology":{"matchLabels":{"zone":"a"}}})");
    assert_int_equal(r.status, 201);
    r = s.send("PUT", std::string(kStorage) + "/namespaces/default/csistoragecapacities/cap1",
               R"({"metadata":{"name":"cap1","resourceVersion":")" + rv(r.body) +
                   R"("},"storageClassName":"other","nodeTopology":{"matchLabels":{"zone":"b"}}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(causes(r.body).c_str(),
                        "nodeTopology: Invalid value: v1.LabelSelector{MatchLabels:"
                        "map[string]string{\"zone\":\"b\"}, MatchExpressions:"
                        "[]v1.LabelSelectorRequirement(nil)}: field is immutable\n"
                        "storageClassName: Invalid value: \"other\": field is immutable\n");
}

void volume_attachment_status_is_its_own_and_the_spec_stays(void**) {
    Server s;
    HttpResponse r = s.send("POST", std::string(kStorage) + "/volumeattachments",
                            R"({"metadata":{"name":"bad"},"spec":{"attacher":"",)"
                            R"("nodeName":"n","source":{}}})");
    assert_int_equal(r.status, 422);
    std::string got = causes(r.body);
    assert_true(
        got.starts_with("spec.attacher: Required value\n"
                        "spec.source: Required value: must specify exactly one of "
                        "inlineVolumeSpec and persistentVolumeName\n"
                        "spec.attacher: Required value\n"));
    r = s.send("POST", std::string(kStorage) + "/volumeattachments",
               R"({"metadata":{"name":"va1"},"spec":{"attacher":"drv.example.com",)"
               R"("nodeName":"node1","source":{"persistentVolumeName":"pv1"}},)"
               R"("status":{"attached":true}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(at(r.body, {"status"}).c_str(), R"({"attached":false})");
    r = s.send("PUT", std::string(kStorage) + "/volumeattachments/va1/status",
               R"({"metadata":{"name":"va1","resourceVersion":")" + rv(r.body) +
                   R"("},"spec":{"attacher":"drv.example.com","nodeName":"elsewhere",)"
                   R"("source":{"persistentVolumeName":"pv1"}},"status":{"attached":true}})");
    assert_int_equal(r.status, 200);
    assert_string_equal(at(r.body, {"status", "attached"}).c_str(), "true");
    assert_string_equal(at(r.body, {"spec", "nodeName"}).c_str(), "node1");
    r = s.send("PUT", std::string(kStorage) + "/volumeattachments/va1",
               R"({"metadata":{"name":"va1","resourceVersion":")" + rv(r.body) +
                   R"("},"spec":{"attacher":"drv.example.com","nodeName":"node2",)"
                   R"("source":{"persistentVolumeName":"pv1"}}})");
    assert_int_equal(r.status, 422);
    assert_true(causes(r.body).starts_with("spec: Invalid value: storage.VolumeAttachmentSpec{"));
}

void replication_controller_takes_its_selector_from_the_template(void**) {
    Server s;
    HttpResponse r = s.send(
        "POST", "/api/v1/namespaces/default/replicationcontrollers",
        R"({"metadata":{"name":"web"},"spec":{"template":{"metadata":{"labels":{"app":"web"}},)"
        R"("spec":{"containers":[{"name":"c","image":"nginx:1.25"}]}}}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(at(r.body, {"spec", "selector"}).c_str(), R"({"app":"web"})");
    assert_string_equal(at(r.body, {"metadata", "labels"}).c_str(), R"({"app":"web"})");
    assert_string_equal(at(r.body, {"spec", "replicas"}).c_str(), "1");
    assert_string_equal(at(r.body, {"status"}).c_str(), R"({"replicas":0})");
    HttpResponse scale =
        s.send("GET", "/api/v1/namespaces/default/replicationcontrollers/web/scale");
    assert_int_equal(scale.status, 200);
    assert_string_equal(at(scale.body, {"status", "selector"}).c_str(), "app=web");
    assert_string_equal(at(scale.body, {"spec", "replicas"}).c_str(), "1");
    r = s.send("POST", "/api/v1/namespaces/default/replicationcontrollers",
               R"({"metadata":{"name":"bad"},"spec":{"selector":{"app":"x"},"template":)"
               R"({"metadata":{"labels":{"app":"web"}},"spec":{"restartPolicy":"Never",)"
               R"("containers":[{"name":"c","image":"nginx:1.25"}]}}}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(causes(r.body).c_str(),
                        "spec.template.metadata.labels: Invalid value: "
                        "map[string]string{\"app\":\"web\"}: `selector` does not match template "
                        "`labels`\n"
                        "spec.template.spec.restartPolicy: Unsupported value: \"Never\": "
                        "supported values: \"Always\"\n");
}

void every_new_kind_has_a_protobuf_schema(void**) {
    for (auto [apiVersion, kind] : {
             std::pair{"v1", "Binding"},
             std::pair{"v1", "ReplicationController"},
             std::pair{"storage.k8s.io/v1", "StorageClass"},
             std::pair{"storage.k8s.io/v1", "CSIDriver"},
             std::pair{"storage.k8s.io/v1", "CSINode"},
             std::pair{"storage.k8s.io/v1", "CSIStorageCapacity"},
             std::pair{"storage.k8s.io/v1", "VolumeAttachment"},
         }) {
        if (!kube::endpoints::hasProtobufSchema(apiVersion, kind)) {
            fail_msg("no schema for %s %s", apiVersion, kind);
        }
    }
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(storage_class_defaults_its_policies_and_prints_kubes_columns),
        cmocka_unit_test(storage_class_checks_are_kubes),
        cmocka_unit_test(csi_driver_defaults_and_kube_1_26_immutable_fields),
        cmocka_unit_test(csi_node_drivers_are_checked_and_may_not_change),
        cmocka_unit_test(csi_storage_capacity_errors_are_listed_twice_as_kube_1_26_does),
        cmocka_unit_test(volume_attachment_status_is_its_own_and_the_spec_stays),
        cmocka_unit_test(replication_controller_takes_its_selector_from_the_template),
        cmocka_unit_test(every_new_kind_has_a_protobuf_schema),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
