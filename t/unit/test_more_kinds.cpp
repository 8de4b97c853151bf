// The remaining schemas and kinds: protobuf bodies of core/v1 Endpoints,
// Event, Node, PersistentVolume and LimitRange, networking NetworkPolicy and
// the review and scale kinds decoded to Go's JSON; LimitRange and
// NetworkPolicy defaults, validation and table cells; resource quantities;
// update validation of PriorityClass, ResourceQuota, PodDisruptionBudget and
// Ingress; and the Priority admission plugin's single global default.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "endpoints/decode.hpp"
#include "endpoints/protobuf_codec.hpp"
#include "endpoints/protobuf_encoder.hpp"
#include "endpoints/request_info.hpp"
#include "fake_loop.hpp"
#include "kapi/authentication.pb.h"
#include "kapi/authorization.pb.h"
#include "kapi/autoscaling.pb.h"
#include "kapi/core.pb.h"
#include "kapi/networking.pb.h"
#include "kapi/runtime.pb.h"
#include "registry/scheme.hpp"
#include "server/server.hpp"
#include "storage/memory/memory_store.hpp"
#include "util/json.hpp"
#include "util/quantity.hpp"

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

#include "kind_calls.hpp"
#include "served_answers.hpp"
#include "served_server.hpp"

namespace {

namespace json = kube::util::json;
using kube::endpoints::decodeObject;
using kube::endpoints::InputForm;
using kube::meta::Status;
using kube::meta::StatusCause;
using kube::registry::KindInfo;
using kube::util::Quantity;

// ---- protobuf bodies -------------------------------------------------------

std::string envelope(const std::string& apiVersion, const std::string& kind,
                     const google::protobuf::Message& object) {
    kapi::runtime::Unknown u;
    u.mutable_typemeta()->set_apiversion(apiVersion);
    u.mutable_typemeta()->set_kind(kind);
    u.set_raw(object.SerializeAsString());
    u.set_contentencoding("");
    u.set_contenttype("");
    return std::string(kube::endpoints::kProtobufMagic) + u.SerializeAsString();
}

// Decodes `object` sent as group/v1 `kind` and checks the JSON object the
// handlers get equals `expected` (member order aside).
void assertDecodesTo(const google::protobuf::Message& object, const char* group, const char* kind,
                     const char* expected) {
    KindInfo k;
    k.group = group;
    k.version = "v1";
    k.kind = kind;
    std::string apiVersion = *group ? std::string(group) + "/v1" : "v1";
    Status err;
    auto doc = decodeObject(envelope(apiVersion, kind, object), InputForm::Protobuf, k, &err);
    if (!doc) {
        fail_msg("decode failed: %s", err.message.c_str());
    }
    json::Document want;
    if (auto why = json::parse(expected, want)) {
        fail_msg("bad expected JSON: %s", why->c_str());
    }
    if (!(*doc == want)) {
        std::fprintf(stderr, "got:  %s\nwant: %s\n", json::serialize(*doc).c_str(), expected);
    }
    assert_true(*doc == want);
}

void limit_range_lists_are_quantity_maps_and_limits_is_null_when_empty(void**) {
    kapi::core::v1::LimitRange lr;
    lr.mutable_metadata()->set_name("limits");
    auto* item = lr.mutable_spec()->add_limits();
    item->set_type("Container");
    (*item->mutable_max())["cpu"].set_string("1");
    (*item->mutable_default_())["memory"].set_string("256Mi");
    (*item->mutable_defaultrequest())["memory"];  // a present, empty quantity is "0"
    assertDecodesTo(lr, "", "LimitRange",
                    R"({"kind":"LimitRange","apiVersion":"v1",)"
                    R"("metadata":{"name":"limits","creationTimestamp":null},)"
                    R"("spec":{"limits":[{"type":"Container","max":{"cpu":"1"},)"
                    R"("default":{"memory":"256Mi"},"defaultRequest":{"memory":"0"}}]}})");

    kapi::core::v1::LimitRange empty;
    empty.mutable_metadata()->set_name("none");
    assertDecodesTo(empty, "", "LimitRange",
                    R"({"kind":"LimitRange","apiVersion":"v1",)"
                    R"("metadata":{"name":"none","creationTimestamp":null},)"
                    R"("spec":{"limits":null}})");
}

void network_policy_pod_selector_is_always_written_and_ports_take_both_forms(void**) {
    kapi::networking::v1::NetworkPolicy np;
    np.mutable_metadata()->set_name("db");
    auto* spec = np.mutable_spec();
    (*spec->mutable_podselector()->mutable_matchlabels())["app"] = "db";
    auto* rule = spec->add_ingress();
    auto* numbered = rule->add_ports();
    numbered->set_protocol("TCP");
    numbered->mutable_port()->set_type(0);
    numbered->mutable_port()->set_intval(5432);
    numbered->set_endport(5440);
    auto* named = rule->add_ports();
    named->mutable_port()->set_type(1);
    named->mutable_port()->set_strval("metrics");
    auto* block = rule->add_from()->mutable_ipblock();
    block->set_cidr("10.0.0.0/8");
    block->add_except("10.1.0.0/16");
    rule->add_from()->mutable_namespaceselector();
    spec->add_policytypes("Ingress");
    assertDecodesTo(np, "networking.k8s.io", "NetworkPolicy",
                    R"({"kind":"NetworkPolicy","apiVersion":"networking.k8s.io/v1",)"
                    R"("metadata":{"name":"db","creationTimestamp":null},)"
                    R"("spec":{"podSelector":{"matchLabels":{"app":"db"}},)"
                    R"("ingress":[{"ports":[{"protocol":"TCP","port":5432,"endPort":5440},)"
                    R"({"port":"metrics"}],)"
                    R"("from":[{"ipBlock":{"cidr":"10.0.0.0/8","except":["10.1.0.0/16"]}},)"
                    R"({"namespaceSelector":{}}]}],"policyTypes":["Ingress"]}})");

    kapi::networking::v1::NetworkPolicy bare;
    bare.mutable_metadata()->set_name("deny-all");
    assertDecodesTo(bare, "networking.k8s.io", "NetworkPolicy",
                    R"({"kind":"NetworkPolicy","apiVersion":"networking.k8s.io/v1",)"
                    R"("metadata":{"name":"deny-all","creationTimestamp":null},)"
                    R"("spec":{"podSelector":{}}})");
}

void endpoints_addresses_always_carry_an_ip(void**) {
    kapi::core::v1::Endpoints ep;
    ep.mutable_metadata()->set_name("web");
    auto* subset = ep.add_subsets();
    auto* ready = subset->add_addresses();
    ready->set_ip("10.0.0.1");
    ready->set_nodename("n1");
    ready->mutable_targetref()->set_kind("Pod");
    ready->mutable_targetref()->set_name("web-1");
    subset->add_notreadyaddresses()->set_hostname("web-2");
    auto* port = subset->add_ports();
    port->set_name("http");
    port->set_port(80);
    port->set_protocol("TCP");
    assertDecodesTo(ep, "", "Endpoints",
                    R"({"kind":"Endpoints","apiVersion":"v1",)"
                    R"("metadata":{"name":"web","creationTimestamp":null},)"
                    R"("subsets":[{"addresses":[{"ip":"10.0.0.1","nodeName":"n1",)"
                    R"("targetRef":{"kind":"Pod","name":"web-1"}}],)"
                    R"("notReadyAddresses":[{"ip":"","hostname":"web-2"}],)"
                    R"("ports":[{"name":"http","port":80,"protocol":"TCP"}]}]})");
}

void event_times_are_null_when_zero_and_micro_when_set(void**) {
    kapi::core::v1::Event ev;
    ev.mutable_metadata()->set_name("web-1.17a");
    ev.mutable_involvedobject()->set_kind("Pod");
    ev.mutable_involvedobject()->set_name("web-1");
    ev.set_reason("Started");
    ev.mutable_source()->set_component("kubelet");
    ev.set_count(0);
    ev.mutable_eventtime()->set_seconds(1700000000);
    ev.mutable_eventtime()->set_nanos(5000);
    ev.mutable_series()->set_count(2);
    ev.mutable_series()->mutable_lastobservedtime()->set_seconds(1700000001);
    assertDecodesTo(ev, "", "Event",
                    R"({"kind":"Event","apiVersion":"v1",)"
                    R"("metadata":{"name":"web-1.17a","creationTimestamp":null},)"
                    R"("involvedObject":{"kind":"Pod","name":"web-1"},"reason":"Started",)"
                    R"("source":{"component":"kubelet"},"firstTimestamp":null,)"
                    R"("lastTimestamp":null,"eventTime":"2023-11-14T22:13:20.000005Z",)"
                    R"("series":{"count":2,"lastObservedTime":"2023-11-14T22:13:21.000000Z"},)"
                    R"("reportingComponent":"","reportingInstance":""})");
}

void node_status_has_quantity_maps_and_always_written_system_info(void**) {
    kapi::core::v1::Node node;
    node.mutable_metadata()->set_name("n1");
    node.mutable_spec()->set_podcidr("10.244.0.0/24");
    auto* taint = node.mutable_spec()->add_taints();
    taint->set_key("dedicated");
    taint->set_effect("NoSchedule");
    auto* status = node.mutable_status();
    (*status->mutable_capacity())["cpu"].set_string("4");
    (*status->mutable_capacity())["memory"].set_string("8Gi");
    auto* ready = status->add_conditions();
    ready->set_type("Ready");
    ready->set_status("True");
    ready->mutable_lastheartbeattime()->set_seconds(1700000000);
    auto* address = status->add_addresses();
    address->set_type("InternalIP");
    address->set_address("10.0.0.5");
    status->mutable_daemonendpoints()->mutable_kubeletendpoint()->set_port(10250);
    status->mutable_nodeinfo()->set_kubeletversion("v1.32.4");
    assertDecodesTo(node, "", "Node",
                    R"({"kind":"Node","apiVersion":"v1",)"
                    R"("metadata":{"name":"n1","creationTimestamp":null},)"
                    R"("spec":{"podCIDR":"10.244.0.0/24",)"
                    R"("taints":[{"key":"dedicated","effect":"NoSchedule"}]},)"
                    R"("status":{"capacity":{"cpu":"4","memory":"8Gi"},)"
                    R"("conditions":[{"type":"Ready","status":"True",)"
                    R"("lastHeartbeatTime":"2023-11-14T22:13:20Z","lastTransitionTime":null}],)"
                    R"("addresses":[{"type":"InternalIP","address":"10.0.0.5"}],)"
                    R"("daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},)"
                    R"("nodeInfo":{"machineID":"","systemUUID":"","bootID":"",)"
                    R"("kernelVersion":"","osImage":"","containerRuntimeVersion":"",)"
                    R"("kubeletVersion":"v1.32.4","kubeProxyVersion":"",)"
                    R"("operatingSystem":"","architecture":""}}})");
}

void persistent_volume_sources_flatten_into_the_spec(void**) {
    kapi::core::v1::PersistentVolume pv;
    pv.mutable_metadata()->set_name("pv-csi");
    auto* spec = pv.mutable_spec();
    (*spec->mutable_capacity())["storage"].set_string("10Gi");
    auto* csi = spec->mutable_persistentvolumesource()->mutable_csi();
    csi->set_driver("ebs.csi.aws.com");
    csi->set_volumehandle("vol-1");
    csi->set_fstype("ext4");
    spec->add_accessmodes("ReadWriteOnce");
    spec->mutable_claimref()->set_namespace_("default");
    spec->mutable_claimref()->set_name("data");
    spec->set_persistentvolumereclaimpolicy("Retain");
    auto* term = spec->mutable_nodeaffinity()->mutable_required()->add_nodeselectorterms();
    auto* req = term->add_matchexpressions();
    req->set_key("zone");
    req->set_operator_("In");
    req->add_values("a");
    pv.mutable_status()->set_phase("Available");
    assertDecodesTo(pv, "", "PersistentVolume",
                    R"({"kind":"PersistentVolume","apiVersion":"v1",)"
                    R"("metadata":{"name":"pv-csi","creationTimestamp":null},)"
                    R"("spec":{"capacity":{"storage":"10Gi"},)"
                    R"("csi":{"driver":"ebs.csi.aws.com","volumeHandle":"vol-1","fsType":"ext4"},)"
                    R"("accessModes":["ReadWriteOnce"],)"
                    R"("claimRef":{"namespace":"default","name":"data"},)"
                    R"("persistentVolumeReclaimPolicy":"Retain",)"
                    R"("nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":)"
                    R"([{"key":"zone","operator":"In","values":["a"]}]}]}}},)"
                    R"("status":{"phase":"Available"}})");

    kapi::core::v1::PersistentVolume local;
    local.mutable_metadata()->set_name("pv-local");
    local.mutable_spec()->mutable_persistentvolumesource()->mutable_local()->set_path("/mnt/d");
    local.mutable_spec()->mutable_persistentvolumesource()->mutable_nfs()->set_server("nfs1");
    assertDecodesTo(local, "", "PersistentVolume",
                    R"({"kind":"PersistentVolume","apiVersion":"v1",)"
                    R"("metadata":{"name":"pv-local","creationTimestamp":null},)"
                    R"("spec":{"nfs":{"server":"nfs1","path":""},"local":{"path":"/mnt/d"}},)"
                    R"("status":{}})");
}

void scale_status_replicas_are_always_written(void**) {
    kapi::autoscaling::v1::Scale scale;
    scale.mutable_metadata()->set_name("web");
    scale.mutable_metadata()->set_namespace_("lab");
    scale.mutable_spec()->set_replicas(3);
    assertDecodesTo(scale, "autoscaling", "Scale",
                    R"({"kind":"Scale","apiVersion":"autoscaling/v1",)"
                    R"("metadata":{"name":"web","namespace":"lab","creationTimestamp":null},)"
                    R"("spec":{"replicas":3},"status":{"replicas":0}})");
}

void token_request_of_kubectl_create_token_has_null_unset_fields(void**) {
    kapi::authentication::v1::TokenRequest tr;
    tr.mutable_metadata();
    tr.mutable_spec();
    assertDecodesTo(tr, "authentication.k8s.io", "TokenRequest",
                    R"({"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1",)"
                    R"("metadata":{"creationTimestamp":null},)"
                    R"("spec":{"audiences":null,"expirationSeconds":null,"boundObjectRef":null},)"
                    R"("status":{"token":"","expirationTimestamp":null}})");

    kapi::authentication::v1::TokenRequest bound;
    bound.mutable_spec()->add_audiences("api");
    bound.mutable_spec()->set_expirationseconds(600);
    bound.mutable_spec()->mutable_boundobjectref()->set_kind("Pod");
    bound.mutable_spec()->mutable_boundobjectref()->set_uid("u-1");
    assertDecodesTo(bound, "authentication.k8s.io", "TokenRequest",
                    R"({"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1",)"
                    R"("metadata":{"creationTimestamp":null},)"
                    R"("spec":{"audiences":["api"],"expirationSeconds":600,)"
                    R"("boundObjectRef":{"kind":"Pod","uid":"u-1"}},)"
                    R"("status":{"token":"","expirationTimestamp":null}})");
}

void token_review_and_self_subject_review_write_their_structs(void**) {
    kapi::authentication::v1::TokenReview review;
    review.mutable_spec()->set_token("abc");
    assertDecodesTo(review, "authentication.k8s.io", "TokenReview",
                    R"({"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1",)"
                    R"("metadata":{"creationTimestamp":null},"spec":{"token":"abc"},)"
                    R"("status":{"user":{}}})");

    kapi::authentication::v1::SelfSubjectReview self;
    assertDecodesTo(self, "authentication.k8s.io", "SelfSubjectReview",
                    R"({"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1",)"
                    R"("metadata":{"creationTimestamp":null},"status":{"userInfo":{}}})");
}

void access_reviews_answer_allowed_false_by_default(void**) {
    kapi::authorization::v1::SelfSubjectAccessReview ssar;
    auto* attrs = ssar.mutable_spec()->mutable_resourceattributes();
    attrs->set_namespace_("lab");
    attrs->set_verb("create");
    attrs->set_resource("pods");
    assertDecodesTo(ssar, "authorization.k8s.io", "SelfSubjectAccessReview",
                    R"({"kind":"SelfSubjectAccessReview",)"
                    R"("apiVersion":"authorization.k8s.io/v1",)"
                    R"("metadata":{"creationTimestamp":null},)"
                    R"("spec":{"resourceAttributes":{"namespace":"lab","verb":"create",)"
                    R"("resource":"pods"}},"status":{"allowed":false}})");

    kapi::authorization::v1::SubjectAccessReview sar;
    sar.mutable_spec()->set_user("jane");
    sar.mutable_spec()->add_groups("dev");
    sar.mutable_spec()->mutable_nonresourceattributes()->set_path("/healthz");
    sar.mutable_spec()->mutable_nonresourceattributes()->set_verb("get");
    auto& extra = *sar.mutable_spec()->mutable_extra();
    extra["scopes"].add_items("read");
    extra["scopes"].add_items("write");
    extra["empty"];
    const char* sarJson =
        R"({"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1",)"
        R"("metadata":{"creationTimestamp":null},)"
        R"("spec":{"nonResourceAttributes":{"path":"/healthz","verb":"get"},)"
        R"("user":"jane","groups":["dev"],"extra":{"empty":[],"scopes":["read","write"]}},)"
        R"("status":{"allowed":false}})";
    assertDecodesTo(sar, "authorization.k8s.io", "SubjectAccessReview", sarJson);
    // ExtraValue is a bare list of strings in JSON, one repeated field on the wire.
    json::Document sarDoc;
    assert_false(json::parse(sarJson, sarDoc).has_value());
    std::string raw;
    assert_false(kube::endpoints::encodeProtobufRaw(sarDoc, "authorization.k8s.io/v1",
                                                    "SubjectAccessReview", &raw)
                     .has_value());
    kapi::authorization::v1::SubjectAccessReview back;
    assert_true(back.ParseFromString(raw));
    assert_int_equal(back.spec().extra().at("scopes").items_size(), 2);
    assert_string_equal(back.spec().extra().at("scopes").items(1).c_str(), "write");
    assert_int_equal(back.spec().extra().at("empty").items_size(), 0);

    kapi::authorization::v1::LocalSubjectAccessReview local;
    local.mutable_metadata()->set_namespace_("lab");
    auto* selected = local.mutable_spec()->mutable_resourceattributes();
    selected->set_verb("list");
    selected->mutable_fieldselector()->set_rawselector("spec.nodeName=n1");
    auto* req = selected->mutable_labelselector()->add_requirements();
    req->set_key("app");
    req->set_operator_("Exists");
    assertDecodesTo(local, "authorization.k8s.io", "LocalSubjectAccessReview",
                    R"({"kind":"LocalSubjectAccessReview",)"
                    R"("apiVersion":"authorization.k8s.io/v1",)"
                    R"("metadata":{"namespace":"lab","creationTimestamp":null},)"
                    R"("spec":{"resourceAttributes":{"verb":"list",)"
                    R"("fieldSelector":{"rawSelector":"spec.nodeName=n1"},)"
                    R"("labelSelector":{"requirements":[{"key":"app","operator":"Exists"}]}}},)"
                    R"("status":{"allowed":false}})");

    kapi::authorization::v1::SelfSubjectRulesReview rules;
    rules.mutable_spec()->set_namespace_("lab");
    assertDecodesTo(rules, "authorization.k8s.io", "SelfSubjectRulesReview",
                    R"({"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1",)"
                    R"("metadata":{"creationTimestamp":null},"spec":{"namespace":"lab"},)"
                    R"("status":{"resourceRules":null,"nonResourceRules":null,)"
                    R"("incomplete":false}})");
}

void every_new_schema_kind_is_known_to_the_codec(void**) {
    for (auto [apiVersion, kind] : {
             std::pair{"v1", "Endpoints"},
             std::pair{"v1", "Event"},
             std::pair{"v1", "Node"},
             std::pair{"v1", "PersistentVolume"},
             std::pair{"v1", "LimitRange"},
             std::pair{"networking.k8s.io/v1", "NetworkPolicy"},
             std::pair{"autoscaling/v1", "Scale"},
             std::pair{"authentication.k8s.io/v1", "TokenReview"},
             std::pair{"authentication.k8s.io/v1", "TokenRequest"},
             std::pair{"authentication.k8s.io/v1", "SelfSubjectReview"},
             std::pair{"authorization.k8s.io/v1", "SubjectAccessReview"},
             std::pair{"authorization.k8s.io/v1", "SelfSubjectAccessReview"},
             std::pair{"authorization.k8s.io/v1", "LocalSubjectAccessReview"},
             std::pair{"authorization.k8s.io/v1", "SelfSubjectRulesReview"},
         }) {
        if (!kube::endpoints::hasProtobufSchema(apiVersion, kind)) {
            fail_msg("no schema for %s %s", apiVersion, kind);
        }
    }
}

// ---- quantities ------------------------------------------------------------

std::string canonical(const char* text) {
    auto q = Quantity::parse(text);
    if (!q) {
        fail_msg("%s did not parse", text);
    }
    return q->string();
}

void quantities_print_in_kubes_canonical_form(void**) {
    assert_string_equal(canonical("1.5").c_str(), "1500m");
    assert_string_equal(canonical("2000m").c_str(), "2");
    assert_string_equal(canonical("1024Mi").c_str(), "1Gi");
    assert_string_equal(canonical("0.5Gi").c_str(), "512Mi");
    assert_string_equal(canonical("512").c_str(), "512");
    assert_string_equal(canonical("1e3").c_str(), "1e3");
    assert_string_equal(canonical("100M").c_str(), "100M");
    assert_string_equal(canonical("0.0001").c_str(), "100u");
    assert_string_equal(canonical("-1.5k").c_str(), "-1500");
    assert_false(Quantity::parse("").has_value());
    assert_false(Quantity::parse("1x").has_value());
    assert_false(Quantity::parse("1K").has_value());
    assert_false(Quantity::parse("abc").has_value());
}

void quantities_compare_across_suffixes_and_round_up_to_units(void**) {
    assert_true(Quantity::parse("1Gi")->compare(*Quantity::parse("1G")) > 0);
    assert_true(Quantity::parse("1000m")->compare(*Quantity::parse("1")) == 0);
    assert_true(Quantity::parse("100m")->compare(*Quantity::parse("0.2")) < 0);
    assert_int_equal(Quantity::parse("1.5")->value(), 2);
    assert_int_equal(Quantity::parse("1.5")->milliValue(), 1500);
    assert_int_equal(Quantity::parse("1n")->milliValue(), 1);
    assert_int_equal(Quantity::parse("2Ki")->value(), 2048);
}

void quantity_go_string_shows_the_int64_amount_parse_made(void**) {
    assert_string_equal(Quantity::parse("0.5")->goString().c_str(),
                        "resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, "
                        "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"500m\", "
                        "Format:\"DecimalSI\"}");
    assert_string_equal(Quantity::parse("128Mi")->goString().c_str(),
                        "resource.Quantity{i:resource.int64Amount{value:134217728, scale:0}, "
                        "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"128Mi\", "
                        "Format:\"BinarySI\"}");
    // Past the int64 fast path Go holds an inf.Dec: the text stands in.
    assert_string_equal(Quantity::parse("1.5Gi")->goString().c_str(), "\"1536Mi\"");
}

// ---- LimitRange and NetworkPolicy ------------------------------------------

// What the kinds' unit tests share (kind_calls.hpp).
auto& kind = kube::testing::builtinKind;
auto& create = kube::testing::runCreate;
auto& assertMessages = kube::testing::assertCauses;
auto& cell = kube::testing::tableCell;

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

// What the store runs on update: defaults, then validateUpdate against `old`.
std::vector<StatusCause> update(const KindInfo& k, json::Document& d, const json::Value& old) {
    if (k.defaults) {
        k.defaults(d, d.GetAllocator());
    }
    assert_true(static_cast<bool>(k.validateUpdate));
    return k.validateUpdate(d, old);
}

std::string member(const json::Value& obj, std::initializer_list<std::string_view> path) {
    const json::Value* v = json::at(obj, path);
    return v ? json::serialize(*v) : "<absent>";
}

// A Quantity's %#v as field errors show it, for values on the fast path.
std::string goQuantity(int64_t value, int scale, const char* text) {
    return "resource.Quantity{i:resource.int64Amount{value:" + std::to_string(value) +
           ", scale:" + std::to_string(scale) +
           "}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"" + text +
           "\", Format:\"DecimalSI\"}";
}

void limit_range_is_served_as_limits_with_the_default_table(void**) {
    const KindInfo& k = kind("", "limitranges");
    assert_string_equal(k.kind.c_str(), "LimitRange");
    assert_true(k.namespaced);
    assert_true(k.shortNames == std::vector<std::string>{"limits"});
    assert_int_equal(k.columns.size(), 2);
    assert_string_equal(k.columns[1].name.c_str(), "Created At");
    assert_string_equal(k.columns[1].type.c_str(), "date");
    json::Document d =
        parse(R"({"metadata":{"name":"l","creationTimestamp":"2026-11-20T08:00:00Z"}})");
    assert_string_equal(cell(k, "Name", d).c_str(), "\"l\"");
    assert_string_equal(cell(k, "Created At", d).c_str(), "\"2026-11-20T08:00:00Z\"");
}

void limit_range_container_defaults_come_from_max_then_default_then_min(void**) {
    json::Document d = parse(R"({"metadata":{"name":"l","namespace":"lab"},"spec":{"limits":[
        {"type":"Container","max":{"cpu":"2"},"min":{"cpu":"100m","memory":"64Mi"},
         "default":{"memory":"256Mi"}},
        {"type":"Pod","max":{"cpu":"4"}}]}})");
    assertMessages(create(kind("", "limitranges"), d), {});
    const json::Value& item = d["spec"]["limits"][0];
    assert_string_equal(member(item, {"default"}).c_str(), R"({"memory":"256Mi","cpu":"2"})");
    assert_string_equal(member(item, {"defaultRequest"}).c_str(),
                        R"({"memory":"256Mi","cpu":"2"})");
    // Pod limits get no defaults, and no empty maps are written.
    assert_string_equal(member(d["spec"]["limits"][1], {"default"}).c_str(), "<absent>");
    assert_string_equal(member(d["spec"]["limits"][1], {"defaultRequest"}).c_str(), "<absent>");
}

void limit_range_without_a_name_is_named_by_a_uuid(void**) {
    json::Document d = parse(R"({"metadata":{"namespace":"lab"},"spec":{"limits":[]}})");
    assertMessages(create(kind("", "limitranges"), d), {});
    assert_int_equal(json::view(d["metadata"]["name"]).size(), 36);
}

void limit_range_min_above_max_is_reported_as_kube_does(void**) {
    json::Document d = parse(R"({"metadata":{"name":"l","namespace":"lab"},"spec":{"limits":[
        {"type":"Container","max":{"cpu":"1"},"min":{"cpu":"2"}}]}})");
    assertMessages(create(kind("", "limitranges"), d),
                   {"spec.limits[0].min[cpu]: Invalid value: " + goQuantity(2, 0, "2") +
                        ": min value 2 is greater than max value 1",
                    "spec.limits[0].defaultRequest[cpu]: Invalid value: " + goQuantity(1, 0, "1") +
                        ": min value 2 is greater than default request value 1",
                    "spec.limits[0].default[cpu]: Invalid value: " + goQuantity(2, 0, "2") +
                        ": min value 2 is greater than default value 1"});
}

void limit_range_checks_types_names_and_storage_as_kube_does(void**) {
    json::Document d = parse(R"({"metadata":{"name":"l","namespace":"lab"},"spec":{"limits":[
        {"type":"Pod","default":{"cpu":"1"}},
        {"type":"PersistentVolumeClaim","max":{"cpu":"1"}},
        {"type":"Pod"},
        {"type":"Widget"},
        {"type":"Container","max":{"storage":"1Gi"}}]}})");
    assertMessages(
        create(kind("", "limitranges"), d),
        {"spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
         "spec.limits[1].limits: Required value: either minimum or maximum storage value is "
         "required, but neither was provided",
         "spec.limits[2].type: Duplicate value: \"Pod\"",
         "spec.limits[3].type: Invalid value: \"Widget\": must be a standard limit type or fully "
         "qualified",
         "spec.limits[4].max[storage]: Invalid value: \"storage\": must be a standard resource "
         "for containers",
         "spec.limits[4].default[storage]: Invalid value: \"storage\": must be a standard "
         "resource for containers",
         "spec.limits[4].defaultRequest[storage]: Invalid value: \"storage\": must be a standard "
         "resource for containers"});
}

void limit_range_ratios_and_extended_resources_follow_kubes_rules(void**) {
    json::Document d = parse(R"({"metadata":{"name":"l","namespace":"lab"},"spec":{"limits":[
        {"type":"Container","max":{"cpu":"1"},"min":{"cpu":"500m"},
         "maxLimitRequestRatio":{"cpu":"4","memory":"500m"},
         "default":{"example.com/gpu":"2"},"defaultRequest":{"example.com/gpu":"1"}}]}})");
    assertMessages(
        create(kind("", "limitranges"), d),
        {"spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: " + goQuantity(4, 0, "4") +
             ": ratio 4 is greater than max/min = 2.000000",
         "spec.limits[0].defaultRequest[example.com/gpu]: Invalid value: " + goQuantity(1, 0, "1") +
             ": default value 2 must equal to defaultRequest value 1 in example.com/gpu",
         "spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: " +
             goQuantity(500, -3, "500m") + ": ratio 500m is less than 1"});
}

void network_policy_is_served_as_netpol_and_prints_its_pod_selector(void**) {
    const KindInfo& k = kind("networking.k8s.io", "networkpolicies");
    assert_string_equal(k.kind.c_str(), "NetworkPolicy");
    assert_true(k.shortNames == std::vector<std::string>{"netpol"});
    assert_true(k.tracksGeneration);
    json::Document d =
        parse(R"({"metadata":{"name":"db","creationTimestamp":"2026-11-21T23:50:01Z"},
        "spec":{"podSelector":{"matchLabels":{"app":"db"},
        "matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]}]}}})");
    assert_string_equal(cell(k, "Pod-Selector", d).c_str(), "\"app=db,tier in (a,b)\"");
    assert_string_equal(cell(k, "Age", d).c_str(), "\"5m\"");
    json::Document all = parse(R"({"metadata":{"name":"all"},"spec":{"podSelector":{}}})");
    assert_string_equal(cell(k, "Pod-Selector", all).c_str(), "\"<none>\"");
}

void network_policy_defaults_policy_types_protocols_and_the_pod_selector(void**) {
    json::Document d = parse(R"({"metadata":{"name":"np","namespace":"lab"},
        "spec":{"egress":[{"ports":[{"port":53},{"protocol":"UDP","port":53}]}]}})");
    assertMessages(create(kind("networking.k8s.io", "networkpolicies"), d), {});
    assert_string_equal(member(d, {"spec", "podSelector"}).c_str(), "{}");
    assert_string_equal(member(d, {"spec", "policyTypes"}).c_str(), R"(["Ingress","Egress"])");
    assert_string_equal(
        member(d, {"spec", "egress"}).c_str(),
        R"([{"ports":[{"port":53,"protocol":"TCP"},{"protocol":"UDP","port":53}]}])");

    json::Document ingressOnly =
        parse(R"({"metadata":{"name":"np","namespace":"lab"},"spec":{"podSelector":{}}})");
    assertMessages(create(kind("networking.k8s.io", "networkpolicies"), ingressOnly), {});
    assert_string_equal(member(ingressOnly, {"spec", "policyTypes"}).c_str(), R"(["Ingress"])");
}

void network_policy_ports_peers_and_blocks_are_validated_as_kube_does(void**) {
    json::Document d = parse(R"({"metadata":{"name":"np","namespace":"lab"},"spec":{
        "podSelector":{},
        "ingress":[{"ports":[{"port":"http","endPort":90},{"port":70000},
                             {"port":80,"endPort":79},{"endPort":5},
                             {"protocol":"ICMP","port":"Bad_Name"}],
                    "from":[{},{"ipBlock":{"cidr":"10.0.0.0/8"},"podSelector":{}},
                            {"ipBlock":{"cidr":"10.0.0.0/33"}},
                            {"ipBlock":{"cidr":"10.0.0.0/8",
                                        "except":["11.0.0.0/16","10.0.0.0/8","bad","10.1.0.0/16"]}},
                            {"ipBlock":{"cidr":""}}]}],
        "policyTypes":["Ingress","Sideways"]}})");
    const char* badCidr = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";
    const char* notSubset = "must be a strict subset of `cidr`";
    assertMessages(
        create(kind("networking.k8s.io", "networkpolicies"), d),
        {"spec.ingress[0].ports[0].endPort: Invalid value: 90: may not be specified when `port` "
         "is non-numeric",
         "spec.ingress[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, "
         "inclusive",
         "spec.ingress[0].ports[2].endPort: Invalid value: 79: must be greater than or equal to "
         "`port`",
         "spec.ingress[0].ports[3].endPort: Invalid value: 5: may not be specified when `port` is "
         "not specified",
         "spec.ingress[0].ports[4].protocol: Unsupported value: \"ICMP\": supported values: "
         "\"TCP\", \"UDP\", \"SCTP\"",
         "spec.ingress[0].ports[4].port: Invalid value: \"Bad_Name\": must contain only "
         "alpha-numeric characters (a-z, 0-9), and hyphens (-)",
         "spec.ingress[0].from[0]: Required value: must specify a peer",
         "spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer",
         std::string("spec.ingress[0].from[2].ipBlock.cidr: Invalid value: \"10.0.0.0/33\": ") +
             badCidr,
         std::string("spec.ingress[0].from[3].ipBlock.except[0]: Invalid value: "
                     "\"11.0.0.0/16\": ") +
             notSubset,
         std::string("spec.ingress[0].from[3].ipBlock.except[1]: Invalid value: "
                     "\"10.0.0.0/8\": ") +
             notSubset,
         std::string("spec.ingress[0].from[3].ipBlock.except[2]: Invalid value: \"bad\": ") +
             badCidr,
         "spec.ingress[0].from[4].ipBlock.cidr: Required value",
         "spec.policyTypes[1]: Unsupported value: \"Sideways\": supported values: \"Ingress\", "
         "\"Egress\""});

    json::Document many = parse(R"({"metadata":{"name":"np","namespace":"lab"},"spec":{
        "podSelector":{},"policyTypes":["Ingress","Egress","Ingress"]}})");
    assertMessages(create(kind("networking.k8s.io", "networkpolicies"), many),
                   {"spec.policyTypes: Invalid value: []networking.PolicyType{\"Ingress\", "
                    "\"Egress\", \"Ingress\"}: may not specify more than two policyTypes"});
}

void network_policy_update_keeps_invalid_label_values_the_stored_selector_had(void**) {
    const KindInfo& k = kind("networking.k8s.io", "networkpolicies");
    json::Document old = parse(R"({"metadata":{"name":"np"},"spec":{"podSelector":{
        "matchExpressions":[{"key":"app","operator":"In","values":["-bad-"]}]},
        "policyTypes":["Ingress"]}})");
    json::Document next = parse(R"({"metadata":{"name":"np"},"spec":{"podSelector":{
        "matchExpressions":[{"key":"app","operator":"In","values":["-bad-","-worse-"]}]}}})");
    assertMessages(update(k, next, old), {});
    json::Document strict = parse(R"({"metadata":{"name":"np"},"spec":{"podSelector":{
        "matchExpressions":[{"key":"app","operator":"In","values":["-bad-"]}]}}})");
    json::Document clean = parse(R"({"metadata":{"name":"np"},"spec":{"podSelector":{}}})");
    assert_int_equal(update(k, strict, clean).size(), 1);
}

// ---- update validation -----------------------------------------------------

void priority_class_value_and_preemption_policy_are_immutable(void**) {
    const KindInfo& k = kind("scheduling.k8s.io", "priorityclasses");
    json::Document old = parse(R"({"metadata":{"name":"high"},"value":1000,
        "preemptionPolicy":"PreemptLowerPriority"})");
    json::Document changed = parse(R"({"metadata":{"name":"high"},"value":2000,
        "preemptionPolicy":"Never","description":"more"})");
    assertMessages(update(k, changed, old),
                   {"value: Forbidden: may not be changed in an update.",
                    "preemptionPolicy: Invalid value: \"Never\": field is immutable"});
    // Unset, the policy is defaulted to the stored one: no change.
    json::Document same =
        parse(R"({"metadata":{"name":"high"},"value":1000,"description":"more"})");
    assertMessages(update(k, same, old), {});
}

void resource_quota_scopes_are_immutable_and_the_spec_is_checked_again(void**) {
    const KindInfo& k = kind("", "resourcequotas");
    json::Document old = parse(R"({"metadata":{"name":"q"},"spec":{"hard":{"pods":"10"},
        "scopes":["BestEffort"]}})");
    json::Document reordered = parse(R"({"metadata":{"name":"q"},"spec":{"hard":{"pods":"20"},
        "scopes":["BestEffort","BestEffort"]}})");
    assertMessages(update(k, reordered, old), {});
    json::Document changed = parse(R"({"metadata":{"name":"q"},"spec":{"hard":{"pods":"-1"},
        "scopes":["NotBestEffort"]}})");
    assertMessages(update(k, changed, old),
                   {"spec.hard[pods]: Invalid value: \"-1\": must be greater than or equal to 0",
                    "spec.scopes: Invalid value: []core.ResourceQuotaScope{\"NotBestEffort\"}: "
                    "field is immutable"});
    json::Document dropped = parse(R"({"metadata":{"name":"q"},"spec":{"hard":{"pods":"1"}}})");
    assertMessages(update(k, dropped, old),
                   {"spec.scopes: Invalid value: []core.ResourceQuotaScope(nil): field is "
                    "immutable"});
}

void pod_disruption_budget_update_tolerates_invalid_values_the_stored_selector_had(void**) {
    const KindInfo& k = kind("policy", "poddisruptionbudgets");
    json::Document old = parse(R"({"metadata":{"name":"b"},"spec":{"minAvailable":1,
        "selector":{"matchExpressions":[{"key":"app","operator":"In","values":["-x-"]}]}}})");
    json::Document next = parse(R"({"metadata":{"name":"b"},"spec":{"minAvailable":2,
        "selector":{"matchExpressions":[{"key":"app","operator":"In","values":["-x-"]}]}}})");
    assertMessages(update(k, next, old), {});
    json::Document bothSet = parse(R"({"metadata":{"name":"b"},"spec":{"minAvailable":2,
        "maxUnavailable":1}})");
    assert_int_equal(update(k, bothSet, old).size(), 1);
    json::Document clean = parse(R"({"metadata":{"name":"b"},"spec":{"minAvailable":1}})");
    assert_int_equal(update(k, next, clean).size(), 1);
}

void ingress_update_skips_the_class_annotation_check_and_keeps_old_secret_names(void**) {
    const KindInfo& k = kind("networking.k8s.io", "ingresses");
    json::Document old = parse(R"({"metadata":{"name":"i","annotations":{
        "kubernetes.io/ingress.class":"nginx"}},"spec":{"ingressClassName":"nginx",
        "defaultBackend":{"service":{"name":"web","port":{"number":80}}},
        "tls":[{"secretName":"Bad_Secret"}]}})");
    json::Document next = parse(R"({"metadata":{"name":"i","annotations":{
        "kubernetes.io/ingress.class":"nginx"}},"spec":{"ingressClassName":"other",
        "defaultBackend":{"service":{"name":"web","port":{"number":80}}},
        "tls":[{"secretName":"Bad_Secret"}]}})");
    assertMessages(update(k, next, old), {});
    // On create both are refused.
    json::Document created = parse(R"({"metadata":{"name":"i","annotations":{
        "kubernetes.io/ingress.class":"nginx"}},"spec":{"ingressClassName":"other",
        "defaultBackend":{"service":{"name":"web","port":{"number":80}}},
        "tls":[{"secretName":"Bad_Secret"}]}})");
    assert_int_equal(create(k, created).size(), 2);
}

// ---- the server: update errors and the Priority admission plugin ----------

using Server = kube::testing::ServedServer;

auto& field = kube::testing::bodyAt;

constexpr const char* kPriorityClasses = "/apis/scheduling.k8s.io/v1/priorityclasses";

std::string priorityClass(const char* name, int value, bool global) {
    return std::string(R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",)") +
           R"("metadata":{"name":")" + name + R"("},"value":)" + std::to_string(value) +
           R"(,"globalDefault":)" + (global ? "true" : "false") + "}";
}

void a_second_global_default_priority_class_is_forbidden(void**) {
    Server s;
    assert_int_equal(s.send("POST", kPriorityClasses, priorityClass("first", 100, true)).status,
                     201);
    assert_int_equal(s.send("POST", kPriorityClasses, priorityClass("plain", 50, false)).status,
                     201);
    kube::endpoints::HttpResponse r =
        s.send("POST", kPriorityClasses, priorityClass("second", 200, true));
    assert_int_equal(r.status, 403);
    assert_string_equal(field(r.body, {"reason"}).c_str(), "Forbidden");
    assert_string_equal(field(r.body, {"message"}).c_str(),
                        "priorityclasses.scheduling.k8s.io \"second\" is forbidden: "
                        "PriorityClass first is already marked as default. Only one default can "
                        "exist");
    assert_string_equal(field(r.body, {"details", "name"}).c_str(), "second");
    // Nothing was stored.
    assert_int_equal(s.send("GET", std::string(kPriorityClasses) + "/second").status, 404);

    // Marking another class as the default by update is refused the same way;
    // the default itself may be replaced.
    r = s.send("PUT", std::string(kPriorityClasses) + "/plain", priorityClass("plain", 50, true));
    assert_int_equal(r.status, 403);
    assert_string_equal(field(r.body, {"message"}).c_str(),
                        "priorityclasses.scheduling.k8s.io \"plain\" is forbidden: "
                        "PriorityClass first is already marked as default. Only one default can "
                        "exist");
    std::string first = R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",)"
                        R"("metadata":{"name":"first"},"value":100,"globalDefault":true,)"
                        R"("description":"the default"})";
    assert_int_equal(s.send("PUT", std::string(kPriorityClasses) + "/first", first).status, 200);
}

void priority_class_update_that_changes_the_value_is_invalid(void**) {
    Server s;
    assert_int_equal(s.send("POST", kPriorityClasses, priorityClass("high", 100, false)).status,
                     201);
    kube::endpoints::HttpResponse r =
        s.send("PUT", std::string(kPriorityClasses) + "/high", priorityClass("high", 101, false));
    assert_int_equal(r.status, 422);
    assert_string_equal(field(r.body, {"message"}).c_str(),
                        "PriorityClass.scheduling.k8s.io \"high\" is invalid: value: Forbidden: "
                        "may not be changed in an update.");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(limit_range_lists_are_quantity_maps_and_limits_is_null_when_empty),
        cmocka_unit_test(network_policy_pod_selector_is_always_written_and_ports_take_both_forms),
        cmocka_unit_test(endpoints_addresses_always_carry_an_ip),
        cmocka_unit_test(event_times_are_null_when_zero_and_micro_when_set),
        cmocka_unit_test(node_status_has_quantity_maps_and_always_written_system_info),
        cmocka_unit_test(persistent_volume_sources_flatten_into_the_spec),
        cmocka_unit_test(scale_status_replicas_are_always_written),
        cmocka_unit_test(token_request_of_kubectl_create_token_has_null_unset_fields),
        cmocka_unit_test(token_review_and_self_subject_review_write_their_structs),
        cmocka_unit_test(access_reviews_answer_allowed_false_by_default),
        cmocka_unit_test(every_new_schema_kind_is_known_to_the_codec),
        cmocka_unit_test(quantities_print_in_kubes_canonical_form),
        cmocka_unit_test(quantities_compare_across_suffixes_and_round_up_to_units),
        cmocka_unit_test(quantity_go_string_shows_the_int64_amount_parse_made),
        cmocka_unit_test(limit_range_is_served_as_limits_with_the_default_table),
        cmocka_unit_test(limit_range_container_defaults_come_from_max_then_default_then_min),
        cmocka_unit_test(limit_range_without_a_name_is_named_by_a_uuid),
        cmocka_unit_test(limit_range_min_above_max_is_reported_as_kube_does),
        cmocka_unit_test(limit_range_checks_types_names_and_storage_as_kube_does),
        cmocka_unit_test(limit_range_ratios_and_extended_resources_follow_kubes_rules),
        cmocka_unit_test(network_policy_is_served_as_netpol_and_prints_its_pod_selector),
        cmocka_unit_test(network_policy_defaults_policy_types_protocols_and_the_pod_selector),
        cmocka_unit_test(network_policy_ports_peers_and_blocks_are_validated_as_kube_does),
        cmocka_unit_test(network_policy_update_keeps_invalid_label_values_the_stored_selector_had),
        cmocka_unit_test(priority_class_value_and_preemption_policy_are_immutable),
        cmocka_unit_test(resource_quota_scopes_are_immutable_and_the_spec_is_checked_again),
        cmocka_unit_test(
            pod_disruption_budget_update_tolerates_invalid_values_the_stored_selector_had),
        cmocka_unit_test(
            ingress_update_skips_the_class_annotation_check_and_keeps_old_secret_names),
        cmocka_unit_test(a_second_global_default_priority_class_is_forbidden),
        cmocka_unit_test(priority_class_update_that_changes_the_value_is_invalid),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
