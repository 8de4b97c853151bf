// The etcd backend's layout and encoding as kube-apiserver's: keys under its
// resource folders, values in its storage encoding (server/etcd_value_codec).
#include <string>

#include "server/etcd_value_codec.hpp"
#include "storage/etcd/key_layout.hpp"
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

namespace {

using kube::storage::etcd::KeyLayout;

void expectKey(const KeyLayout& layout, const std::string& registry, const std::string& etcd) {
    assert_string_equal(layout.etcdKey(registry).c_str(), etcd.c_str());
    assert_string_equal(layout.registryKey(etcd).c_str(), registry.c_str());
}

void keys_follow_kube_resource_folders(void**) {
    KeyLayout layout("/registry");
    expectKey(layout, "/registry/configmaps/ns/a", "/registry/configmaps/ns/a");
    expectKey(layout, "/registry/deployments/ns/d", "/registry/deployments/ns/d");
    expectKey(layout, "/registry/services/ns/web", "/registry/services/specs/ns/web");
    expectKey(layout, "/registry/endpoints/ns/web", "/registry/services/endpoints/ns/web");
    expectKey(layout, "/registry/nodes/n1", "/registry/minions/n1");
    expectKey(layout, "/registry/ingresses/ns/i", "/registry/ingress/ns/i");
    expectKey(layout, "/registry/replicationcontrollers/ns/rc", "/registry/controllers/ns/rc");
    // Folders are whole path segments.
    expectKey(layout, "/registry/serviceaccounts/ns/sa", "/registry/serviceaccounts/ns/sa");
    expectKey(layout, "/registry/endpointslices/ns/e", "/registry/endpointslices/ns/e");
    // A namespace named like kube's sub-folders.
    expectKey(layout, "/registry/services/specs/web", "/registry/services/specs/specs/web");
    expectKey(layout, "/registry/services/endpoints/web", "/registry/services/specs/endpoints/web");
    // Collection prefixes map alike.
    assert_string_equal(layout.etcdKey("/registry/services/").c_str(), "/registry/services/specs/");
}

void keys_move_under_the_configured_prefix(void**) {
    KeyLayout layout("/tenant-a/kube");
    expectKey(layout, "/registry/services/ns/web", "/tenant-a/kube/services/specs/ns/web");
    expectKey(layout, "/registry/secrets/ns/s", "/tenant-a/kube/secrets/ns/s");
    // Keys of another tree are left alone.
    assert_string_equal(layout.registryKey("/tenant-a/kubelet/x").c_str(), "/tenant-a/kubelet/x");
    assert_string_equal(layout.registryKey("/other/x").c_str(), "/other/x");
}

constexpr std::string_view kConfigMap =
    R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns",)"
    R"("uid":"6c1f0b0e-5f1e-4c57-9d43-8d4b6c2f2a10","resourceVersion":"",)"
    R"("creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app":"x"}},"data":{"k":"v"}})";

void builtin_kinds_are_stored_as_the_protobuf_envelope(void**) {
    auto codec = kube::server::kubeValueCodec();
    std::string stored, error;
    assert_true(codec.encode("/registry/configmaps/ns/a", kConfigMap, &stored, &error));
    assert_true(
        stored.starts_with(std::string_view("k8s\0\x0a\x0f\x0a\x02v1\x12\x09"
                                            "ConfigMap",
                                            21)));
    std::string back;
    assert_true(codec.decode("/registry/configmaps/ns/a", stored, &back, &error));
    assert_string_equal(back.c_str(), std::string(kConfigMap).c_str());
}

void json_values_are_read_and_given_a_revision_slot(void**) {
    auto codec = kube::server::kubeValueCodec();
    std::string back, error;
    // As kube-apiserver writes JSON: no resourceVersion, its own key order.
    assert_true(codec.decode("/registry/configmaps/ns/a",
                             R"({"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap",)"
                             R"("metadata":{"name":"a","namespace":"ns"}})",
                             &back, &error));
    assert_string_equal(back.c_str(),
                        R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a",)"
                        R"("namespace":"ns","resourceVersion":""},"data":{"k":"v"}})");
}

void kinds_without_a_message_stay_json_without_resource_version(void**) {
    auto codec = kube::server::kubeValueCodec();
    std::string stored, error;
    assert_true(codec.encode("/registry/widgets/ns/w",
                             R"({"kind":"Widget","apiVersion":"example.com/v1","metadata":)"
                             R"({"name":"w","resourceVersion":""},"spec":{"n":1}})",
                             &stored, &error));
    assert_string_equal(stored.c_str(), R"({"kind":"Widget","apiVersion":"example.com/v1",)"
                                        R"("metadata":{"name":"w"},"spec":{"n":1}})");
}

void flowcontrol_is_stored_at_kube_126_storage_version(void**) {
    auto codec = kube::server::kubeValueCodec();
    constexpr std::string_view schema =
        R"({"kind":"FlowSchema","apiVersion":"flowcontrol.apiserver.k8s.io/v1","metadata":)"
        R"({"name":"fs","resourceVersion":""},"spec":{"priorityLevelConfiguration":)"
        R"({"name":"global-default"},"matchingPrecedence":100}})";
    std::string stored, error;
    assert_true(codec.encode("/registry/flowschemas/fs", schema, &stored, &error));
    // The envelope names v1beta2, which kube 1.26 reads.
    constexpr std::string_view v1beta2 = "flowcontrol.apiserver.k8s.io/v1beta2";
    assert_true(stored.find(v1beta2) != std::string::npos);
    std::string back;
    assert_true(codec.decode("/registry/flowschemas/fs", stored, &back, &error));
    assert_true(back.find(R"("apiVersion":"flowcontrol.apiserver.k8s.io/v1",)") !=
                std::string::npos);
    assert_true(back.find(R"("matchingPrecedence":100)") != std::string::npos);
}

void undecodable_values_are_refused(void**) {
    auto codec = kube::server::kubeValueCodec();
    std::string out, error;
    assert_false(codec.decode("k", std::string_view("k8s\0garbage", 11), &out, &error));
    assert_false(error.empty());
    error.clear();
    assert_false(codec.decode("k", "{not json", &out, &error));
    assert_false(error.empty());
    error.clear();
    assert_false(codec.decode("k", "[1]", &out, &error));
    assert_false(error.empty());
    assert_false(codec.encode("k", "{not json", &out, &error));
}

// What kube-apiserver 1.26 writes for a CRD: v1beta1, the schema, subresources
// and columns shared at the top of the spec.
void kube_126_stored_crds_are_read_as_v1(void**) {
    auto codec = kube::server::kubeValueCodec();
    constexpr std::string_view stored =
        R"({"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1beta1",)"
        R"("metadata":{"name":"crontabs.stable.example.com"},"spec":{"group":"stable.example.com",)"
        R"("version":"v1","names":{"plural":"crontabs","kind":"CronTab"},"scope":"Namespaced",)"
        R"("validation":{"openAPIV3Schema":{"type":"object"}},"subresources":{"status":{}},)"
        R"("additionalPrinterColumns":[{"name":"Spec","type":"string","JSONPath":".spec.x"}],)"
        R"("versions":[{"name":"v1","served":true,"storage":true},)"
        R"({"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"string"}}}],)"
        R"("conversion":{"strategy":"Webhook","webhookClientConfig":{"url":"https://x"},)"
        R"("conversionReviewVersions":["v1"]},"preserveUnknownFields":false},)"
        R"("status":{"storedVersions":["v1"]}})";
    std::string out, error;
    assert_true(codec.decode("/registry/customresourcedefinitions/crontabs.stable.example.com",
                             stored, &out, &error));
    kube::util::json::Document doc;
    assert_false(kube::util::json::parse(out, doc).has_value());
    auto at = [&](std::initializer_list<std::string_view> path) {
        return kube::util::json::at(doc, path);
    };
    assert_string_equal(doc["apiVersion"].GetString(), "apiextensions.k8s.io/v1");
    const auto& spec = doc["spec"];
    assert_false(spec.HasMember("version"));
    assert_false(spec.HasMember("validation"));
    assert_false(spec.HasMember("subresources"));
    assert_false(spec.HasMember("additionalPrinterColumns"));
    assert_false(spec.HasMember("preserveUnknownFields"));
    const auto& v1 = spec["versions"][0];
    assert_string_equal(v1["schema"]["openAPIV3Schema"]["type"].GetString(), "object");
    assert_true(v1["subresources"].HasMember("status"));
    assert_string_equal(v1["additionalPrinterColumns"][0]["jsonPath"].GetString(), ".spec.x");
    assert_false(v1["additionalPrinterColumns"][0].HasMember("JSONPath"));
    // A version's own schema wins over the shared one.
    assert_string_equal(spec["versions"][1]["schema"]["openAPIV3Schema"]["type"].GetString(),
                        "string");
    assert_non_null(at({"spec", "conversion", "webhook", "clientConfig", "url"}));
    assert_non_null(at({"spec", "conversion", "webhook", "conversionReviewVersions"}));
    assert_null(at({"spec", "conversion", "webhookClientConfig"}));
    assert_string_equal(doc["status"]["storedVersions"][0].GetString(), "v1");
}

void single_version_v1beta1_crds_get_their_version_listed(void**) {
    auto codec = kube::server::kubeValueCodec();
    constexpr std::string_view stored =
        R"({"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1beta1",)"
        R"("metadata":{"name":"a.b.c"},"spec":{"group":"b.c","version":"v1alpha1",)"
        R"("names":{"plural":"a","kind":"A"},"scope":"Cluster","preserveUnknownFields":true}})";
    std::string out, error;
    assert_true(codec.decode("/registry/customresourcedefinitions/a.b.c", stored, &out, &error));
    kube::util::json::Document doc;
    assert_false(kube::util::json::parse(out, doc).has_value());
    const auto& versions = doc["spec"]["versions"];
    assert_int_equal(versions.Size(), 1);
    assert_string_equal(versions[0]["name"].GetString(), "v1alpha1");
    assert_true(versions[0]["served"].GetBool() && versions[0]["storage"].GetBool());
    assert_true(doc["spec"]["preserveUnknownFields"].GetBool());
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_follow_kube_resource_folders),
        cmocka_unit_test(keys_move_under_the_configured_prefix),
        cmocka_unit_test(builtin_kinds_are_stored_as_the_protobuf_envelope),
        cmocka_unit_test(json_values_are_read_and_given_a_revision_slot),
        cmocka_unit_test(kinds_without_a_message_stay_json_without_resource_version),
        cmocka_unit_test(flowcontrol_is_stored_at_kube_126_storage_version),
        cmocka_unit_test(undecodable_values_are_refused),
        cmocka_unit_test(kube_126_stored_crds_are_read_as_v1),
        cmocka_unit_test(single_version_v1beta1_crds_get_their_version_listed),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
