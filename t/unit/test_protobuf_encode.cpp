// Protobuf responses: our JSON form encoded by the schema (the mirror image
// of the request decoder), the envelope, lists, Status and watch frames, and
// streamed lists, checked by decoding the bytes again and against the wire
// rules of Go's marshal (spec/protobuf.md).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/unknown_field_set.h>

#include "endpoints/list_stream.hpp"
#include "endpoints/protobuf_codec.hpp"
#include "endpoints/protobuf_encoder.hpp"
#include "endpoints/responses.hpp"
#include "endpoints/watch_stream.hpp"
#include "fake_loop.hpp"
#include "kapi/apiextensions.pb.h"
#include "kapi/apps.pb.h"
#include "kapi/coordination.pb.h"
#include "kapi/core.pb.h"
#include "kapi/meta.pb.h"
#include "kapi/runtime.pb.h"
#include "registry/encoding.hpp"
#include "registry/scheme.hpp"
#include "registry/store.hpp"
#include "storage/cacher/cacher.hpp"
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

namespace {

namespace json = kube::util::json;
namespace endpoints = kube::endpoints;
namespace registry = kube::registry;
namespace storage = kube::storage;
using kube::meta::Status;
using kube::testing::FakeLoop;

std::string hex(std::string_view s) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : s) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string unhex(std::string_view h) {
    std::string out;
    auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    for (size_t i = 0; i + 1 < h.size(); i += 2) {
        out += static_cast<char>(nibble(h[i]) << 4 | nibble(h[i + 1]));
    }
    return out;
}

// The raw bytes of `text` encoded as apiVersion + kind; fails the test on error.
std::string encodeRaw(const std::string& text, const std::string& apiVersion,
                      const std::string& kind) {
    json::Document doc;
    if (auto e = json::parse(text, doc)) {
        fail_msg("fixture is not JSON (%s): %s", e->c_str(), text.c_str());
    }
    std::string raw;
    if (auto why = endpoints::encodeProtobufRaw(doc, apiVersion, kind, &raw)) {
        fail_msg("%s %s: %s", apiVersion.c_str(), kind.c_str(), why->c_str());
    }
    return raw;
}

// A whole body back to our JSON form, through the request decoder.
std::string decodeBody(const std::string& body) {
    endpoints::ProtobufEnvelope env;
    if (auto e = endpoints::parseProtobufEnvelope(body, &env)) {
        fail_msg("envelope: %s", e->c_str());
    }
    json::Document doc;
    if (auto e = endpoints::protobufToJson(env, doc)) {
        fail_msg("decode: %s", e->c_str());
    }
    return json::serialize(doc);
}

std::string roundTrip(const std::string& text, const std::string& apiVersion,
                      const std::string& kind) {
    return decodeBody(
        endpoints::protobufEnvelope(apiVersion, kind, encodeRaw(text, apiVersion, kind)));
}

void assertSame(const std::string& got, const std::string& want, const char* what) {
    if (got != want) {
        std::fprintf(stderr, "%s\ngot:  %s\nwant: %s\n", what, got.c_str(), want.c_str());
    }
    assert_string_equal(got.c_str(), want.c_str());
}

const char* kMeta = R"("uid":"0b6a3c1e-7f7e-4d52-9a57-2f6f0c2b1a11","resourceVersion":"42",)"
                    R"("creationTimestamp":"2026-11-21T23:55:01Z")";
// The same for objects with a generation, which Go writes before the timestamp.
const char* kMetaGen =
    R"("uid":"0b6a3c1e-7f7e-4d52-9a57-2f6f0c2b1a11","resourceVersion":"42","generation":1,)"
    R"("creationTimestamp":"2026-11-21T23:55:01Z")";

struct Fixture {
    const char* apiVersion;
    const char* kind;
    std::string json;  // as kube-apiserver's JSON shows the object
};

// Objects as the server stores and serves them, in Go's field order.
std::vector<Fixture> storedObjects() {
    std::string m = kMeta;
    std::string g = kMetaGen;
    return {
        {"v1", "Namespace",
         R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"team",)" + m +
             R"(,"labels":{"kubernetes.io/metadata.name":"team"},"managedFields":[{"manager":)"
             R"("kubectl-create","operation":"Update","apiVersion":"v1","time":)"
             R"("2026-11-21T23:55:01Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":)"
             R"({"f:labels":{".":{},"f:kubernetes.io/metadata.name":{}}}}}]},)"
             R"("spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}})"},
        {"v1", "ConfigMap",
         R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"lab",)" + m +
             R"(,"annotations":{"note":"x"}},"immutable":false,"data":{"a":"b","empty":""},)"
             R"("binaryData":{"bin":"AP8Q"}})"},
        {"v1", "Secret",
         R"({"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","namespace":"lab",)" + m +
             R"(},"data":{"e":"","p":"cQ=="},"type":"Opaque"})"},
        {"v1", "ServiceAccount",
         R"({"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"sa",)"
         R"("namespace":"lab",)" +
             m + R"(},"automountServiceAccountToken":false})"},
        {"v1", "Service",
         R"({"kind":"Service","apiVersion":"v1","metadata":{"name":"s","namespace":"lab",)" + m +
             R"(,"labels":{"app":"s"}},"spec":{"ports":[{"name":"http","protocol":"TCP",)"
             R"("port":80,"targetPort":8080},{"name":"https","protocol":"TCP","port":443,)"
             R"("targetPort":"https","nodePort":30443}],"selector":{"app":"s"},)"
             R"("clusterIP":"10.96.0.10","clusterIPs":["10.96.0.10"],"type":"NodePort",)"
             R"("sessionAffinity":"None","externalTrafficPolicy":"Cluster",)"
             R"("ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",)"
             R"("internalTrafficPolicy":"Cluster"},"status":{"loadBalancer":{}}})"},
        {"v1", "Pod",
         R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"lab",)" + m +
             R"(,"deletionTimestamp":"2026-11-22T00:00:00Z","deletionGracePeriodSeconds":30},)"
             R"("spec":{"volumes":[{"name":"cfg","configMap":{"name":"cm","defaultMode":420}}],)"
             R"("containers":[{"name":"web","image":"nginx","ports":[{"containerPort":80,)"
             R"("protocol":"TCP"}],"resources":{"limits":{"cpu":"500m","memory":"128Mi"},)"
             R"("requests":{"cpu":"250m"}},"livenessProbe":{"httpGet":{"path":"/healthz",)"
             R"("port":"http","scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,)"
             R"("successThreshold":1,"failureThreshold":3},"terminationMessagePath":)"
             R"("/dev/termination-log","terminationMessagePolicy":"File",)"
             R"("imagePullPolicy":"Always"}],"restartPolicy":"Always",)"
             R"("terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",)"
             R"("securityContext":{},"schedulerName":"default-scheduler"},)"
             R"("status":{"phase":"Pending","conditions":[{"type":"PodScheduled",)"
             R"("status":"False","lastProbeTime":null,"lastTransitionTime":)"
             R"("2026-11-21T23:55:01Z","reason":"Unschedulable"}],"qosClass":"Burstable"}})"},
        {"apps/v1", "Deployment",
         R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web",)"
         R"("namespace":"lab",)" +
             g +
             R"(,"labels":{"app":"web"}},"spec":{"replicas":1,"selector":)"
             R"({"matchLabels":{"app":"web"}},"template":{"metadata":{"creationTimestamp":null,)"
             R"("labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx:1.25",)"
             R"("resources":{},"terminationMessagePath":"/dev/termination-log",)"
             R"("terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],)"
             R"("restartPolicy":"Always","terminationGracePeriodSeconds":30,)"
             R"("dnsPolicy":"ClusterFirst","securityContext":{},)"
             R"("schedulerName":"default-scheduler"}},"strategy":{"type":"RollingUpdate",)"
             R"("rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},)"
             R"("revisionHistoryLimit":10,"progressDeadlineSeconds":600},"status":{}})"},
        {"coordination.k8s.io/v1", "Lease",
         R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"l",)"
         R"("namespace":"kube-system",)" +
             m +
             R"(},"spec":{"holderIdentity":"node-a","leaseDurationSeconds":15,)"
             R"("acquireTime":"2023-11-14T22:13:20.123456Z",)"
             R"("renewTime":"2023-11-14T22:13:21.000000Z","leaseTransitions":0}})"},
        {"policy/v1", "PodDisruptionBudget",
         R"({"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":"p",)"
         R"("namespace":"lab",)" +
             g +
             R"(},"spec":{"minAvailable":0,"maxUnavailable":"50%"},)"
             R"("status":{"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,)"
             R"("expectedPods":0}})"},
        {"v1", "ResourceQuota",
         R"({"kind":"ResourceQuota","apiVersion":"v1","metadata":{"name":"q",)"
         R"("namespace":"lab",)" +
             m +
             R"(},"spec":{"hard":{"cpu":"1","memory":"1G","pods":"0"}},)"
             R"("status":{"hard":{"pods":"2"},"used":{"pods":"0"}}})"},
        {"rbac.authorization.k8s.io/v1", "ClusterRole",
         R"({"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1",)"
         R"("metadata":{"name":"agg",)" +
             m + R"(},"rules":null,"aggregationRule":{"clusterRoleSelectors":[{}]}})"},
        {"scheduling.k8s.io/v1", "PriorityClass",
         R"({"kind":"PriorityClass","apiVersion":"scheduling.k8s.io/v1",)"
         R"("metadata":{"name":"high",)" +
             g +
             R"(},"value":1000,"description":"x",)"
             R"("preemptionPolicy":"PreemptLowerPriority"})"},
    };
}

void stored_objects_round_trip_through_protobuf_unchanged(void**) {
    for (const Fixture& f : storedObjects()) {
        assertSame(roundTrip(f.json, f.apiVersion, f.kind), f.json, f.kind);
    }
}

// Every kind with a schema, with full metadata and nothing else: what one
// round trip shows encodes to the same bytes again (a fixed point).
void every_kind_with_a_schema_reaches_a_fixed_point(void**) {
    registry::Scheme scheme;
    registry::addBuiltinKinds(scheme);
    int kinds = 0;
    for (const auto& k : scheme.all()) {
        if (!endpoints::hasProtobufSchema(k->apiVersion(), k->kind)) {
            continue;
        }
        kinds++;
        std::string text = R"({"kind":")" + k->kind + R"(","apiVersion":")" + k->apiVersion() +
                           R"(","metadata":{"name":"x","namespace":"ns",)" + kMeta +
                           R"(,"labels":{"a":"b"},"annotations":{"c":""},"finalizers":["f"]}})";
        std::string raw = encodeRaw(text, k->apiVersion(), k->kind);
        std::string once = decodeBody(endpoints::protobufEnvelope(k->apiVersion(), k->kind, raw));
        if (encodeRaw(once, k->apiVersion(), k->kind) != raw) {
            fail_msg("%s %s: no fixed point: %s", k->apiVersion().c_str(), k->kind.c_str(),
                     once.c_str());
        }
        assertSame(roundTrip(once, k->apiVersion(), k->kind), once, k->kind.c_str());
        assert_non_null(strstr(once.c_str(), R"("labels":{"a":"b"},"annotations":{"c":""})"));
    }
    assert_true(kinds >= 15);
}

void kinds_without_a_schema_and_wrong_types_are_reported_by_field(void**) {
    json::Document doc;
    assert_false(json::parse(R"({"spec":{"replicas":"two"}})", doc).has_value());
    std::string raw;
    auto why = endpoints::encodeProtobufRaw(doc, "apps/v1", "Deployment", &raw);
    assert_true(why.has_value());
    assert_string_equal(why->c_str(), "spec.replicas: a JSON string where an int32 belongs");
    assert_false(json::parse(R"({"data":{"k":"not base64!"}})", doc).has_value());
    why = endpoints::encodeProtobufRaw(doc, "v1", "Secret", &raw);
    assert_true(why.has_value());
    assert_string_equal(why->c_str(), "data: illegal base64 data");
    assert_false(json::parse(R"({"metadata":[]})", doc).has_value());
    why = endpoints::encodeProtobufRaw(doc, "v1", "ConfigMap", &raw);
    assert_string_equal(why->c_str(), "metadata: a JSON array where an object belongs");
    why = endpoints::encodeProtobufRaw(doc, "v1", "Widget", &raw);
    assert_string_equal(why->c_str(),
                        "no protobuf schema is known for kind \"Widget\" in version "
                        "\"v1\"");
}

void times_are_whole_seconds_and_micro_times_keep_microseconds(void**) {
    kapi::core::v1::ConfigMap cm;
    assert_true(cm.ParseFromString(
        encodeRaw(R"({"metadata":{"name":"a","creationTimestamp":"2023-11-14T22:13:20.5Z",)"
                  R"("deletionTimestamp":null}})",
                  "v1", "ConfigMap")));
    // Go's Time writes both fields and drops the fraction.
    assert_true(cm.metadata().creationtimestamp().has_seconds());
    assert_int_equal(cm.metadata().creationtimestamp().seconds(), 1700000000);
    assert_true(cm.metadata().creationtimestamp().has_nanos());
    assert_int_equal(cm.metadata().creationtimestamp().nanos(), 0);
    assert_false(cm.metadata().has_deletiontimestamp());
    // A zero creationTimestamp is an empty message that is still there: 42 00.
    std::string raw =
        encodeRaw(R"({"metadata":{"name":"a","creationTimestamp":null}})", "v1", "ConfigMap");
    assert_string_equal(hex(raw).c_str(),
                        "0a11"
                        "0a0161"
                        "1200"
                        "1a0022002a0032003800"
                        "4200");

    kapi::coordination::v1::Lease lease;
    assert_true(lease.ParseFromString(
        encodeRaw(R"({"spec":{"acquireTime":"2023-11-14T22:13:20.123456789Z","renewTime":null}})",
                  "coordination.k8s.io/v1", "Lease")));
    assert_int_equal(lease.spec().acquiretime().seconds(), 1700000000);
    assert_int_equal(lease.spec().acquiretime().nanos(), 123456000);
    assert_false(lease.spec().has_renewtime());
}

// apiextensions' JSON (any value) and the schema unions: each JSON form a
// union can take comes back as it went in (fields in the schema's order, map
// keys sorted, as Go writes them), and takes kube's wire form.
void schema_unions_and_free_form_json_keep_their_json_form(void**) {
    const std::string crd =
        R"({"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1",)"
        R"("metadata":{"name":"u","creationTimestamp":null},"spec":{"group":"","names":)"
        R"({"plural":"","kind":""},)"
        R"("scope":"","versions":[{"name":"v1","served":true,"storage":true,"schema":)"
        R"({"openAPIV3Schema":{"type":"object","properties":{)"
        R"("a":{"additionalProperties":true},"b":{"additionalProperties":false},)"
        R"("c":{"additionalProperties":{"type":"string"}},)"
        R"("d":{"items":{"type":"string"}},"e":{"items":[{"type":"string"},{}]},)"
        R"("f":{"dependencies":{"w":{"required":["v"]},"x":["y","z"]}},)"
        R"("g":{"default":"s","enum":[1,2.5,"t",true,null,[1],{"k":"v"}],"example":{"k":[]}},)"
        R"("h":{"$ref":"#/r","maximum":0,"x-kubernetes-preserve-unknown-fields":true}}}}}]},)"
        R"("status":{"conditions":null,"acceptedNames":{"plural":"","kind":""},)"
        R"("storedVersions":null}})";
    assertSame(roundTrip(crd, "apiextensions.k8s.io/v1", "CustomResourceDefinition"), crd,
               "CustomResourceDefinition");
    kapi::apiextensions::v1::CustomResourceDefinition m;
    assert_true(
        m.ParseFromString(encodeRaw(crd, "apiextensions.k8s.io/v1", "CustomResourceDefinition")));
    const auto& props = m.spec().versions(0).schema().openapiv3schema().properties();
    // Go's JSONSchemaPropsOrBool always writes `allows`, the schema when set.
    assert_string_equal(hex(props.at("a").additionalproperties().SerializeAsString()).c_str(),
                        "0801");
    assert_string_equal(hex(props.at("b").additionalproperties().SerializeAsString()).c_str(),
                        "0800");
    assert_true(props.at("c").additionalproperties().allows());
    assert_true(props.at("c").additionalproperties().has_schema());
    assert_int_equal(props.at("e").items().jsonschemas_size(), 2);
    assert_int_equal(props.at("f").dependencies().at("x").property_size(), 2);
    // Free-form values are their JSON text on the wire.
    assert_string_equal(props.at("g").default_().raw().c_str(), "\"s\"");
    assert_string_equal(props.at("g").enum_(6).raw().c_str(), R"({"k":"v"})");
}

// A CRD whose schema nests `properties` `depth` levels deep.
std::string deepCrd(int depth) {
    std::string schema;
    for (int i = 0; i < depth; ++i) {
        schema += R"({"type":"object","properties":{"a":)";
    }
    schema += R"({"type":"string"})";
    for (int i = 0; i < depth; ++i) {
        schema += "}}";
    }
    return R"({"metadata":{"name":"d"},"spec":{"group":"g","names":{"plural":"ds","kind":"D"},)"
           R"("scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,)"
           R"("schema":{"openAPIV3Schema":)" +
           schema + "}}]}}";
}

// Maps of schemas are written as lists of entries, sorted by key: the bytes
// are those protobuf's own deterministic serialization of the same message
// gives (the union fixture's maps, and one nested as deep as the C++ parser
// reads), and a schema nested 4,900 deep (the deepest JSON allows) encodes in
// linear time, not the quadratic copying of maps filled by reflection (12 s
// for 2,500 levels).
void maps_of_schemas_encode_once_per_level_in_key_order(void**) {
    const std::string crd =
        R"({"spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":{"properties":{)"
        R"("z":{"type":"string"},"b":{"properties":{"y":{},"x":{"type":"integer"}}},)"
        R"("a":{"patternProperties":{"q":{},"p":{}},"definitions":{"d":{},"c":{}}}}}}}]}})";
    for (const std::string& text : {crd, deepCrd(40)}) {
        std::string raw = encodeRaw(text, "apiextensions.k8s.io/v1", "CustomResourceDefinition");
        kapi::apiextensions::v1::CustomResourceDefinition m;
        assert_true(m.ParseFromString(raw));
        std::string again;
        {
            google::protobuf::io::StringOutputStream stream(&again);
            google::protobuf::io::CodedOutputStream coded(&stream);
            coded.SetSerializationDeterministic(true);
            m.SerializeToCodedStream(&coded);
        }
        assert_true(raw == again);
    }
    double took[2];
    size_t sizes[2];
    int depths[2] = {2450, 4900};
    for (int i = 0; i < 2; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        sizes[i] =
            encodeRaw(deepCrd(depths[i]), "apiextensions.k8s.io/v1", "CustomResourceDefinition")
                .size();
        took[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    assert_true(sizes[1] > 2 * sizes[0] - 100);
    // Twice the depth: twice the time (quadratic was four times), with room
    // for a loaded machine; and well under a second.
    assert_true(took[1] < 0.5);
    assert_true(took[1] < 3.5 * took[0] + 0.02);

    // `items` nests a schema one JSON level per level: 9,980 deep is two
    // messages a level, which protobuf's serializer recursed through past an
    // 8 MB stack; the encoder now gets a stack for the depth.
    std::string items;
    for (int i = 0; i < 9980; ++i) {
        items += R"({"type":"array","items":)";
    }
    items += R"({"type":"string"})" + std::string(9980, '}');
    std::string deepItems =
        R"({"spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":)" + items + "}}]}}";
    assert_true(encodeRaw(deepItems, "apiextensions.k8s.io/v1", "CustomResourceDefinition").size() >
                9980 * 10);
}

void int_or_string_writes_all_three_fields(void**) {
    std::string raw = encodeRaw(R"({"spec":{"ports":[{"port":80,"targetPort":8080},)"
                                R"({"port":443,"targetPort":"https"},{"port":53}]}})",
                                "v1", "Service");
    kapi::core::v1::Service svc;
    assert_true(svc.ParseFromString(raw));
    assert_int_equal(svc.spec().ports_size(), 3);
    assert_string_equal(hex(svc.spec().ports(0).targetport().SerializeAsString()).c_str(),
                        "0800"
                        "10903f"
                        "1a00");
    assert_string_equal(hex(svc.spec().ports(1).targetport().SerializeAsString()).c_str(),
                        "0801"
                        "1000"
                        "1a056874747073");
    // A plain Go struct: the zero IntOrString is there too.
    assert_true(svc.spec().ports(2).has_targetport());
    assert_string_equal(hex(svc.spec().ports(2).targetport().SerializeAsString()).c_str(),
                        "0800"
                        "1000"
                        "1a00");
}

void quantities_are_strings_and_a_missing_one_is_zero(void**) {
    kapi::core::v1::ResourceQuota q;
    assert_true(q.ParseFromString(
        encodeRaw(R"({"spec":{"hard":{"cpu":"500m","pods":null,"count":2,"":"1Gi"}}})", "v1",
                  "ResourceQuota")));
    auto& hard = q.spec().hard();
    assert_string_equal(hard.at("cpu").string().c_str(), "500m");
    assert_string_equal(hard.at("pods").string().c_str(), "0");
    assert_string_equal(hard.at("count").string().c_str(), "2");
    assert_string_equal(hard.at("").string().c_str(), "1Gi");
}

void bytes_are_base64_in_json_and_raw_on_the_wire(void**) {
    kapi::core::v1::Secret s;
    assert_true(s.ParseFromString(
        encodeRaw(R"({"data":{"bin":"AP8Q","e":"","one":"YQ==","two":"YWI="}})", "v1", "Secret")));
    assert_true(s.data().at("bin") == std::string("\x00\xff\x10", 3));
    assert_true(s.data().at("e").empty());
    assert_string_equal(s.data().at("one").c_str(), "a");
    assert_string_equal(s.data().at("two").c_str(), "ab");
    // Map entries sorted by key, each with its key and value, as gogo writes them.
    std::string raw = encodeRaw(R"({"data":{"z":"","a":"YQ=="}})", "v1", "Secret");
    assert_non_null(strstr(hex(raw).c_str(), "12060a016112016112050a017a1200"));
}

void empty_and_absent_maps_and_lists_encode_alike(void**) {
    std::string absent = encodeRaw(R"({"metadata":{"name":"a"}})", "v1", "ConfigMap");
    assert_true(encodeRaw(R"({"metadata":{"name":"a","labels":{},"finalizers":[]},"data":{}})",
                          "v1", "ConfigMap") == absent);
    assert_true(encodeRaw(R"({"metadata":{"name":"a","labels":null},"data":null})", "v1",
                          "ConfigMap") == absent);
    // Go cannot tell them apart after decoding: omitted, or null without omitempty.
    assertSame(roundTrip(R"({"metadata":{"name":"a"},"data":{}})", "v1", "ConfigMap"),
               R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a",)"
               R"("creationTimestamp":null}})",
               "empty map");
    assertSame(roundTrip(R"({"metadata":{"name":"r"},"rules":[]})", "rbac.authorization.k8s.io/v1",
                         "ClusterRole"),
               R"({"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1",)"
               R"("metadata":{"name":"r","creationTimestamp":null},"rules":null})",
               "empty list");
}

void pointers_keep_zero_and_drop_nil(void**) {
    kapi::core::v1::ConfigMap cm;
    assert_true(cm.ParseFromString(encodeRaw(R"({"immutable":false})", "v1", "ConfigMap")));
    assert_true(cm.has_immutable());
    assert_true(cm.ParseFromString(encodeRaw(R"({"immutable":null})", "v1", "ConfigMap")));
    assert_false(cm.has_immutable());

    kapi::apps::v1::Deployment d;
    assert_true(
        d.ParseFromString(encodeRaw(R"({"spec":{"replicas":0}})", "apps/v1", "Deployment")));
    assert_true(d.spec().has_replicas());
    assert_false(d.spec().has_selector());
    // Plain Go fields are written even though absent: spec.paused, status.
    assert_true(d.spec().has_paused());
    assert_true(d.has_status());
    assert_true(d.status().has_replicas());
    assert_true(d.ParseFromString(encodeRaw(R"({"spec":{}})", "apps/v1", "Deployment")));
    assert_false(d.spec().has_replicas());
    assert_false(d.spec().template_().spec().has_securitycontext());
    assert_true(d.ParseFromString(encodeRaw(
        R"({"spec":{"template":{"spec":{"securityContext":{}}}}})", "apps/v1", "Deployment")));
    assert_true(d.spec().template_().spec().has_securitycontext());
}

// Parses a body's envelope by hand: typeMeta, raw, and the two empty strings.
kapi::runtime::Unknown parseEnvelope(const std::string& body) {
    assert_true(body.size() > 4);
    assert_true(body.compare(0, 4, std::string("k8s\0", 4)) == 0);
    kapi::runtime::Unknown u;
    assert_true(u.ParseFromString(body.substr(4)));
    assert_true(u.has_contentencoding() && u.contentencoding().empty());
    assert_true(u.has_contenttype() && u.contenttype().empty());
    return u;
}

void status_is_enveloped_as_v1_status_with_kubes_json_shape(void**) {
    Status missing = Status::notFound({"apps", "deployments"}, "web");
    kapi::runtime::Unknown u = parseEnvelope(endpoints::encodeProtobufStatus(missing));
    assert_string_equal(u.typemeta().apiversion().c_str(), "v1");
    assert_string_equal(u.typemeta().kind().c_str(), "Status");
    kapi::meta::v1::Status st;
    assert_true(st.ParseFromString(u.raw()));
    assert_int_equal(st.code(), 404);
    assert_string_equal(st.reason().c_str(), "NotFound");
    assert_string_equal(st.details().group().c_str(), "apps");
    // metadata is a plain ListMeta: written, with its three strings.
    assert_true(u.raw().compare(0, 8, unhex("0a060a0012001a00")) == 0);
    json::Document doc;
    assert_false(endpoints::protobufMessageToJson(st, doc).has_value());
    std::string shown = R"({"kind":"Status","apiVersion":"v1",)" + json::serialize(doc).substr(1);
    assertSame(shown, missing.toJson(), "failure");

    Status invalid = Status::invalid({"", "ConfigMap"}, "Bad_Name",
                                     {{"FieldValueInvalid", "Invalid value", "metadata.name"}});
    assert_true(st.ParseFromString(parseEnvelope(endpoints::encodeProtobufStatus(invalid)).raw()));
    assert_int_equal(st.details().causes_size(), 1);
    assert_string_equal(st.details().causes(0).field().c_str(), "metadata.name");
    assert_false(endpoints::protobufMessageToJson(st, doc).has_value());
    shown = R"({"kind":"Status","apiVersion":"v1",)" + json::serialize(doc).substr(1);
    assertSame(shown, invalid.toJson(), "invalid");

    // A success (a delete) has code 0 on the wire, as its JSON has no code.
    Status ok = Status::successful({"c", "", "configmaps", "uid-1", {}, 0});
    assert_true(st.ParseFromString(parseEnvelope(endpoints::encodeProtobufStatus(ok)).raw()));
    assert_true(st.has_code());
    assert_int_equal(st.code(), 0);
    assert_string_equal(st.status().c_str(), "Success");
    assert_false(endpoints::protobufMessageToJson(st, doc).has_value());
    shown = R"({"kind":"Status","apiVersion":"v1",)" + json::serialize(doc).substr(1);
    assertSame(shown, ok.toJson(), "success");
}

void watch_frames_are_length_prefixed_unenveloped_watch_events(void**) {
    std::string object = endpoints::protobufEnvelope("v1", "ConfigMap", "\x0a\x00");
    std::string frame = endpoints::protobufWatchFrame("ADDED", object);
    uint32_t n = static_cast<uint8_t>(frame[0]) << 24 | static_cast<uint8_t>(frame[1]) << 16 |
                 static_cast<uint8_t>(frame[2]) << 8 | static_cast<uint8_t>(frame[3]);
    assert_int_equal(n, frame.size() - 4);
    kapi::meta::v1::WatchEvent e;
    assert_true(e.ParseFromString(frame.substr(4)));
    assert_string_equal(e.type().c_str(), "ADDED");
    assert_true(e.object().raw() == object);
    // The same bytes as the generated class writes.
    assert_true(e.SerializeAsString() == frame.substr(4));
}

// One list item or metadata field of a list's raw bytes.
struct ListField {
    int number;
    std::string bytes;
};

std::vector<ListField> listFields(const std::string& raw) {
    google::protobuf::UnknownFieldSet set;
    assert_true(set.ParseFromString(raw));
    std::vector<ListField> out;
    for (int i = 0; i < set.field_count(); ++i) {
        assert_int_equal(set.field(i).type(),
                         google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED);
        out.push_back({set.field(i).number(), set.field(i).length_delimited()});
    }
    return out;
}

registry::Scheme& builtins() {
    static registry::Scheme scheme = [] {
        registry::Scheme s;
        registry::addBuiltinKinds(s);
        return s;
    }();
    return scheme;
}

endpoints::RenderOptions protobufRender(const registry::KindInfo& kind) {
    endpoints::RenderOptions r;
    r.kind = &kind;
    r.output.form = endpoints::OutputForm::Protobuf;
    return r;
}

void lists_are_list_meta_then_items_without_type_meta(void**) {
    const registry::KindInfo& kind = *builtins().find("", "v1", "configmaps");
    std::vector<std::string> objects = {
        R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n",)"
        R"("resourceVersion":"5","creationTimestamp":"2026-11-21T23:55:01Z"},"data":{"k":"v"}})",
        R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","namespace":"n",)"
        R"("resourceVersion":"6","creationTimestamp":"2026-11-21T23:55:02Z"}})"};
    std::vector<storage::ObjectView> views;
    for (const std::string& o : objects) {
        views.push_back({"/registry/configmaps/n/x", o, 5, 5});
    }
    registry::ListPage page;
    page.items = views;
    page.revision = 42;
    page.continueToken = "tok";
    page.remainingItemCount = 3;
    kube::endpoints::HttpResponse resp = endpoints::listResponse(page, protobufRender(kind));
    assert_int_equal(resp.status, 200);
    assert_string_equal(resp.contentType.c_str(), "application/vnd.kubernetes.protobuf");
    kapi::runtime::Unknown u = parseEnvelope(resp.body);
    assert_string_equal(u.typemeta().apiversion().c_str(), "v1");
    assert_string_equal(u.typemeta().kind().c_str(), "ConfigMapList");
    std::vector<ListField> fields = listFields(u.raw());
    assert_int_equal(fields.size(), 3);
    assert_int_equal(fields[0].number, 1);
    kapi::meta::v1::ListMeta lm;
    assert_true(lm.ParseFromString(fields[0].bytes));
    assert_true(lm.has_selflink());
    assert_string_equal(lm.resourceversion().c_str(), "42");
    assert_string_equal(lm.continue_().c_str(), "tok");
    assert_int_equal(lm.remainingitemcount(), 3);
    for (size_t i = 0; i < objects.size(); ++i) {
        assert_int_equal(fields[i + 1].number, 2);
        assert_true(fields[i + 1].bytes == encodeRaw(objects[i], "v1", "ConfigMap"));
    }

    // The last page: no continue token written empty, no remainingItemCount.
    registry::ListPage empty;
    empty.revision = 7;
    resp = endpoints::listResponse(empty, protobufRender(kind));
    u = parseEnvelope(resp.body);
    fields = listFields(u.raw());
    assert_int_equal(fields.size(), 1);
    assert_string_equal(hex(fields[0].bytes).c_str(), "0a001201371a00");
}

void object_and_status_responses_carry_the_protobuf_media_type(void**) {
    const registry::KindInfo& kind = *builtins().find("apps", "v1", "deployments");
    endpoints::RenderOptions r = protobufRender(kind);
    std::string stored = R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d"},)"
                         R"("spec":{"replicas":2}})";
    kube::endpoints::HttpResponse resp = endpoints::objectResponse(201, stored, r);
    assert_int_equal(resp.status, 201);
    assert_string_equal(resp.contentType.c_str(), "application/vnd.kubernetes.protobuf");
    kapi::runtime::Unknown u = parseEnvelope(resp.body);
    assert_string_equal(u.typemeta().apiversion().c_str(), "apps/v1");
    assert_string_equal(u.typemeta().kind().c_str(), "Deployment");
    assert_true(u.raw() == encodeRaw(stored, "apps/v1", "Deployment"));

    // An object the schema cannot take: a 500 Status, in protobuf too.
    resp = endpoints::objectResponse(200, R"({"spec":{"replicas":"x"}})", r);
    assert_int_equal(resp.status, 500);
    kapi::meta::v1::Status st;
    assert_true(st.ParseFromString(parseEnvelope(resp.body).raw()));
    assert_string_equal(st.reason().c_str(), "InternalError");
    assert_non_null(strstr(st.message().c_str(), "spec.replicas"));

    resp = endpoints::statusResponse(Status::tooManyRequests("slow down", 3), r);
    assert_int_equal(resp.status, 429);
    assert_string_equal(resp.contentType.c_str(), "application/vnd.kubernetes.protobuf");
    assert_int_equal(resp.headers.size(), 1);
    assert_string_equal(resp.headers[0].first.c_str(), "Retry-After");
    assert_string_equal(resp.headers[0].second.c_str(), "3");

    r.output.form = endpoints::OutputForm::Json;
    resp = endpoints::statusResponse(Status::notFoundGeneric(), r);
    assert_string_equal(resp.contentType.c_str(), "application/json");
}

// A connection that takes whatever it is sent.
class FakeSink : public kube::endpoints::StreamSink {
  public:
    bool send(std::span<kube::endpoints::StreamPart> parts) override {
        if (finished) {
            return false;
        }
        std::string bytes;
        for (const kube::endpoints::StreamPart& part : parts) {
            bytes.append(part.bytes);
            owners.push_back(part.owner);
        }
        pieces.push_back(std::move(bytes));
        return true;
    }
    size_t buffered() const override { return 0; }
    void finish() override { finished = true; }

    std::vector<std::string> pieces;
    // What kept each part alive.
    std::vector<std::shared_ptr<const void>> owners;
    bool finished = false;
};

struct Server {
    FakeLoop loop;
    storage::memory::Store memory{loop};
    std::unique_ptr<registry::Store> configmaps;
    storage::cacher::Cacher cacher{memory, loop, registry::withResourceVersion};

    Server() {
        configmaps = std::make_unique<registry::Store>(*builtins().find("", "v1", "configmaps"),
                                                       memory, loop);
        configmaps->setCacher(&cacher, true);
    }

    void create(const std::string& name, const std::string& value) {
        auto doc = std::make_shared<json::Document>();
        std::string text = R"({"metadata":{"name":")" + name +
                           R"(","labels":{"app":"x"}},)"
                           R"("data":{"v":")" +
                           value + R"("}})";
        assert_false(json::parse(text, *doc).has_value());
        configmaps->create("ns", doc, {},
                           [](const Status* e, std::string_view) { assert_null(e); });
        loop.run();
        cacher.poll();
    }
};

// Streams the namespace's list in protobuf; returns the joined pieces and
// checks them against the buffered response.
std::string streamList(Server& s, size_t count) {
    endpoints::RenderOptions render = protobufRender(s.configmaps->kind());
    std::string buffered;
    std::shared_ptr<endpoints::ListStream> stream;
    kube::util::Turns turns(s.loop, std::chrono::microseconds(1000));
    s.configmaps->list("ns", {}, [&](const Status* e, const registry::ListPage& page) {
        assert_null(e);
        assert_int_equal(page.objects.size(), count);
        buffered = endpoints::listResponse(page, render).body;
        stream = std::make_shared<endpoints::ListStream>(turns, render, page, page.objects);
    });
    FakeSink sink;
    stream->start(sink);
    s.loop.run();
    assert_true(sink.finished);
    std::string joined;
    for (const std::string& piece : sink.pieces) {
        assert_true(piece.size() <= endpoints::ListStream::kChunk);
        joined += piece;
    }
    stream->stop();
    assert_int_equal(joined.size(), buffered.size());
    assert_true(joined == buffered);
    return joined;
}

void a_streamed_protobuf_list_is_the_buffered_list_in_pieces(void**) {
    Server s;
    std::string big(5000, 'x');
    for (int i = 0; i < 300; ++i) {
        s.create("cm-" + std::to_string(1000 + i), big);
    }
    // 300 items of 5 KB: more than the first pass keeps; each item is
    // encoded once all the same, its bytes memoized on the cached object,
    // and sent from there.
    std::string body = streamList(s, 300);
    assert_true(body.size() > 2 * endpoints::ListStream::kLowWater);
    std::vector<ListField> fields = listFields(parseEnvelope(body).raw());
    assert_int_equal(fields.size(), 301);
    for (int i = 0; i < 300; ++i) {
        kapi::core::v1::ConfigMap cm;
        assert_true(cm.ParseFromString(fields[i + 1].bytes));
        assert_string_equal(cm.metadata().name().c_str(),
                            ("cm-" + std::to_string(1000 + i)).c_str());
        assert_true(cm.data().at("v") == big);
    }
}

void protobuf_list_items_are_encoded_once_per_object_version(void**) {
    Server s;
    for (int i = 0; i < 5; ++i) {
        s.create("cm-" + std::to_string(i), "v");
    }
    endpoints::RenderOptions render = protobufRender(s.configmaps->kind());
    std::vector<const std::string*> first;
    std::string firstBody;
    for (int round = 0; round < 2; ++round) {
        s.configmaps->list("ns", {}, [&](const Status* e, const registry::ListPage& page) {
            assert_null(e);
            std::string body = endpoints::listResponse(page, render).body;
            for (size_t i = 0; i < page.objects.size(); ++i) {
                const auto& memo = page.objects[i]->protobufRaw;
                assert_non_null(memo.get());
                if (round == 0) {
                    first.push_back(memo.get());
                } else {
                    // the second list reuses the first one's encoding
                    assert_ptr_equal(memo.get(), first[i]);
                }
            }
            if (round == 0) {
                firstBody = body;
            } else {
                assert_true(body == firstBody);
            }
        });
    }
    assert_int_equal(first.size(), 5);
}

void a_small_streamed_protobuf_list_is_the_buffered_one(void**) {
    Server s;
    for (int i = 0; i < 20; ++i) {
        s.create("cm-" + std::to_string(i), "v");
    }
    std::string body = streamList(s, 20);
    assert_int_equal(listFields(parseEnvelope(body).raw()).size(), 21);
}

// Decodes the frames a protobuf watch sent: "TYPE name rv" each.
std::vector<std::string> frames(const std::vector<std::string>& pieces) {
    std::string all;
    for (const std::string& p : pieces) {
        all += p;
    }
    std::vector<std::string> out;
    size_t at = 0;
    while (at < all.size()) {
        assert_true(all.size() - at >= 4);
        uint32_t n = static_cast<uint8_t>(all[at]) << 24 | static_cast<uint8_t>(all[at + 1]) << 16 |
                     static_cast<uint8_t>(all[at + 2]) << 8 | static_cast<uint8_t>(all[at + 3]);
        assert_true(all.size() - at - 4 >= n);
        kapi::meta::v1::WatchEvent e;
        assert_true(e.ParseFromString(all.substr(at + 4, n)));
        at += 4 + n;
        kapi::runtime::Unknown u = parseEnvelope(e.object().raw());
        std::string line = e.type() + " " + u.typemeta().kind();
        if (u.typemeta().kind() == "ConfigMap" && e.type() == "BOOKMARK") {
            kapi::core::v1::ConfigMap cm;
            assert_true(cm.ParseFromString(u.raw()));
            line += " rv=" + cm.metadata().resourceversion();
            for (const auto& [k, v] : cm.metadata().annotations()) {
                line += " " + k + "=" + v;
            }
        } else if (u.typemeta().kind() == "ConfigMap") {
            kapi::core::v1::ConfigMap cm;
            assert_true(cm.ParseFromString(u.raw()));
            line += " " + cm.metadata().name() + " " + cm.data().at("v");
        } else if (u.typemeta().kind() == "Status") {
            kapi::meta::v1::Status st;
            assert_true(st.ParseFromString(u.raw()));
            line += " " + st.reason() + " " + std::to_string(st.code());
        }
        out.push_back(line);
    }
    return out;
}

void a_protobuf_watch_sends_length_prefixed_events(void**) {
    Server s;
    s.create("a", "1");
    s.create("b", "2");
    storage::Error err;
    storage::cacher::WatchCache* cache = s.cacher.cache("/registry/configmaps/", &err);
    assert_non_null(cache);
    endpoints::WatchStart start;
    start.initialEvents = true;
    start.timeout = std::chrono::seconds(600);
    auto watch = [&](FakeSink& sink) {
        auto w = std::make_shared<endpoints::WatchStream>(
            s.loop, s.cacher, *cache, s.configmaps->kind(), "/registry/configmaps/ns/",
            registry::ListOptions{}, protobufRender(s.configmaps->kind()), start);
        w->start(sink);
        s.loop.run();
        return w;
    };
    FakeSink one;
    FakeSink two;
    auto w1 = watch(one);
    auto w2 = watch(two);
    s.create("c", "3");
    std::vector<std::string> want = {"ADDED ConfigMap a 1", "ADDED ConfigMap b 2",
                                     "ADDED ConfigMap c 3"};
    assert_true(frames(one.pieces) == want);
    assert_true(frames(two.pieces) == want);
    // The live event was encoded once and shared by both watchers; the
    // cache's history keeps only the event's object, not its frame.
    assert_non_null(one.owners.back().get());
    assert_ptr_equal(one.owners.back().get(), two.owners.back().get());
    std::vector<storage::cacher::EventRef> events;
    assert_true(cache->eventsAfter(cache->revision() - 1, &events));
    assert_int_equal(events.size(), 1);
    assert_null(events[0]->protobufFrame.get());
    w1->stop();
    w2->stop();
}

void protobuf_watches_send_bookmarks_and_errors_as_frames(void**) {
    Server s;
    s.create("a", "1");
    storage::Error err;
    storage::cacher::WatchCache* cache = s.cacher.cache("/registry/configmaps/", &err);
    assert_non_null(cache);
    endpoints::WatchStart start;
    start.initialEvents = true;
    start.initialEventsEnd = true;
    start.bookmarks = true;
    start.timeout = std::chrono::seconds(600);
    FakeSink sink;
    auto w = std::make_shared<endpoints::WatchStream>(
        s.loop, s.cacher, *cache, s.configmaps->kind(), "/registry/configmaps/ns/",
        registry::ListOptions{}, protobufRender(s.configmaps->kind()), start);
    w->start(sink);
    s.loop.run();
    std::string rv = std::to_string(cache->revision());
    std::vector<std::string> want = {
        "ADDED ConfigMap a 1", "BOOKMARK ConfigMap rv=" + rv + " k8s.io/initial-events-end=true"};
    assert_true(frames(sink.pieces) == want);
    w->stop();

    // A watch from a compacted revision: one ERROR frame holding a Status.
    for (int i = 0; i < 3; ++i) {
        s.create("x" + std::to_string(i), "v");
    }
    bool compacted = false;
    s.memory.compact(s.memory.currentRevision(),
                     [&](const storage::Error& e) { compacted = e.ok(); });
    s.loop.run();
    assert_true(compacted);
    FakeSink old;
    endpoints::WatchStart from;
    from.revision = 0;  // before the cache's buffer: read from the compacted log
    from.timeout = std::chrono::seconds(600);
    auto w2 = std::make_shared<endpoints::WatchStream>(
        s.loop, s.cacher, *cache, s.configmaps->kind(), "/registry/configmaps/ns/",
        registry::ListOptions{}, protobufRender(s.configmaps->kind()), from);
    w2->start(old);
    s.loop.run();
    std::vector<std::string> got = frames(old.pieces);
    assert_int_equal(got.size(), 1);
    assert_string_equal(got[0].c_str(), "ERROR Status Expired 410");
    assert_true(old.finished);
    w2->stop();
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stored_objects_round_trip_through_protobuf_unchanged),
        cmocka_unit_test(every_kind_with_a_schema_reaches_a_fixed_point),
        cmocka_unit_test(kinds_without_a_schema_and_wrong_types_are_reported_by_field),
        cmocka_unit_test(times_are_whole_seconds_and_micro_times_keep_microseconds),
        cmocka_unit_test(schema_unions_and_free_form_json_keep_their_json_form),
        cmocka_unit_test(maps_of_schemas_encode_once_per_level_in_key_order),
        cmocka_unit_test(int_or_string_writes_all_three_fields),
        cmocka_unit_test(quantities_are_strings_and_a_missing_one_is_zero),
        cmocka_unit_test(bytes_are_base64_in_json_and_raw_on_the_wire),
        cmocka_unit_test(empty_and_absent_maps_and_lists_encode_alike),
        cmocka_unit_test(pointers_keep_zero_and_drop_nil),
        cmocka_unit_test(status_is_enveloped_as_v1_status_with_kubes_json_shape),
        cmocka_unit_test(watch_frames_are_length_prefixed_unenveloped_watch_events),
        cmocka_unit_test(lists_are_list_meta_then_items_without_type_meta),
        cmocka_unit_test(object_and_status_responses_carry_the_protobuf_media_type),
        cmocka_unit_test(a_streamed_protobuf_list_is_the_buffered_list_in_pieces),
        cmocka_unit_test(protobuf_list_items_are_encoded_once_per_object_version),
        cmocka_unit_test(a_small_streamed_protobuf_list_is_the_buffered_one),
        cmocka_unit_test(a_protobuf_watch_sends_length_prefixed_events),
        cmocka_unit_test(protobuf_watches_send_bookmarks_and_errors_as_frames),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
