// Protobuf request bodies: kubectl's own bytes and bodies built with the
// generated classes, decoded through decodeObject into the JSON object the
// handlers see, and broken bodies rejected with kube-apiserver's wording.
#include <cstdio>
#include <cstring>
#include <string>

#include "endpoints/decode.hpp"
#include "endpoints/protobuf_codec.hpp"
#include "kapi/coordination.pb.h"
#include "kapi/core.pb.h"
#include "kapi/rbac.pb.h"
#include "kapi/runtime.pb.h"

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

using kube::endpoints::decodeObject;
using kube::endpoints::InputForm;
using kube::meta::Status;
using kube::registry::KindInfo;
namespace json = kube::util::json;

KindInfo coreKind(const char* kind) {
    KindInfo k;
    k.group = "";
    k.version = "v1";
    k.kind = kind;
    return k;
}

KindInfo groupKind(const char* group, const char* kind) {
    KindInfo k;
    k.group = group;
    k.version = "v1";
    k.kind = kind;
    return k;
}

constexpr const char* kRbac = "rbac.authorization.k8s.io";

std::string unhex(std::string_view hex) {
    std::string out;
    auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
        out += static_cast<char>(nibble(hex[i]) << 4 | nibble(hex[i + 1]));
    }
    return out;
}

// `kubectl create namespace lab`, as kubectl 1.32 and 1.33 send it.
const std::string kNamespaceLab = unhex(
    "6b387300"
    "0a0f0a0276311209"
    "4e616d657370616365"
    "121b0a130a036c616212001a0022002a0032003800420012001a020a00"
    "1a002200");

std::string envelope(const std::string& apiVersion, const std::string& kind,
                     const std::string& raw) {
    kapi::runtime::Unknown u;
    u.mutable_typemeta()->set_apiversion(apiVersion);
    u.mutable_typemeta()->set_kind(kind);
    u.set_raw(raw);
    u.set_contentencoding("");
    u.set_contenttype("");
    return std::string(kube::endpoints::kProtobufMagic) + u.SerializeAsString();
}

std::string decodeToJson(const std::string& body, const char* kind) {
    Status err;
    auto doc = decodeObject(body, InputForm::Protobuf, coreKind(kind), &err);
    if (!doc) {
        std::fprintf(stderr, "decode failed: %s\n", err.message.c_str());
    }
    assert_non_null(doc.get());
    return json::serialize(*doc);
}

// Decodes a body of a named-group kind and checks that it equals `expected`
// as JSON values (member order aside).
void assertDecodesTo(const std::string& body, const char* group, const char* kind,
                     const char* expected) {
    Status err;
    auto doc = decodeObject(body, InputForm::Protobuf, groupKind(group, kind), &err);
    if (!doc) {
        std::fprintf(stderr, "decode failed: %s\n", err.message.c_str());
    }
    assert_non_null(doc.get());
    json::Document want;
    assert_false(json::parse(expected, want).has_value());
    if (!(*doc == want)) {
        std::fprintf(stderr, "got:  %s\nwant: %s\n", json::serialize(*doc).c_str(), expected);
    }
    assert_true(*doc == want);
}

// ObjectMeta as gogo writes it for a new object: every non-pointer field
// present, the zero ones too.
void kubectlMetadata(kapi::meta::v1::ObjectMeta* m, const char* name) {
    m->set_name(name);
    m->set_generatename("");
    m->set_namespace_("");
    m->set_selflink("");
    m->set_uid("");
    m->set_resourceversion("");
    m->set_generation(0);
    m->mutable_creationtimestamp();
}

Status decodeError(const std::string& body, const char* kind) {
    Status err;
    auto doc = decodeObject(body, InputForm::Protobuf, coreKind(kind), &err);
    assert_null(doc.get());
    assert_int_equal(err.code, 400);
    assert_string_equal(err.reason.c_str(), "BadRequest");
    return err;
}

void kubectl_create_namespace_body_decodes_to_kubectls_json(void**) {
    assert_int_equal(kNamespaceLab.size(), 54);
    assert_string_equal(decodeToJson(kNamespaceLab, "Namespace").c_str(),
                        R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"lab",)"
                        R"("creationTimestamp":null},"spec":{},"status":{}})");
}

void configmap_data_keys_are_sorted_and_empty_values_kept(void**) {
    kapi::core::v1::ConfigMap cm;
    cm.mutable_metadata()->set_name("cm");
    cm.mutable_metadata()->set_namespace_("lab");
    auto& data = *cm.mutable_data();
    data["zz"] = "last";
    data["empty"] = "";
    data["a"] = "b";
    std::string got =
        decodeToJson(envelope("v1", "ConfigMap", cm.SerializeAsString()), "ConfigMap");
    assert_string_equal(got.c_str(),
                        R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm",)"
                        R"("namespace":"lab","creationTimestamp":null},)"
                        R"("data":{"a":"b","empty":"","zz":"last"}})");
}

void secret_data_is_base64_and_immutable_false_is_kept(void**) {
    kapi::core::v1::Secret s;
    s.mutable_metadata()->set_name("s");
    (*s.mutable_data())["p"] = "q";
    (*s.mutable_data())["e"] = "";
    (*s.mutable_data())["bin"] = std::string("\x00\xff\x10", 3);
    s.set_type("Opaque");
    s.set_immutable(false);
    std::string got = decodeToJson(envelope("v1", "Secret", s.SerializeAsString()), "Secret");
    assert_string_equal(got.c_str(), R"({"kind":"Secret","apiVersion":"v1","metadata":{"name":"s",)"
                                     R"("creationTimestamp":null},"immutable":false,)"
                                     R"("data":{"bin":"AP8Q","e":"","p":"cQ=="},"type":"Opaque"})");
}

void object_meta_follows_go_json_rules(void**) {
    kapi::core::v1::ServiceAccount sa;
    auto* m = sa.mutable_metadata();
    m->set_name("sa");
    m->set_generation(0);  // present on the wire, zero: omitted
    m->set_uid("");
    m->mutable_creationtimestamp()->set_seconds(1700000000);
    m->mutable_creationtimestamp()->set_nanos(0);
    m->set_deletiongraceperiodseconds(0);  // a pointer: kept though zero
    (*m->mutable_labels())["app"] = "x";
    auto* owner = m->add_ownerreferences();
    owner->set_kind("Deployment");  // apiVersion, name, uid always written
    owner->set_controller(true);
    m->add_finalizers("f");
    auto* mf = m->add_managedfields();
    mf->set_manager("kubectl");
    mf->mutable_fieldsv1()->set_raw(R"({"f:data":{}})");
    sa.add_secrets()->set_name("tok");
    sa.add_imagepullsecrets()->set_name("reg");
    std::string got =
        decodeToJson(envelope("v1", "ServiceAccount", sa.SerializeAsString()), "ServiceAccount");
    assert_string_equal(
        got.c_str(),
        R"({"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"sa",)"
        R"("creationTimestamp":"2023-11-14T22:13:20Z","deletionGracePeriodSeconds":0,)"
        R"("labels":{"app":"x"},"ownerReferences":[{"apiVersion":"","kind":"Deployment",)"
        R"("name":"","uid":"","controller":true}],"finalizers":["f"],)"
        R"("managedFields":[{"manager":"kubectl","fieldsV1":{"f:data":{}}}]},)"
        R"("secrets":[{"name":"tok"}],"imagePullSecrets":[{"name":"reg"}]})");
}

void envelope_without_type_meta_takes_the_endpoints_kind(void**) {
    kapi::core::v1::ConfigMap cm;
    cm.mutable_metadata()->set_name("cm");
    std::string body = envelope("", "", cm.SerializeAsString());
    assert_string_equal(decodeToJson(body, "ConfigMap").c_str(),
                        R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm",)"
                        R"("creationTimestamp":null}})");
}

void truncated_body_is_unexpected_eof(void**) {
    Status err = decodeError(kNamespaceLab.substr(0, 40), "Namespace");
    assert_string_equal(err.message.c_str(),
                        "the object provided is unrecognized (must be of type Namespace): "
                        "unexpected EOF (6b3873000a0f0a02763112094e616d657370616365121b0a130a036c"
                        "6162 ...)");
}

void truncated_object_inside_a_whole_envelope_cannot_be_handled(void**) {
    std::string raw = unhex("0a130a036c6162");  // metadata claims 19 bytes, has 5
    Status err = decodeError(envelope("v1", "Namespace", raw), "Namespace");
    assert_string_equal(err.message.c_str(),
                        "Namespace in version \"v1\" cannot be handled as a Namespace: "
                        "unexpected EOF");
}

void garbage_after_the_magic_is_invalid_wire_format(void**) {
    Status err = decodeError(std::string("k8s\0garbage!", 12), "ConfigMap");
    assert_string_equal(err.message.c_str(),
                        "the object provided is unrecognized (must be of type ConfigMap): "
                        "proto: cannot parse invalid wire-format data (6b38730067617262616765"
                        "21)");
}

void bodies_without_the_magic_or_empty_are_rejected(void**) {
    Status err = decodeError("not protobuf", "ConfigMap");
    assert_string_equal(err.message.c_str(),
                        "the object provided is unrecognized (must be of type ConfigMap): "
                        "provided data does not appear to be a protobuf message, expected prefix "
                        "[107 56 115 0] (6e6f742070726f746f627566)");
    err = decodeError("", "ConfigMap");
    assert_string_equal(err.message.c_str(),
                        "the object provided is unrecognized (must be of type ConfigMap): "
                        "empty data (<empty>)");
    err = decodeError(std::string("k8s\0", 4), "ConfigMap");
    assert_string_equal(err.message.c_str(),
                        "the object provided is unrecognized (must be of type ConfigMap): "
                        "empty body (6b387300)");
}

void wrong_kind_in_the_envelope_is_the_same_error_as_json(void**) {
    Status err = decodeError(kNamespaceLab, "ConfigMap");
    assert_string_equal(err.message.c_str(),
                        "Namespace in version \"v1\" cannot be handled as a ConfigMap: the kind of "
                        "the object (Namespace) does not match the kind of the resource "
                        "(ConfigMap)");
    Status fromJson;
    auto doc = decodeObject(R"({"apiVersion":"v1","kind":"Namespace"})", InputForm::Json,
                            coreKind("ConfigMap"), &fromJson);
    assert_null(doc.get());
    assert_string_equal(fromJson.message.c_str(), err.message.c_str());
}

void wrong_api_version_in_the_envelope_is_rejected(void**) {
    Status err = decodeError(envelope("apps/v1", "ConfigMap", ""), "ConfigMap");
    assert_string_equal(err.message.c_str(),
                        "the API version in the data (apps/v1) does not match the expected API "
                        "version (v1)");
}

void kind_without_a_schema_is_bad_request(void**) {
    KindInfo k = coreKind("Pod");
    Status err;
    auto doc = decodeObject(envelope("v1", "Pod", ""), InputForm::Protobuf, k, &err);
    assert_null(doc.get());
    assert_int_equal(err.code, 400);
    assert_string_equal(err.message.c_str(),
                        "Pod in version \"v1\" cannot be handled as a Pod: no protobuf schema is "
                        "known for kind \"Pod\" in version \"v1\"");
    assert_false(kube::endpoints::hasProtobufSchema("v1", "Pod"));
    assert_true(kube::endpoints::hasProtobufSchema("v1", "Secret"));
}

void fields_v1_that_is_not_json_is_rejected(void**) {
    kapi::core::v1::ConfigMap cm;
    cm.mutable_metadata()->add_managedfields()->mutable_fieldsv1()->set_raw("{nope");
    Status err = decodeError(envelope("v1", "ConfigMap", cm.SerializeAsString()), "ConfigMap");
    assert_non_null(strstr(err.message.c_str(), "cannot be handled as a ConfigMap: FieldsV1: "));
}

void kubectl_create_role_body_decodes_to_kubectls_json(void**) {
    // `kubectl create role r --verb=get --resource=pods`
    kapi::rbac::v1::Role role;
    kubectlMetadata(role.mutable_metadata(), "r");
    auto* rule = role.add_rules();
    rule->add_verbs("get");
    rule->add_apigroups("");
    rule->add_resources("pods");
    assertDecodesTo(envelope("rbac.authorization.k8s.io/v1", "Role", role.SerializeAsString()),
                    kRbac, "Role",
                    R"({"kind":"Role","apiVersion":"rbac.authorization.k8s.io/v1",)"
                    R"("metadata":{"name":"r","creationTimestamp":null},)"
                    R"("rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]})");
}

void kubectl_create_rolebinding_body_decodes_to_kubectls_json(void**) {
    // `kubectl create rolebinding rb --role=r --user=alice`
    kapi::rbac::v1::RoleBinding rb;
    kubectlMetadata(rb.mutable_metadata(), "rb");
    auto* subject = rb.add_subjects();
    subject->set_kind("User");
    subject->set_apigroup("rbac.authorization.k8s.io");
    subject->set_name("alice");
    subject->set_namespace_("");
    rb.mutable_roleref()->set_apigroup("rbac.authorization.k8s.io");
    rb.mutable_roleref()->set_kind("Role");
    rb.mutable_roleref()->set_name("r");
    assertDecodesTo(
        envelope("rbac.authorization.k8s.io/v1", "RoleBinding", rb.SerializeAsString()), kRbac,
        "RoleBinding",
        R"({"kind":"RoleBinding","apiVersion":"rbac.authorization.k8s.io/v1",)"
        R"("metadata":{"name":"rb","creationTimestamp":null},)"
        R"("subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"alice"}],)"
        R"("roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}})");
}

void rbac_fields_without_omitempty_are_written_when_empty(void**) {
    // A rule with no verbs and a binding with an empty roleRef and a
    // subject of only a kind: Go writes null verbs and the empty strings.
    kapi::rbac::v1::ClusterRole cr;
    cr.mutable_metadata()->set_name("cr");
    cr.add_rules()->add_nonresourceurls("/healthz");
    assertDecodesTo(envelope("rbac.authorization.k8s.io/v1", "ClusterRole", cr.SerializeAsString()),
                    kRbac, "ClusterRole",
                    R"({"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1",)"
                    R"("metadata":{"name":"cr","creationTimestamp":null},)"
                    R"("rules":[{"verbs":null,"nonResourceURLs":["/healthz"]}]})");

    kapi::rbac::v1::ClusterRoleBinding crb;
    crb.mutable_metadata()->set_name("crb");
    crb.add_subjects()->set_kind("Group");
    assertDecodesTo(
        envelope("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", crb.SerializeAsString()),
        kRbac, "ClusterRoleBinding",
        R"({"kind":"ClusterRoleBinding","apiVersion":"rbac.authorization.k8s.io/v1",)"
        R"("metadata":{"name":"crb","creationTimestamp":null},)"
        R"("subjects":[{"kind":"Group","name":""}],)"
        R"("roleRef":{"apiGroup":"","kind":"","name":""}})");
}

void cluster_role_without_rules_has_null_rules_and_keeps_its_aggregation_rule(void**) {
    kapi::rbac::v1::ClusterRole cr;
    cr.mutable_metadata()->set_name("agg");
    auto* sel = cr.mutable_aggregationrule()->add_clusterroleselectors();
    (*sel->mutable_matchlabels())["rbac.example.com/aggregate"] = "true";
    auto* req = sel->add_matchexpressions();
    req->set_key("tier");
    req->set_operator_("Exists");
    cr.mutable_aggregationrule()->add_clusterroleselectors();  // an empty selector: {}
    assertDecodesTo(envelope("rbac.authorization.k8s.io/v1", "ClusterRole", cr.SerializeAsString()),
                    kRbac, "ClusterRole",
                    R"({"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1",)"
                    R"("metadata":{"name":"agg","creationTimestamp":null},"rules":null,)"
                    R"("aggregationRule":{"clusterRoleSelectors":[{"matchLabels":)"
                    R"({"rbac.example.com/aggregate":"true"},)"
                    R"("matchExpressions":[{"key":"tier","operator":"Exists"}]},{}]}})");
    assert_true(kube::endpoints::hasProtobufSchema("rbac.authorization.k8s.io/v1", "Role"));
    assert_false(kube::endpoints::hasProtobufSchema("rbac.authorization.k8s.io/v1", "Lease"));
}

void lease_times_are_micro_rfc3339_and_unset_pointers_are_absent(void**) {
    kapi::coordination::v1::Lease lease;
    lease.mutable_metadata()->set_name("leader");
    lease.mutable_metadata()->set_namespace_("kube-system");
    auto* spec = lease.mutable_spec();
    spec->set_holderidentity("node-a");
    spec->set_leasedurationseconds(15);
    spec->set_leasetransitions(0);  // a pointer: zero is kept
    spec->mutable_acquiretime()->set_seconds(1700000000);
    spec->mutable_acquiretime()->set_nanos(123456789);  // cut to .123456
    spec->mutable_renewtime()->set_seconds(1700000001);
    spec->mutable_renewtime()->set_nanos(0);
    assertDecodesTo(envelope("coordination.k8s.io/v1", "Lease", lease.SerializeAsString()),
                    "coordination.k8s.io", "Lease",
                    R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1",)"
                    R"("metadata":{"name":"leader","namespace":"kube-system",)"
                    R"("creationTimestamp":null},"spec":{"holderIdentity":"node-a",)"
                    R"("leaseDurationSeconds":15,)"
                    R"("acquireTime":"2023-11-14T22:13:20.123456Z",)"
                    R"("renewTime":"2023-11-14T22:13:21.000000Z","leaseTransitions":0}})");

    kapi::coordination::v1::Lease empty;
    empty.mutable_metadata()->set_name("idle");
    empty.mutable_spec()->mutable_renewtime();  // present but zero: null, as Go writes it
    assertDecodesTo(envelope("coordination.k8s.io/v1", "Lease", empty.SerializeAsString()),
                    "coordination.k8s.io", "Lease",
                    R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1",)"
                    R"("metadata":{"name":"idle","creationTimestamp":null},)"
                    R"("spec":{"renewTime":null}})");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kubectl_create_namespace_body_decodes_to_kubectls_json),
        cmocka_unit_test(configmap_data_keys_are_sorted_and_empty_values_kept),
        cmocka_unit_test(secret_data_is_base64_and_immutable_false_is_kept),
        cmocka_unit_test(object_meta_follows_go_json_rules),
        cmocka_unit_test(envelope_without_type_meta_takes_the_endpoints_kind),
        cmocka_unit_test(truncated_body_is_unexpected_eof),
        cmocka_unit_test(truncated_object_inside_a_whole_envelope_cannot_be_handled),
        cmocka_unit_test(garbage_after_the_magic_is_invalid_wire_format),
        cmocka_unit_test(bodies_without_the_magic_or_empty_are_rejected),
        cmocka_unit_test(wrong_kind_in_the_envelope_is_the_same_error_as_json),
        cmocka_unit_test(wrong_api_version_in_the_envelope_is_rejected),
        cmocka_unit_test(kind_without_a_schema_is_bad_request),
        cmocka_unit_test(fields_v1_that_is_not_json_is_rejected),
        cmocka_unit_test(kubectl_create_role_body_decodes_to_kubectls_json),
        cmocka_unit_test(kubectl_create_rolebinding_body_decodes_to_kubectls_json),
        cmocka_unit_test(rbac_fields_without_omitempty_are_written_when_empty),
        cmocka_unit_test(cluster_role_without_rules_has_null_rules_and_keeps_its_aggregation_rule),
        cmocka_unit_test(lease_times_are_micro_rfc3339_and_unset_pointers_are_absent),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
