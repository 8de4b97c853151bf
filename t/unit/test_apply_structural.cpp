// Server-side apply typed by a custom resource's structural schema
// (TypeRef::forStructural): the node types kube's CRD handler gives its
// field manager (list types and keys, key defaults, map types, deduced
// nodes that preserve unknown fields, metadata as an ObjectMeta, embedded
// resources), the fields an apply owns, merges by list-map keys and set
// values, conflicts and their force, duplicate keys refused. The expected
// FieldsV1 were recorded from kube-apiserver 1.26.5.
#include <cstring>
#include <memory>
#include <string>

#include "apis/apiextensions/structural_schema.hpp"
#include "registry/apply/field_manager.hpp"
#include "registry/apply/fields_v1.hpp"
#include "registry/apply/typed.hpp"
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
using apply::TypeRef;
using Kind = TypeRef::Kind;

constexpr const char* kNow = "2026-11-26T03:00:00Z";

constexpr const char* kSchema = R"({
  "type": "object",
  "properties": {
    "spec": {"type": "object", "properties": {
      "size": {"type": "integer"},
      "count": {"x-kubernetes-int-or-string": true},
      "ports": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name", "protocol"],
                "items": {"type": "object", "required": ["name"], "properties": {
                  "name": {"type": "string"},
                  "protocol": {"type": "string", "default": "TCP"},
                  "port": {"type": "integer"}}}},
      "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
      "args": {"type": "array", "items": {"type": "string"}},
      "labels": {"type": "object", "additionalProperties": {"type": "string"}},
      "selector": {"type": "object", "x-kubernetes-map-type": "atomic",
                   "properties": {"app": {"type": "string"}}},
      "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
      "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                   "properties": {"data": {"type": "string"}}}}}}})";

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

struct Fixture {
    std::shared_ptr<const kube::apis::apiextensions::StructuralSchema> schema;
    TypeRef root;
};

Fixture compiled(const char* schemaText) {
    json::Document s = parse(schemaText);
    Fixture f;
    f.schema = kube::apis::apiextensions::compileStructuralSchema(s);
    assert_non_null(f.schema.get());
    f.root = TypeRef::forStructural(&f.schema->root());
    return f;
}

TypeRef at(const TypeRef& t, std::initializer_list<const char*> names, bool* declared = nullptr) {
    TypeRef cur = t;
    bool d = false;
    for (const char* n : names) {
        cur = cur.member(n, &d);
    }
    if (declared) {
        *declared = d;
    }
    return cur;
}

apply::FieldManager widgets(const Fixture& f) {
    apply::FieldManagerOptions o;
    o.type = f.root;
    o.typeSource = f.schema;
    o.apiVersion = "example.com/v1";
    o.kind = "Widget";
    return apply::FieldManager(std::move(o));
}

std::string fieldsOf(const json::Value& obj, const char* manager) {
    const json::Value* list = json::at(obj, {"metadata", "managedFields"});
    if (!list) {
        return "";
    }
    for (const json::Value& e : list->GetArray()) {
        if (json::stringMember(e, "manager") == manager) {
            return json::serialize(*json::member(e, "fieldsV1"));
        }
    }
    return "";
}

void nodes_are_typed_as_kube_types_them(void**) {
    Fixture f = compiled(kSchema);
    assert_int_equal(static_cast<int>(f.root.kind()), static_cast<int>(Kind::Struct));
    bool declared = false;
    TypeRef meta = at(f.root, {"metadata"}, &declared);
    assert_true(declared);
    assert_int_equal(static_cast<int>(meta.kind()), static_cast<int>(Kind::Struct));
    TypeRef finalizers = at(meta, {"finalizers"});
    assert_int_equal(static_cast<int>(finalizers.listType()),
                     static_cast<int>(TypeRef::ListType::Set));
    assert_int_equal(static_cast<int>(at(f.root, {"kind"}).kind()), static_cast<int>(Kind::Scalar));

    TypeRef ports = at(f.root, {"spec", "ports"});
    assert_int_equal(static_cast<int>(ports.kind()), static_cast<int>(Kind::List));
    assert_false(ports.atomic());
    assert_int_equal(static_cast<int>(ports.listType()), static_cast<int>(TypeRef::ListType::Map));
    assert_int_equal(ports.keys().size(), 2);
    assert_string_equal(ports.keys()[1].c_str(), "protocol");
    assert_true(ports.keyDefault("protocol").has_value());
    assert_false(ports.keyDefault("name").has_value());
    assert_int_equal(static_cast<int>(ports.item().kind()), static_cast<int>(Kind::Struct));

    assert_int_equal(static_cast<int>(at(f.root, {"spec", "tags"}).listType()),
                     static_cast<int>(TypeRef::ListType::Set));
    assert_true(at(f.root, {"spec", "args"}).atomic());
    TypeRef labels = at(f.root, {"spec", "labels"});
    assert_int_equal(static_cast<int>(labels.kind()), static_cast<int>(Kind::Map));
    assert_int_equal(static_cast<int>(at(labels, {"any"}).kind()), static_cast<int>(Kind::Scalar));
    TypeRef selector = at(f.root, {"spec", "selector"});
    assert_int_equal(static_cast<int>(selector.kind()), static_cast<int>(Kind::Struct));
    assert_true(selector.atomic());
    assert_int_equal(static_cast<int>(at(f.root, {"spec", "extra"}).kind()),
                     static_cast<int>(Kind::Untyped));
    assert_int_equal(static_cast<int>(at(f.root, {"spec", "count"}).kind()),
                     static_cast<int>(Kind::Scalar));
    // An embedded resource has an ObjectMeta too; an unknown field is
    // undeclared and deduced.
    TypeRef embeddedLabels = at(f.root, {"spec", "template", "metadata", "labels"});
    assert_int_equal(static_cast<int>(embeddedLabels.kind()), static_cast<int>(Kind::Map));
    TypeRef unknown = at(f.root, {"spec", "nope"}, &declared);
    assert_false(declared);
    assert_int_equal(static_cast<int>(unknown.kind()), static_cast<int>(Kind::Untyped));

    // A root that keeps every field is still a struct with an ObjectMeta.
    Fixture open = compiled(R"({"type":"object","x-kubernetes-preserve-unknown-fields":true})");
    assert_int_equal(static_cast<int>(open.root.kind()), static_cast<int>(Kind::Struct));
    TypeRef owners = at(open.root, {"metadata", "ownerReferences"});
    assert_int_equal(static_cast<int>(owners.listType()), static_cast<int>(TypeRef::ListType::Map));
    assert_int_equal(static_cast<int>(at(open.root, {"spec"}).kind()),
                     static_cast<int>(Kind::Untyped));
}

void applies_merge_by_keys_and_conflict(void**) {
    Fixture f = compiled(kSchema);
    apply::FieldManager fm = widgets(f);
    json::Document empty = parse("{}");
    json::Document c1 = parse(R"({"apiVersion":"example.com/v1","kind":"Widget",
        "metadata":{"name":"w1","namespace":"ns"},
        "spec":{"size":1,"ports":[{"name":"http","port":80},{"name":"dns","protocol":"UDP","port":53}],
                "tags":["a","b"],"args":["x"],"labels":{"k1":"v1"},"selector":{"app":"a"},
                "extra":{"deep":{"x":1},"list":[1,2]}}})");
    apply::ApplyResult r1 = fm.apply(empty, c1, "m1", false, kNow);
    assert_false(r1.status.has_value());
    assert_string_equal(
        fieldsOf(r1.object, "m1").c_str(),
        R"({"f:spec":{"f:args":{},"f:extra":{"f:deep":{".":{},"f:x":{}},"f:list":{}},)"
        R"("f:labels":{"f:k1":{}},"f:ports":{"k:{\"name\":\"dns\",\"protocol\":\"UDP\"}":)"
        R"({".":{},"f:name":{},"f:port":{},"f:protocol":{}},"k:{\"name\":\"http\",\"protocol\":\"TCP\"}":)"
        R"({".":{},"f:name":{},"f:port":{}}},"f:selector":{},"f:size":{},)"
        R"("f:tags":{"v:\"a\"":{},"v:\"b\"":{}}}})");

    // m2 changes http's port and the atomic selector: two conflicts.
    json::Document c2 = parse(R"({"apiVersion":"example.com/v1","kind":"Widget",
        "metadata":{"name":"w1","namespace":"ns"},
        "spec":{"ports":[{"name":"https","port":443},{"name":"http","port":8080}],
                "tags":["c"],"labels":{"k2":"v2"},"selector":{"app":"b"}}})");
    apply::ApplyResult r2 = fm.apply(r1.object, c2, "m2", false, kNow);
    assert_true(r2.status.has_value());
    assert_int_equal(r2.status->code, 409);
    assert_string_equal(r2.status->message.c_str(),
                        "Apply failed with 2 conflicts: conflicts with \"m1\":\n- .spec.selector\n"
                        "- .spec.ports[name=\"http\",protocol=\"TCP\"].port");

    apply::ApplyResult forced = fm.apply(r1.object, c2, "m2", true, kNow);
    assert_false(forced.status.has_value());
    const json::Value* spec = json::member(forced.object, "spec");
    assert_string_equal(json::serialize(*json::member(*spec, "ports")).c_str(),
                        R"([{"name":"https","port":443},{"name":"http","port":8080},)"
                        R"({"name":"dns","protocol":"UDP","port":53}])");
    assert_string_equal(json::serialize(*json::member(*spec, "tags")).c_str(), R"(["a","b","c"])");
    assert_string_equal(json::serialize(*json::member(*spec, "labels")).c_str(),
                        R"({"k1":"v1","k2":"v2"})");
    assert_string_equal(json::serialize(*json::member(*spec, "selector")).c_str(),
                        R"({"app":"b"})");
    // m1 keeps the http item's key but no longer its port.
    std::string m1 = fieldsOf(forced.object, "m1");
    assert_non_null(
        strstr(m1.c_str(), R"("k:{\"name\":\"http\",\"protocol\":\"TCP\"}":{".":{},"f:name":{}})"));
    assert_null(strstr(m1.c_str(), "f:selector"));
}

void duplicate_keys_are_refused(void**) {
    Fixture f = compiled(kSchema);
    apply::FieldManager fm = widgets(f);
    json::Document empty = parse("{}");
    json::Document c = parse(R"({"apiVersion":"example.com/v1","kind":"Widget",
        "metadata":{"name":"w3"},"spec":{"ports":[{"name":"a"},{"name":"a","protocol":"TCP"}]}})");
    apply::ApplyResult r = fm.apply(empty, c, "m", false, kNow);
    assert_true(r.status.has_value());
    assert_int_equal(r.status->code, 500);
    assert_string_equal(r.status->message.c_str(),
                        "failed to create typed patch object (/w3; example.com/v1, Kind=Widget): "
                        ".spec.ports: duplicate entries for key [name=\"a\",protocol=\"TCP\"]");
    json::Document s = parse(R"({"apiVersion":"example.com/v1","kind":"Widget",
        "metadata":{"name":"w3"},"spec":{"tags":["q","q"]}})");
    r = fm.apply(empty, s, "m", false, kNow);
    assert_true(r.status.has_value());
    assert_int_equal(r.status->code, 500);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nodes_are_typed_as_kube_types_them),
        cmocka_unit_test(applies_merge_by_keys_and_conflict),
        cmocka_unit_test(duplicate_keys_are_refused),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
