// Server-side apply's merge and field ownership (registry/apply): a replay
// of what kube-apiserver 1.26 recorded (apply, label, scale, conflicts,
// force, fields dropped), kube's documented cases (sets, list-maps, atomic
// maps and lists, granular maps, nulls, shared fields, updates taking
// fields, client-side apply migration), bad bodies, and the time of a no-op
// re-apply of a 50-field Deployment.
#include <time.h>

#include <cstdio>
#include <string>

#include "apply_recorded.hpp"
#include "kapi/apps.pb.h"
#include "kapi/core.pb.h"
#include "registry/apply/field_manager.hpp"
#include "registry/apply/fields_v1.hpp"
#include "registry/apply/managed_fields.hpp"
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

namespace {

namespace json = kube::util::json;
namespace apply = kube::registry::apply;
using apply::FieldManager;
using apply::FieldManagerOptions;
using apply::TypeRef;

constexpr const char* kNow = "2026-11-26T03:00:00Z";

FieldManager deployments(const std::string& subresource = "") {
    FieldManagerOptions o;
    o.type = TypeRef::forMessage(kapi::apps::v1::Deployment::descriptor());
    o.apiVersion = "apps/v1";
    o.kind = "Deployment";
    o.subresource = subresource;
    return FieldManager(std::move(o));
}

FieldManager configMaps() {
    FieldManagerOptions o;
    o.type = TypeRef::forMessage(kapi::core::v1::ConfigMap::descriptor());
    o.apiVersion = "v1";
    o.kind = "ConfigMap";
    return FieldManager(std::move(o));
}

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

// The fieldsV1 of `manager`'s entry with `operation` (and `subresource`),
// compact; "" when there is none.
std::string fieldsOf(const json::Value& obj, const char* manager, const char* operation,
                     const char* subresource = "") {
    const json::Value* list = json::at(obj, {"metadata", "managedFields"});
    if (!list) {
        return "";
    }
    for (const json::Value& e : list->GetArray()) {
        if (json::stringMember(e, "manager") == manager &&
            json::stringMember(e, "operation") == operation &&
            json::stringMember(e, "subresource") == subresource) {
            return json::serialize(*json::member(e, "fieldsV1"));
        }
    }
    return "";
}

size_t entries(const json::Value& obj) {
    const json::Value* list = json::at(obj, {"metadata", "managedFields"});
    return list ? list->Size() : 0;
}

// `recorded` with our managedFields in place of kube's: the next live object.
json::Document withManagedFields(const char* recorded, const json::Value& ours) {
    json::Document d = parse(recorded);
    json::Value* meta = json::member(d, "metadata");
    json::Value mf(*json::at(ours, {"metadata", "managedFields"}), d.GetAllocator());
    json::setMember(*meta, "managedFields", std::move(mf), d.GetAllocator());
    return d;
}

void withoutManagedFields(json::Document& d) {
    json::removeMember(*json::member(d, "metadata"), "managedFields");
}

void replays_kubes_recorded_managed_fields(void**) {
    FieldManager fm = deployments();
    json::Document empty = parse("{}");
    json::Document config = parse(apply_recorded::kApplyConfig);

    // 1. The first apply creates the object: one Apply entry, as recorded.
    apply::ApplyResult r = fm.apply(empty, config, "kubectl", false, kNow);
    assert_false(r.status.has_value());
    assert_true(r.objectChanged);
    json::Document applied = parse(apply_recorded::kApplied);
    assert_int_equal(entries(r.object), 1);
    assert_string_equal(fieldsOf(r.object, "kubectl", "Apply").c_str(),
                        fieldsOf(applied, "kubectl", "Apply").c_str());

    // 2. kubectl label: an Update entry with only the new label.
    json::Document live = withManagedFields(apply_recorded::kApplied, r.object);
    json::Document labeled = parse(apply_recorded::kLabeled);
    withoutManagedFields(labeled);
    fm.update(live, labeled, "kubectl-label", kNow, labeled.GetAllocator());
    json::Document recordedLabeled = parse(apply_recorded::kLabeled);
    assert_string_equal(fieldsOf(labeled, "kubectl-label", "Update").c_str(),
                        fieldsOf(recordedLabeled, "kubectl-label", "Update").c_str());
    assert_string_equal(fieldsOf(labeled, "kubectl", "Apply").c_str(),
                        fieldsOf(recordedLabeled, "kubectl", "Apply").c_str());

    // 3. kubectl scale through /scale takes replicas from the applier.
    live = withManagedFields(apply_recorded::kLabeled, labeled);
    json::Document scaled = parse(apply_recorded::kScaled);
    withoutManagedFields(scaled);
    deployments("scale").update(live, scaled, "kubectl", kNow, scaled.GetAllocator());
    json::Document recordedScaled = parse(apply_recorded::kScaled);
    for (auto [m, op, sub] : {std::tuple{"kubectl", "Apply", ""},
                              {"kubectl", "Update", "scale"},
                              {"kubectl-label", "Update", ""}}) {
        assert_string_equal(fieldsOf(scaled, m, op, sub).c_str(),
                            fieldsOf(recordedScaled, m, op, sub).c_str());
    }
    assert_int_equal(entries(scaled), 3);

    // 4. Another manager changing what others own: kube's 409, word for word.
    live = withManagedFields(apply_recorded::kScaled, scaled);
    r = fm.apply(live, parse(apply_recorded::kOtherImage), "other", false, kNow);
    assert_true(r.status.has_value());
    assert_int_equal(r.status->code, 409);
    assert_string_equal(r.status->reason.c_str(), "Conflict");
    assert_string_equal(r.status->message.c_str(),
                        "Apply failed with 1 conflict: conflict with \"kubectl\": "
                        ".spec.template.spec.containers[name=\"nginx\"].image");
    assert_int_equal(r.status->details->causes.size(), 1);
    assert_string_equal(r.status->details->causes[0].reason.c_str(), "FieldManagerConflict");
    assert_string_equal(r.status->details->causes[0].message.c_str(), "conflict with \"kubectl\"");
    assert_string_equal(r.status->details->causes[0].field.c_str(),
                        ".spec.template.spec.containers[name=\"nginx\"].image");

    json::Document other = parse(apply_recorded::kOther);
    r = fm.apply(live, other, "other", false, kNow);
    assert_true(r.status.has_value());
    assert_string_equal(r.status->message.c_str(),
                        "Apply failed with 2 conflicts: conflicts with \"kubectl\":\n"
                        "- .spec.template.spec.containers[name=\"nginx\"].image\n"
                        "conflicts with \"kubectl\" with subresource \"scale\" using apps/v1:\n"
                        "- .spec.replicas");
    const auto& causes = r.status->details->causes;
    assert_int_equal(causes.size(), 2);
    assert_string_equal(causes[1].message.c_str(),
                        "conflict with \"kubectl\" with subresource \"scale\" using apps/v1");
    assert_string_equal(causes[1].field.c_str(), ".spec.replicas");

    // 5. With force the fields change hands; the emptied scale entry goes.
    r = fm.apply(live, other, "other", true, kNow);
    assert_false(r.status.has_value());
    json::Document forced = parse(apply_recorded::kForced);
    assert_int_equal(entries(r.object), 3);
    for (auto [m, op] :
         {std::pair{"kubectl", "Apply"}, {"other", "Apply"}, {"kubectl-label", "Update"}}) {
        assert_string_equal(fieldsOf(r.object, m, op).c_str(), fieldsOf(forced, m, op).c_str());
    }
    const json::Value* image = json::at(r.object, {"spec", "template", "spec", "containers"});
    assert_string_equal(json::stringMember((*image)[0], "image").data(), "nginx:1.26");
    assert_int_equal(json::at(r.object, {"spec", "replicas"})->GetInt(), 5);

    // 6. kubectl re-applies without some fields: those only it owned go;
    // values equal to other's are shared, not conflicts.
    live = withManagedFields(apply_recorded::kForced, r.object);
    r = fm.apply(live, parse(apply_recorded::kReapplyConfig), "kubectl", false, kNow);
    assert_false(r.status.has_value());
    json::Document reapplied = parse(apply_recorded::kReapplied);
    for (auto [m, op] :
         {std::pair{"kubectl", "Apply"}, {"other", "Apply"}, {"kubectl-label", "Update"}}) {
        assert_string_equal(fieldsOf(r.object, m, op).c_str(), fieldsOf(reapplied, m, op).c_str());
    }
    for (const char* path : {"labels", "finalizers"}) {
        assert_string_equal(json::serialize(*json::at(r.object, {"metadata", path})).c_str(),
                            json::serialize(*json::at(reapplied, {"metadata", path})).c_str());
    }
    assert_int_equal(json::at(r.object, {"spec", "template", "spec", "containers"})->Size(), 1);
}

void a_create_is_tracked_as_an_update(void**) {
    // kubectl create configmap: the recorded entry, "." on the new map.
    json::Document empty = parse("{}");
    json::Document cm =
        parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","namespace":"n"},)"
              R"("data":{"j":"w","k":"v"}})");
    configMaps().update(empty, cm, "kubectl-create", kNow, cm.GetAllocator());
    assert_string_equal(fieldsOf(cm, "kubectl-create", "Update").c_str(),
                        R"({"f:data":{".":{},"f:j":{},"f:k":{}}})");
    const json::Value* e = &(*json::at(cm, {"metadata", "managedFields"}))[0];
    assert_string_equal(json::stringMember(*e, "apiVersion").data(), "v1");
    assert_string_equal(json::stringMember(*e, "time").data(), kNow);

    // An existing object nobody tracks stays untracked on update...
    json::Document live = parse(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","uid":"u"},"data":{}})");
    json::Document next = parse(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","uid":"u"},"data":{"a":"b"}})");
    configMaps().update(live, next, "editor", kNow, next.GetAllocator());
    assert_int_equal(entries(next), 0);
    // ...and an apply gives its fields to "before-first-apply" first.
    json::Document config = parse(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1"},"data":{"c":"d"}})");
    apply::ApplyResult r = configMaps().apply(next, config, "me", false, kNow);
    assert_false(r.status.has_value());
    assert_string_equal(fieldsOf(r.object, "before-first-apply", "Update").c_str(),
                        R"({"f:data":{".":{},"f:a":{}}})");
    assert_string_equal(fieldsOf(r.object, "me", "Apply").c_str(), R"({"f:data":{"f:c":{}}})");
    // A client sending managedFields: [] resets them.
    json::Document reset = parse(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1","uid":"u","managedFields":[]},"data":{"a":"b","c":"d"}})");
    configMaps().update(r.object, reset, "editor", kNow, reset.GetAllocator());
    assert_int_equal(entries(reset), 0);
}

std::string deployment(const char* spec, const char* metadata = "") {
    return std::string(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d")") +
           metadata + "}," + R"("spec":)" + spec + "}";
}

apply::ApplyResult applyAs(const json::Value& live, const std::string& config, const char* m,
                           bool force = false) {
    json::Document c = parse(config.c_str());
    return deployments().apply(live, c, m, force, kNow);
}

void lists_of_primitives_merge_as_sets(void**) {
    json::Document empty = parse("{}");
    auto r1 = applyAs(empty, deployment("{}", R"(,"finalizers":["a","b"])"), "m1");
    auto r2 = applyAs(r1.object, deployment("{}", R"(,"finalizers":["b","c"])"), "m2");
    assert_false(r2.status.has_value());  // sets have no conflicts: items are owned one by one
    assert_string_equal(json::serialize(*json::at(r2.object, {"metadata", "finalizers"})).c_str(),
                        R"(["a","b","c"])");
    assert_string_equal(
        fieldsOf(r2.object, "m2", "Apply").c_str(),
        R"({"f:metadata":{"f:finalizers":{"v:\"b\"":{},"v:\"c\"":{}}},"f:spec":{}})");
    // m1 stops applying a and b: a goes, b stays (m2 owns it).
    auto r3 = applyAs(r2.object, deployment("{}", R"(,"finalizers":[])"), "m1");
    assert_string_equal(json::serialize(*json::at(r3.object, {"metadata", "finalizers"})).c_str(),
                        R"(["b","c"])");
}

void associative_lists_merge_by_key(void**) {
    json::Document empty = parse("{}");
    const char* a = R"({"template":{"spec":{"containers":[
        {"name":"a","image":"x","ports":[{"containerPort":80}]}]}}})";
    const char* b = R"({"template":{"spec":{"containers":[
        {"name":"b","image":"y"},{"name":"a","env":[{"name":"E","value":"1"}]}]}}})";
    auto r1 = applyAs(empty, deployment(a), "m1");
    auto r2 = applyAs(r1.object, deployment(b), "m2");
    assert_false(r2.status.has_value());
    const json::Value* cs = json::at(r2.object, {"spec", "template", "spec", "containers"});
    // b first (m2's order), a merged: both managers' fields kept.
    assert_string_equal(json::serialize(*cs).c_str(),
                        R"([{"name":"b","image":"y"},{"name":"a","image":"x","ports":[)"
                        R"({"containerPort":80}],"env":[{"name":"E","value":"1"}]}])");
    // The port's key has protocol's default, TCP.
    assert_string_equal(
        fieldsOf(r2.object, "m1", "Apply").c_str(),
        R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"a\"}":{".":{},)"
        R"("f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":)"
        R"({".":{},"f:containerPort":{}}}}}}}}})");
    // Two items with one key: smd's error.
    auto bad = applyAs(
        empty, deployment(R"({"template":{"spec":{"containers":[{"name":"a"},{"name":"a"}]}}})"),
        "m1");
    assert_true(bad.status.has_value());
    assert_string_equal(bad.status->message.c_str(),
                        "failed to create typed patch object (/d; apps/v1, Kind=Deployment): "
                        ".spec.template.spec.containers: duplicate entries for key [name=\"a\"]");
    assert_int_equal(bad.status->code, 500);
}

void atomic_maps_and_lists_are_replaced_whole(void**) {
    json::Document empty = parse("{}");
    auto r1 = applyAs(empty,
                      deployment(R"({"selector":{"matchLabels":{"a":"1","b":"2"}},)"
                                 R"("template":{"spec":{"nodeSelector":{"a":"1"},)"
                                 R"("containers":[{"name":"c","args":["x","y"]}]}}})"),
                      "m1");
    assert_string_equal(
        fieldsOf(r1.object, "m1", "Apply").c_str(),
        R"({"f:spec":{"f:selector":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":)"
        R"({".":{},"f:args":{},"f:name":{}}},"f:nodeSelector":{}}}}})");
    // Another manager's selector conflicts as one field, not per label.
    auto r2 = applyAs(r1.object, deployment(R"({"selector":{"matchLabels":{"c":"3"}}})"), "m2");
    assert_true(r2.status.has_value());
    assert_string_equal(r2.status->message.c_str(),
                        "Apply failed with 1 conflict: conflict with \"m1\": .spec.selector");
    r2 = applyAs(r1.object,
                 deployment(R"({"selector":{"matchLabels":{"c":"3"}},)"
                            R"("template":{"spec":{"nodeSelector":{"b":"2"},)"
                            R"("containers":[{"name":"c","args":["z"]}]}}})"),
                 "m2", true);
    assert_false(r2.status.has_value());
    assert_string_equal(json::serialize(*json::at(r2.object, {"spec", "selector"})).c_str(),
                        R"({"matchLabels":{"c":"3"}})");
    assert_string_equal(
        json::serialize(*json::at(r2.object, {"spec", "template", "spec", "nodeSelector"})).c_str(),
        R"({"b":"2"})");
    const json::Value* c = json::at(r2.object, {"spec", "template", "spec", "containers"});
    assert_string_equal(json::serialize(*json::member((*c)[0], "args")).c_str(), R"(["z"])");
}

void granular_maps_are_owned_key_by_key(void**) {
    json::Document empty = parse("{}");
    auto r1 = applyAs(empty, deployment("{}", R"(,"labels":{"a":"1"})"), "m1");
    auto r2 = applyAs(r1.object, deployment("{}", R"(,"labels":{"b":"2"})"), "m2");
    assert_false(r2.status.has_value());
    assert_string_equal(json::serialize(*json::at(r2.object, {"metadata", "labels"})).c_str(),
                        R"({"a":"1","b":"2"})");
    // Changing the other's key conflicts; the same value is shared.
    auto r3 = applyAs(r2.object, deployment("{}", R"(,"labels":{"a":"9"})"), "m2");
    assert_true(r3.status.has_value());
    r3 = applyAs(r2.object, deployment("{}", R"(,"labels":{"a":"1","b":"2"})"), "m2");
    assert_false(r3.status.has_value());
    assert_false(r3.objectChanged);
    // m1 stops applying a: m2 still owns it, so it stays...
    auto r4 = applyAs(r3.object, deployment("{}", R"(,"labels":{})"), "m1");
    assert_string_equal(json::serialize(*json::at(r4.object, {"metadata", "labels"})).c_str(),
                        R"({"a":"1","b":"2"})");
    // ...and when m2 stops applying both, they go.
    auto r5 = applyAs(r4.object, deployment("{}"), "m2");
    const json::Value* labels = json::at(r5.object, {"metadata", "labels"});
    assert_true(!labels || labels->IsNull() || labels->ObjectEmpty());
}

void nulls_and_empty_objects_are_fields(void**) {
    TypeRef t = TypeRef::forMessage(kapi::apps::v1::Deployment::descriptor());
    json::Document d =
        parse(R"({"spec":{"replicas":null,"template":{"spec":{"volumes":[)"
              R"({"name":"v","emptyDir":{}}]}},"paused":false},"extra":{"x":{"y":1}}})");
    apply::FieldSet s = apply::toFieldSet(d, t);
    assert_string_equal(
        apply::toFieldsV1Json(s).c_str(),
        R"({"f:extra":{".":{},"f:x":{".":{},"f:y":{}}},"f:spec":{"f:paused":{},"f:replicas":{},)"
        R"("f:template":{"f:spec":{"f:volumes":{"k:{\"name\":\"v\"}":{".":{},"f:emptyDir":{},)"
        R"("f:name":{}}}}}}})");
    // A null in the config is applied as a value of its own.
    json::Document empty = parse("{}");
    auto r1 = applyAs(empty, deployment(R"({"replicas":3})"), "m1");
    auto r2 = applyAs(r1.object, deployment(R"({"replicas":null})"), "m1");
    assert_false(r2.status.has_value());
    assert_true(json::at(r2.object, {"spec", "replicas"})->IsNull());
}

void updates_take_fields_without_conflicts(void**) {
    json::Document empty = parse("{}");
    auto r1 = applyAs(empty, deployment(R"({"replicas":3,"paused":true})"), "m1");
    json::Document next(parse(json::serialize(r1.object).c_str()));
    json::at(next, {"spec"});
    (*json::member(*json::member(next, "spec"), "replicas")).SetInt(4);
    json::setMember(*json::member(next, "metadata"), "uid", json::Value("u"), next.GetAllocator());
    json::Document live(parse(json::serialize(r1.object).c_str()));
    json::setMember(*json::member(live, "metadata"), "uid", json::Value("u"), live.GetAllocator());
    deployments().update(live, next, "hpa", kNow, next.GetAllocator());
    assert_string_equal(fieldsOf(next, "hpa", "Update").c_str(), R"({"f:spec":{"f:replicas":{}}})");
    assert_string_equal(fieldsOf(next, "m1", "Apply").c_str(), R"({"f:spec":{"f:paused":{}}})");
    // The applier now conflicts with the updater until it forces.
    auto r2 = applyAs(next, deployment(R"({"replicas":3,"paused":true})"), "m1");
    assert_true(r2.status.has_value());
    assert_string_equal(r2.status->message.c_str(),
                        "Apply failed with 1 conflict: conflict with \"hpa\" using apps/v1: "
                        ".spec.replicas");
}

void kubectl_takes_over_from_client_side_apply(void**) {
    // Made by client-side apply: the annotation holds what it applied.
    const char* annotated =
        R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","uid":"u",)"
        R"("annotations":{"kubectl.kubernetes.io/last-applied-configuration":)"
        R"("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},\"spec\":{\"replicas\":2}}\n"},)"
        R"("managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update",)"
        R"("apiVersion":"apps/v1","time":"2026-11-26T01:00:00Z","fieldsType":"FieldsV1",)"
        R"("fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}},)"
        R"("f:spec":{"f:replicas":{}}}}]},"spec":{"replicas":2}})";
    json::Document live = parse(annotated);
    std::string config = deployment(R"({"replicas":5})");
    auto other = applyAs(live, config, "someone");
    assert_true(other.status.has_value());
    auto r = applyAs(live, config, "kubectl");
    assert_false(r.status.has_value());
    assert_int_equal(json::at(r.object, {"spec", "replicas"})->GetInt(), 5);
    assert_string_equal(fieldsOf(r.object, "kubectl", "Apply").c_str(),
                        R"({"f:spec":{"f:replicas":{}}})");
    // The annotation now shows the server-side applied config.
    const json::Value* ann = json::at(r.object, {"metadata", "annotations"});
    assert_string_equal(
        json::stringMember(*ann, "kubectl.kubernetes.io/last-applied-configuration").data(),
        R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":5}})");
}

void bad_apply_bodies_are_refused(void**) {
    json::Document empty = parse("{}");
    auto r = applyAs(empty, R"({"apiVersion":"apps/v1beta1","kind":"Deployment"})", "m");
    assert_int_equal(r.status->code, 400);
    assert_string_equal(r.status->message.c_str(),
                        "Incorrect version specified in apply patch. Specified patch version: "
                        "apps/v1beta1, expected: apps/v1");
    r = applyAs(empty, R"({"apiVersion":"apps/v1","kind":"StatefulSet"})", "m");
    assert_int_equal(r.status->code, 400);
    assert_string_equal(r.status->message.c_str(),
                        "invalid object type: apps/v1, Kind=StatefulSet");
    r = applyAs(empty, deployment("{}", R"(,"managedFields":[])"), "m");
    assert_int_equal(r.status->code, 400);
    assert_string_equal(r.status->message.c_str(), "metadata.managedFields must be nil");
}

// A Deployment with 50 fields set (counting every scalar, list item and map
// entry of the config).
std::string fiftyFieldDeployment() {
    std::string labels;
    for (int i = 0; i < 8; ++i) {
        labels += (i ? "," : "") + std::string("\"l") + std::to_string(i) + "\":\"v\"";
    }
    return deployment(
        R"({"replicas":3,"revisionHistoryLimit":5,"selector":{"matchLabels":{"app":"web"}},)"
        R"("strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}},)"
        R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[)"
        R"({"name":"web","image":"nginx:1.25","args":["-g","daemon off;"],)"
        R"("ports":[{"containerPort":80,"name":"http"},{"containerPort":53,"protocol":"UDP"}],)"
        R"("env":[{"name":"A","value":"1"},{"name":"B","value":"2"},{"name":"C","value":"3"}],)"
        R"("resources":{"limits":{"cpu":"100m","memory":"64Mi"},"requests":{"cpu":"50m"}},)"
        R"("volumeMounts":[{"name":"data","mountPath":"/data"}]},)"
        R"({"name":"side","image":"busybox","command":["sleep","3600"]}],)"
        R"("volumes":[{"name":"data","emptyDir":{}}],"nodeSelector":{"disk":"ssd"},)"
        R"("tolerations":[{"key":"k","operator":"Exists"}],"terminationGracePeriodSeconds":30}}})",
        (R"(,"namespace":"n","labels":{)" + labels + R"(},"annotations":{"a":"b"})").c_str());
}

// CPU time of this thread in µs: the machine running the tests is shared,
// and wall time would count other processes' turns.
double cpuMicros() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

void reapplying_the_same_config_changes_nothing_and_is_fast(void**) {
    json::Document empty = parse("{}");
    std::string config = fiftyFieldDeployment();
    auto first = applyAs(empty, config, "kubectl");
    assert_false(first.status.has_value());
    json::Document c = parse(config.c_str());
    size_t fields =
        apply::toFieldSet(c, TypeRef::forMessage(kapi::apps::v1::Deployment::descriptor())).size();
    assert_true(fields >= 50);
    FieldManager fm = deployments();
    const int rounds = 2000;
    double start = cpuMicros();
    for (int i = 0; i < rounds; ++i) {
        auto again = fm.apply(first.object, c, "kubectl", false, kNow);
        assert_false(again.status.has_value());
        assert_false(again.objectChanged);
    }
    double us = (cpuMicros() - start) / rounds;
    auto again = fm.apply(first.object, c, "kubectl", false, "2030-01-01T00:00:00Z");
    // Nothing changed: not even the entry's time.
    assert_string_equal(json::serialize(again.object).c_str(),
                        json::serialize(first.object).c_str());
    // One field changed.
    json::Document one = parse(config.c_str());
    json::member(*json::member(one, "spec"), "replicas")->SetInt(4);
    start = cpuMicros();
    for (int i = 0; i < rounds; ++i) {
        auto changed = fm.apply(first.object, one, "kubectl", false, kNow);
        assert_true(changed.objectChanged);
    }
    double changedUs = (cpuMicros() - start) / rounds;
    std::printf("# %zu-field Deployment: no-op re-apply %.1f us, one-field change %.1f us (CPU)\n",
                fields, us, changedUs);
    // Generous bounds (shared CI machines, sanitizer builds): well under a
    // millisecond unoptimized.
    assert_true(us < 5000);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replays_kubes_recorded_managed_fields),
        cmocka_unit_test(a_create_is_tracked_as_an_update),
        cmocka_unit_test(lists_of_primitives_merge_as_sets),
        cmocka_unit_test(associative_lists_merge_by_key),
        cmocka_unit_test(atomic_maps_and_lists_are_replaced_whole),
        cmocka_unit_test(granular_maps_are_owned_key_by_key),
        cmocka_unit_test(nulls_and_empty_objects_are_fields),
        cmocka_unit_test(updates_take_fields_without_conflicts),
        cmocka_unit_test(kubectl_takes_over_from_client_side_apply),
        cmocka_unit_test(bad_apply_bodies_are_refused),
        cmocka_unit_test(reapplying_the_same_config_changes_nothing_and_is_fast),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
