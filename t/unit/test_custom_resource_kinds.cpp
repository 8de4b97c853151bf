#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "apis/apiextensions/custom_resource_kind.hpp"
#include "controller/apiextensions/naming.hpp"
#include "registry/encoding.hpp"
#include "registry/scale.hpp"
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
namespace registry = kube::registry;
namespace ext = kube::apis::apiextensions;
namespace ctl = kube::controller::apiextensions;

namespace {

auto& parse = kube::testing::parseSharedJson;

// A stored definition: v1beta1 stored (status and scale), v1 and v2 served,
// v3 not served; names accepted.
constexpr std::string_view kGizmos =
    R"({"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1",)"
    R"("metadata":{"name":"gizmos.h.example.com","uid":"u1"},)"
    R"("spec":{"group":"h.example.com","scope":"Namespaced",)"
    R"("names":{"plural":"gizmos","singular":"gizmo","kind":"Gizmo","listKind":"GizmoList"},)"
    R"("versions":[)"
    R"({"name":"v1beta1","served":true,"storage":true,"subresources":{"status":{},)"
    R"("scale":{"specReplicasPath":".spec.size.wanted","statusReplicasPath":".status.size",)"
    R"("labelSelectorPath":".status.selector"}}},)"
    R"({"name":"v1","served":true,"storage":false},)"
    R"({"name":"v3","served":false,"storage":false},)"
    R"({"name":"v2","served":true,"storage":false}]},)"
    R"("status":{"acceptedNames":{"plural":"gizmos","singular":"gizmo","shortNames":["gz"],)"
    R"("kind":"Gizmo","listKind":"GizmoList","categories":["all"]}}})";

void versions_sort_by_kube_priority(void**) {
    std::vector<std::string> order = {"v1alpha1", "foo",     "v2",  "v1beta2", "v1",
                                      "v10",      "v1beta1", "bar", "v2alpha1"};
    std::sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
        return ext::compareKubeAwareVersions(a, b) < 0;
    });
    std::string joined;
    for (const std::string& v : order) {
        joined += v + ",";
    }
    assert_string_equal(joined.c_str(), "v10,v2,v1,v1beta2,v1beta1,v2alpha1,v1alpha1,bar,foo,");
}

void a_definition_serves_one_kind_per_served_version(void**) {
    auto crd = parse(kGizmos);
    std::vector<registry::KindInfo> kinds = ext::customResourceKinds(crd);
    assert_int_equal(kinds.size(), 3);
    assert_string_equal(kinds[0].version.c_str(), "v2");
    assert_string_equal(kinds[1].version.c_str(), "v1");
    assert_string_equal(kinds[2].version.c_str(), "v1beta1");
    for (const registry::KindInfo& k : kinds) {
        assert_string_equal(k.storageVersion.c_str(), "v1beta1");
        assert_string_equal(k.resource.c_str(), "gizmos");
        assert_string_equal(k.singular.c_str(), "gizmo");
        assert_string_equal(k.kind.c_str(), "Gizmo");
        assert_true(k.namespaced);
        assert_int_equal(k.shortNames.size(), 1);
        assert_int_equal(k.categories.size(), 1);
        assert_true(k.custom != nullptr);
        assert_ptr_equal(k.custom->crd.get(), crd.get());
        assert_string_equal(registry::collectionPrefix(k, "ns").c_str(),
                            "/registry/h.example.com/gizmos/ns/");
    }
    assert_true(kinds[0].subresources.empty());
    assert_int_equal(kinds[2].subresources.size(), 2);
    assert_string_equal(kinds[2].subresources[0].name.c_str(), "status");
    assert_string_equal(kinds[2].subresources[1].name.c_str(), "scale");
    assert_true(kinds[2].tracksGeneration);
    assert_false(kinds[0].tracksGeneration);
    assert_string_equal(json::stringMember(*kinds[1].custom->version, "name").data(), "v1");
}

void a_definition_without_accepted_names_serves_nothing(void**) {
    auto crd = parse(kGizmos);
    (*crd)["status"].RemoveMember("acceptedNames");
    assert_true(ext::customResourceKinds(crd).empty());
    assert_false(ext::customResourceStorageKind(crd).has_value());
}

void without_status_subresource_any_change_but_metadata_moves_the_generation(void**) {
    auto crd = parse(kGizmos);
    registry::KindInfo v1 = ext::customResourceKinds(crd)[1];
    auto old = parse(R"({"metadata":{"name":"a","generation":4},"spec":{"a":1},"status":{"x":1}})");
    auto obj = parse(R"({"metadata":{"name":"a","generation":4,"labels":{"l":"1"}},)"
                     R"("spec":{"a":1},"status":{"x":1}})");
    v1.prepareForUpdate(*obj, *old, obj->GetAllocator());
    assert_int_equal((*obj)["metadata"]["generation"].GetInt64(), 4);
    (*obj)["status"]["x"] = 2;
    v1.prepareForUpdate(*obj, *old, obj->GetAllocator());
    assert_int_equal((*obj)["metadata"]["generation"].GetInt64(), 5);
}

void custom_scale_reads_and_writes_the_definition_s_paths(void**) {
    registry::KindInfo k = ext::customResourceKinds(parse(kGizmos))[2];
    auto obj = parse(R"({"metadata":{"name":"g","namespace":"n","uid":"u","resourceVersion":"9"},)"
                     R"("spec":{"size":{"wanted":3}},"status":{"size":2,"selector":"a=b,c!=d"}})");
    json::Document scale = registry::scaleFromObject(k, *obj);
    assert_string_equal(json::serialize(scale["spec"]).c_str(), R"({"replicas":3})");
    assert_string_equal(json::serialize(scale["status"]).c_str(),
                        R"({"replicas":2,"selector":"a=b,c!=d"})");
    auto bare = parse(R"({"metadata":{"name":"g","namespace":"n"}})");
    auto want = parse(R"({"metadata":{"name":"g","namespace":"n"},"spec":{"replicas":7}})");
    assert_false(registry::applyScale(k, *want, *bare).has_value());
    assert_int_equal((*bare)["spec"]["size"]["wanted"].GetInt64(), 7);
    auto blocked = parse(R"({"metadata":{"name":"g","namespace":"n"},"spec":{"size":1}})");
    auto err = registry::applyScale(k, *want, *blocked);
    assert_true(err.has_value());
    assert_int_equal(err->code, 400);
}

// Two definitions of one group asking for the same short names.
void names_another_definition_holds_are_refused_with_kube_s_reasons(void**) {
    auto holder = parse(kGizmos);
    auto asking = parse(
        R"({"metadata":{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com",)"
        R"("names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList",)"
        R"("shortNames":["gz","gizmo"]}},"status":{"acceptedNames":{"plural":"","kind":""}}})");
    std::vector<const json::Value*> group = {holder.get(), asking.get()};
    auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1700000000));
    assert_true(ctl::updateAcceptedNames(*asking, group, now));
    const json::Value& status = (*asking)["status"];
    assert_string_equal(json::serialize(status["acceptedNames"]).c_str(),
                        R"({"plural":"widgets","singular":"widget","kind":"Widget",)"
                        R"("listKind":"WidgetList"})");
    assert_string_equal(json::serialize(status["conditions"]).c_str(),
                        R"([{"type":"NamesAccepted","status":"False",)"
                        R"("lastTransitionTime":"2023-11-14T22:13:20Z",)"
                        R"("reason":"ShortNamesConflict",)"
                        R"("message":"[\"gz\" is already in use, \"gizmo\" is already in use]"},)"
                        R"({"type":"Established","status":"False",)"
                        R"("lastTransitionTime":"2023-11-14T22:13:20Z","reason":"NotAccepted",)"
                        R"("message":"not all names are accepted"}])");
    assert_false(ctl::establish(*asking, now));
    assert_false(ctl::updateAcceptedNames(*asking, group, now));
}

void free_names_are_accepted_then_established(void**) {
    auto crd = parse(
        R"({"metadata":{"name":"knobs.h.example.com"},"spec":{"group":"h.example.com",)"
        R"("names":{"plural":"knobs","singular":"knob","kind":"Knob","listKind":"KnobList"}}})");
    std::vector<const json::Value*> group = {crd.get()};
    auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1700000000));
    assert_true(ctl::updateAcceptedNames(*crd, group, now));
    assert_string_equal(json::serialize((*crd)["status"]["conditions"][1]).c_str(),
                        R"({"type":"Established","status":"False",)"
                        R"("lastTransitionTime":"2023-11-14T22:13:20Z","reason":"Installing",)"
                        R"("message":"the initial names have been accepted"})");
    assert_true(ctl::establish(*crd, now));
    assert_string_equal(json::stringMember((*crd)["status"]["conditions"][1], "reason").data(),
                        "InitialNamesAccepted");
    assert_false(ctl::updateAcceptedNames(*crd, group, now));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(versions_sort_by_kube_priority),
        cmocka_unit_test(a_definition_serves_one_kind_per_served_version),
        cmocka_unit_test(a_definition_without_accepted_names_serves_nothing),
        cmocka_unit_test(without_status_subresource_any_change_but_metadata_moves_the_generation),
        cmocka_unit_test(custom_scale_reads_and_writes_the_definition_s_paths),
        cmocka_unit_test(names_another_definition_holds_are_refused_with_kube_s_reasons),
        cmocka_unit_test(free_names_are_accepted_then_established),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
