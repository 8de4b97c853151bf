#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "registry/continue_token.hpp"
#include "registry/encoding.hpp"
#include "storage/interface.hpp"
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
using kube::registry::ContinueToken;
using kube::registry::EncodedObject;
using kube::registry::KindInfo;

namespace {

KindInfo makeKind(const char* group, const char* kind, const char* resource, bool namespaced) {
    KindInfo k;
    k.group = group;
    k.version = "v1";
    k.kind = kind;
    k.resource = resource;
    k.namespaced = namespaced;
    return k;
}

const KindInfo kConfigMap = makeKind("", "ConfigMap", "configmaps", true);
const KindInfo kDeployment = makeKind("apps", "Deployment", "deployments", true);
const KindInfo kNamespace = makeKind("", "Namespace", "namespaces", false);

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

EncodedObject encode(const char* text, bool withRevisionSlot = true) {
    json::Document d = parse(text);
    return kube::registry::encodeObject(d, withRevisionSlot);
}

void encode_orders_kind_api_version_metadata_fields_then_status(void**) {
    EncodedObject e =
        encode(R"({"status":{"phase":"x"},"data":{"k":"v"},"metadata":{"zz-extra":1,)"
               R"("managedFields":[],"annotations":{"n":"1"},"labels":{"a":"b"},)"
               R"("creationTimestamp":"2026-09-21T00:00:00Z","generation":2,"resourceVersion":"9",)"
               R"("uid":"u","namespace":"ns","generateName":"g-","name":"a"},)"
               R"("apiVersion":"v1","binaryData":{"b":"AA=="},"kind":"ConfigMap"})");
    assert_string_equal(
        e.bytes.c_str(),
        R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","generateName":"g-",)"
        R"("namespace":"ns","uid":"u","resourceVersion":"","generation":2,)"
        R"("creationTimestamp":"2026-09-21T00:00:00Z","labels":{"a":"b"},)"
        R"("annotations":{"n":"1"},"managedFields":[],"zz-extra":1},"data":{"k":"v"},)"
        R"("binaryData":{"b":"AA=="},"status":{"phase":"x"}})");
}

void every_object_metadata_field_keeps_go_struct_order(void**) {
    EncodedObject e =
        encode(R"({"kind":"Pod","apiVersion":"v1","metadata":{"finalizers":["f"],)"
               R"("ownerReferences":[],"deletionGracePeriodSeconds":30,)"
               R"("deletionTimestamp":"2026-09-21T00:00:01Z","selfLink":"/x","name":"p"}})");
    assert_string_equal(
        e.bytes.c_str(),
        R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","selfLink":"/x",)"
        R"("resourceVersion":"","deletionTimestamp":"2026-09-21T00:00:01Z",)"
        R"("deletionGracePeriodSeconds":30,"ownerReferences":[],"finalizers":["f"]}})");
}

void revision_slot_splices_into_valid_json(void**) {
    EncodedObject e = encode(R"({"kind":"ConfigMap","apiVersion":"v1",)"
                             R"("metadata":{"name":"a","namespace":"ns"},"data":{"k":"v"}})");
    assert_int_not_equal(e.revisionOffset, std::string::npos);
    // The offset sits between the two quotes of the empty resourceVersion.
    assert_true(e.bytes.compare(e.revisionOffset - 19, 20, "\"resourceVersion\":\"\"") == 0);
    std::string stored = kube::storage::spliceRevision(e.bytes, e.revisionOffset, 237);
    json::Document d = parse(stored);
    assert_string_equal(json::stringMember(d["metadata"], "resourceVersion").data(), "237");
    assert_string_equal(stored.c_str(),
                        R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a",)"
                        R"("namespace":"ns","resourceVersion":"237"},"data":{"k":"v"}})");
    // No offset: the value is stored as is.
    assert_string_equal(kube::storage::spliceRevision("{}", std::string::npos, 5).c_str(), "{}");
}

void object_without_metadata_still_gets_a_slot(void**) {
    EncodedObject e = encode(R"({"kind":"ConfigMap","apiVersion":"v1"})");
    assert_string_equal(
        e.bytes.c_str(),
        R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":""}})");
    std::string stored = kube::storage::spliceRevision(e.bytes, e.revisionOffset, 1);
    assert_false(json::parse(stored, *std::make_unique<json::Document>()).has_value());
}

void dry_run_form_has_no_resource_version_at_all(void**) {
    EncodedObject e = encode(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a",)"
                             R"("resourceVersion":"12","uid":"u"}})",
                             false);
    assert_int_equal(e.revisionOffset, std::string::npos);
    assert_string_equal(
        e.bytes.c_str(),
        R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","uid":"u"}})");
}

void stored_prefix_is_what_encoded_objects_start_with(void**) {
    assert_string_equal(kube::registry::storedPrefix(kConfigMap).c_str(),
                        R"({"kind":"ConfigMap","apiVersion":"v1",)");
    assert_string_equal(kube::registry::storedPrefix(kDeployment).c_str(),
                        R"({"kind":"Deployment","apiVersion":"apps/v1",)");
    EncodedObject e = encode(R"({"spec":{},"apiVersion":"apps/v1","kind":"Deployment",)"
                             R"("metadata":{"name":"web"}})");
    assert_true(e.bytes.starts_with(kube::registry::storedPrefix(kDeployment)));
}

void list_items_drop_kind_and_api_version(void**) {
    std::string prefix = kube::registry::storedPrefix(kConfigMap);
    std::string out = "[";
    kube::registry::appendListItem(
        out, R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{}})", prefix);
    out += ",";
    // Bytes without the prefix are appended untouched.
    kube::registry::appendListItem(out, R"({"metadata":{"name":"b"}})", prefix);
    out += "]";
    assert_string_equal(out.c_str(),
                        R"([{"metadata":{"name":"a"},"data":{}},{"metadata":{"name":"b"}}])");
    assert_false(json::parse(out, *std::make_unique<json::Document>()).has_value());
}

void keys_follow_the_etcd_registry_layout(void**) {
    using kube::registry::collectionPrefix;
    using kube::registry::objectKey;
    assert_string_equal(objectKey(kConfigMap, "wire", "a").c_str(), "/registry/configmaps/wire/a");
    assert_string_equal(objectKey(kDeployment, "wire", "web").c_str(),
                        "/registry/deployments/wire/web");
    assert_string_equal(objectKey(kNamespace, "", "wire").c_str(), "/registry/namespaces/wire");
    // A cluster-scoped kind ignores a namespace.
    assert_string_equal(objectKey(kNamespace, "other", "wire").c_str(),
                        "/registry/namespaces/wire");
    assert_string_equal(collectionPrefix(kConfigMap, "wire").c_str(), "/registry/configmaps/wire/");
    assert_string_equal(collectionPrefix(kConfigMap, "").c_str(), "/registry/configmaps/");
    assert_string_equal(collectionPrefix(kNamespace, "").c_str(), "/registry/namespaces/");
    // A namespace's prefix never covers a longer namespace name.
    assert_false(
        objectKey(kConfigMap, "wire2", "a").starts_with(collectionPrefix(kConfigMap, "wire")));
}

void continue_token_encodes_kubes_json_as_unpadded_base64url(void**) {
    ContinueToken t{240, std::string("b\0", 2)};
    std::string token = t.encode();
    // base64url of {"v":"meta.k8s.io/v1","rv":240,"start":"b\u0000"} (spec §5.1).
    assert_string_equal(token.c_str(),
                        "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjQwLCJzdGFydCI6ImJcdTAwMDAifQ");
    assert_true(token.find('=') == std::string::npos);
    ContinueToken u{7, "ns/a+b?c"};
    assert_string_equal(u.encode().c_str(),
                        "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Nywic3RhcnQiOiJucy9hK2I_YyJ9");
}

void continue_token_round_trips(void**) {
    for (const ContinueToken& t :
         {ContinueToken{240, std::string("b\0", 2)}, ContinueToken{7, "ns/a+b?c"},
          ContinueToken{18446744073709551615ull, "wire/x-y.z\x01"}, ContinueToken{1, "a"}}) {
        std::string why;
        std::optional<ContinueToken> back = ContinueToken::decode(t.encode(), &why);
        if (!back) {
            fail_msg("token for %s did not decode: %s", t.start.c_str(), why.c_str());
        }
        assert_int_equal(back->revision, t.revision);
        assert_true(back->start == t.start);
    }
}

std::string b64url(std::string_view in) {
    static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
        for (int s = 18; s >= 0; s -= 6) {
            out += a[(n >> s) & 63];
        }
    }
    if (i + 1 == in.size()) {
        uint32_t n = uint8_t(in[i]) << 16;
        out += a[(n >> 18) & 63];
        out += a[(n >> 12) & 63];
    } else if (i + 2 == in.size()) {
        uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
        out += a[(n >> 18) & 63];
        out += a[(n >> 12) & 63];
        out += a[(n >> 6) & 63];
    }
    return out;
}

void expectRejected(const std::string& token, const char* what) {
    std::string why;
    if (ContinueToken::decode(token, &why)) {
        fail_msg("%s: token was accepted", what);
    }
    if (why.empty()) {
        fail_msg("%s: rejected without a reason", what);
    }
}

void garbage_continue_tokens_are_rejected(void**) {
    expectRejected("%%%not-base64%%%", "bad alphabet");
    expectRejected("a", "impossible length");
    expectRejected(b64url("not json"), "not JSON");
    expectRejected(b64url("[1,2]"), "not an object");
    expectRejected(b64url(R"({"v":"meta.k8s.io/v1","rv":"240","start":"a"})"), "string rv");
    expectRejected(b64url(R"({"v":"meta.k8s.io/v1","rv":240})"), "no start");
    expectRejected(b64url(R"({"v":"meta.k8s.io/v1","rv":-3,"start":"a"})"), "negative rv");
}

void continue_tokens_of_another_version_are_rejected(void**) {
    expectRejected(b64url(R"({"v":"meta.k8s.io/v2","rv":240,"start":"a"})"), "v2");
    expectRejected(b64url(R"({"rv":240,"start":"a"})"), "no version");
}

void start_keys_that_escape_the_prefix_are_rejected(void**) {
    expectRejected(b64url(R"({"v":"meta.k8s.io/v1","rv":240,"start":"../secrets/a"})"), "..");
    expectRejected(b64url(R"({"v":"meta.k8s.io/v1","rv":240,"start":"ns/../../secrets"})"),
                   "inner ..");
    expectRejected(b64url(R"({"v":"meta.k8s.io/v1","rv":240,"start":"ns/.."})"), "trailing ..");
}

void tokens_kube_would_never_issue_are_rejected(void**) {
    // storage.DecodeContinue: a zero revision and an empty start key are invalid.
    expectRejected(b64url(R"({"v":"meta.k8s.io/v1","rv":0,"start":"a"})"), "rv 0");
    expectRejected(b64url(R"({"v":"meta.k8s.io/v1","rv":5,"start":""})"), "empty start");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encode_orders_kind_api_version_metadata_fields_then_status),
        cmocka_unit_test(every_object_metadata_field_keeps_go_struct_order),
        cmocka_unit_test(revision_slot_splices_into_valid_json),
        cmocka_unit_test(object_without_metadata_still_gets_a_slot),
        cmocka_unit_test(dry_run_form_has_no_resource_version_at_all),
        cmocka_unit_test(stored_prefix_is_what_encoded_objects_start_with),
        cmocka_unit_test(list_items_drop_kind_and_api_version),
        cmocka_unit_test(keys_follow_the_etcd_registry_layout),
        cmocka_unit_test(continue_token_encodes_kubes_json_as_unpadded_base64url),
        cmocka_unit_test(continue_token_round_trips),
        cmocka_unit_test(garbage_continue_tokens_are_rejected),
        cmocka_unit_test(continue_tokens_of_another_version_are_rejected),
        cmocka_unit_test(start_keys_that_escape_the_prefix_are_rejected),
        cmocka_unit_test(tokens_kube_would_never_issue_are_rejected),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
