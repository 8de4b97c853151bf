// Structural schemas of custom resources (apis/apiextensions): validation,
// pruning and defaulting of custom resources against their CRD version's
// openAPIV3Schema. The expected causes, warnings and defaulted objects are
// what kube-apiserver 1.26.5 answered for the same CRD and bodies (POST
// with dryRun=All against the reference server). kube checks the fields of
// an object in Go's random map order; this server checks them in the
// object's order, so where kube listed several causes the tables below keep
// kube's texts in the object's order.
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "apis/apiextensions/custom_resource_validation.hpp"
#include "apis/apiextensions/defaulting.hpp"
#include "apis/apiextensions/pruning.hpp"
#include "apis/apiextensions/schema_validation.hpp"
#include "apis/apiextensions/structural_schema.hpp"
#include "apis/apiextensions/validation.hpp"
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
namespace ext = kube::apis::apiextensions;

namespace {

// The Widget CRD's openAPIV3Schema as the reference server stored it.
const char* const kWidgetSchema =
    R"({"properties": {"spec": {"properties": {"allof": {"allOf": [{"minimum": 2}, {"maximum": )"
    R"(4}], "type": "integer"}, "b64": {"format": "byte", "type": "string"}, "defaulted": {"def)"
    R"(ault": "hello", "type": "string"}, "dt": {"format": "date", "type": "string"}, "emb": {")"
    R"(properties": {"spec": {"properties": {"x": {"default": 3, "type": "integer"}}, "type": ")"
    R"(object"}}, "type": "object", "x-kubernetes-embedded-resource": true}, "flag": {"type": ")"
    R"(boolean"}, "free": {"properties": {"known": {"properties": {"k": {"type": "string"}}, "t)"
    R"(ype": "object"}}, "type": "object", "x-kubernetes-preserve-unknown-fields": true}, "ios")"
    R"(: {"x-kubernetes-int-or-string": true}, "iosp": {"maximum": 5, "pattern": "^[0-9]+%$", ")"
    R"(x-kubernetes-int-or-string": true}, "ip": {"format": "ipv4", "type": "string"}, "labels")"
    R"(: {"additionalProperties": {"type": "string"}, "maxProperties": 2, "minProperties": 1, ")"
    R"(type": "object"}, "list": {"items": {"properties": {"v": {"default": 7, "type": "integer)"
    R"("}, "w": {"type": "string"}}, "type": "object"}, "type": "array"}, "name": {"maxLength":)"
    R"( 5, "minLength": 3, "pattern": "^[a-z]+$", "type": "string"}, "nested": {"default": {}, )"
    R"("properties": {"a": {"default": 5, "type": "integer"}, "nn": {"default": "dn", "nullable)"
    R"(": true, "type": "string"}}, "type": "object"}, "nonnul": {"type": "string"}, "notx": {")"
    R"(not": {"enum": ["bad"]}, "type": "string"}, "nul": {"nullable": true, "type": "string"},)"
    R"( "oneof": {"oneOf": [{"required": ["a"]}, {"required": ["b"]}], "properties": {"a": {"ty)"
    R"(pe": "string"}, "b": {"type": "string"}}, "type": "object"}, "pairs": {"items": {"proper)"
    R"(ties": {"a": {"type": "string"}, "b": {"default": "x", "type": "string"}}, "required": [)"
    R"("a"], "type": "object"}, "type": "array", "x-kubernetes-list-map-keys": ["a", "b"], "x-k)"
    R"(ubernetes-list-type": "map"}, "ports": {"items": {"properties": {"name": {"type": "strin)"
    R"(g"}, "port": {"type": "integer"}}, "required": ["port"], "type": "object"}, "type": "arr)"
    R"(ay", "x-kubernetes-list-map-keys": ["port"], "x-kubernetes-list-type": "map"}, "ratio": )"
    R"({"exclusiveMaximum": true, "maximum": 2, "multipleOf": 0.5, "type": "number"}, "replicas)"
    R"(": {"maximum": 10, "minimum": 1, "type": "integer"}, "size": {"enum": ["small", "large"])"
    R"(, "type": "string"}, "tags": {"items": {"type": "string"}, "maxItems": 2, "minItems": 1,)"
    R"( "type": "array", "x-kubernetes-list-type": "set"}, "template": {"type": "object", "x-ku)"
    R"(bernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}, "ts": )"
    R"({"format": "date-time", "type": "string"}, "uid": {"format": "uuid", "type": "string"}, )"
    R"("xmin": {"exclusiveMinimum": true, "minimum": 1.5, "type": "number"}}, "required": ["siz)"
    R"(e"], "type": "object"}, "status": {"properties": {"phase": {"type": "string"}}, "type": )"
    R"("object"}}, "type": "object"})";

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

const ext::StructuralSchema& widget() {
    static const json::Document doc = parse(kWidgetSchema);
    static const std::shared_ptr<const ext::StructuralSchema> s = ext::compileStructuralSchema(doc);
    return *s;
}

json::Document widgetWithSpec(std::string_view spec) {
    return parse(R"({"apiVersion":"st.example.com/v1","kind":"Widget","metadata":{"name":"w"},)"
                 R"("spec":)" +
                 std::string(spec) + "}");
}

struct Cause {
    const char* reason;
    const char* field;
    const char* message;
};

// As the server runs them on a create: prune, default, validate.
kube::apis::core::field::Causes decodeAndValidate(const ext::StructuralSchema& s,
                                                  json::Document& d) {
    ext::pruneCustomResource(s, d);
    ext::defaultCustomResource(s, d, d.GetAllocator());
    return ext::validateCustomResource(s, d);
}

void expectCauses(const kube::apis::core::field::Causes& got, const std::vector<Cause>& want) {
    bool same = got.size() == want.size();
    for (size_t i = 0; same && i < got.size(); ++i) {
        same = got[i].reason == want[i].reason && got[i].field == want[i].field &&
               got[i].message == want[i].message;
    }
    if (!same) {
        for (const auto& c : got) {
            fprintf(stderr, "got:  %s %s: %s\n", c.reason.c_str(), c.field.c_str(),
                    c.message.c_str());
        }
        for (const auto& c : want) {
            fprintf(stderr, "want: %s %s: %s\n", c.reason, c.field, c.message);
        }
        fail();
    }
}

void expectSpec(const json::Value& obj, std::string_view want) {
    json::Document w = parse(want);
    const json::Value* spec = json::member(obj, "spec");
    if (!spec || !(*spec == w)) {
        fail_msg("spec is %s, want %s", spec ? json::serialize(*spec).c_str() : "absent",
                 std::string(want).c_str());
    }
}

struct Case {
    const char* spec;
    std::vector<Cause> causes;
};

void runCases(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
        json::Document d = widgetWithSpec(c.spec);
        fprintf(stderr, "spec %s\n", c.spec);
        expectCauses(decodeAndValidate(widget(), d), c.causes);
    }
}

// clang-format off
void bounds_lengths_enums_and_counts_get_kube_s_messages(void** /*state*/) {
    runCases({
        {R"({"size":"medium","replicas":"x","name":"AB","ratio":2.5,"xmin":1.5,"tags":["a","a","b"],"flag":"yes"})",
         {{"FieldValueNotSupported", "spec.size", R"(Unsupported value: "medium": supported values: "small", "large")"},
          {"FieldValueTypeInvalid", "spec.replicas", R"(Invalid value: "string": spec.replicas in body must be of type integer: "string")"},
          {"FieldValueInvalid", "spec.name", R"(Invalid value: "AB": spec.name in body should be at least 3 chars long)"},
          {"FieldValueInvalid", "spec.ratio", R"(Invalid value: 2.5: spec.ratio in body should be less than 2)"},
          {"FieldValueInvalid", "spec.xmin", R"(Invalid value: 1.5: spec.xmin in body should be greater than 1.5)"},
          {"FieldValueTooMany", "spec.tags", R"(Too many: 3: must have at most 2 items)"},
          {"FieldValueTypeInvalid", "spec.flag", R"(Invalid value: "string": spec.flag in body must be of type boolean: "string")"},
          {"FieldValueDuplicate", "spec.tags[1]", R"(Duplicate value: "a")"}}},
        {R"({"size":"small","replicas":0,"name":"abcdef","ratio":0.7,"xmin":1,"tags":[],"labels":{}})",
         {{"FieldValueInvalid", "spec.replicas", R"(Invalid value: 0: spec.replicas in body should be greater than or equal to 1)"},
          {"FieldValueTooLong", "spec.name", R"(Too long: may not be longer than 5)"},
          {"FieldValueInvalid", "spec.ratio", R"(Invalid value: 0.7: spec.ratio in body should be a multiple of 0.5)"},
          {"FieldValueInvalid", "spec.xmin", R"(Invalid value: 1: spec.xmin in body should be greater than 1)"},
          {"FieldValueInvalid", "spec.tags", R"(Invalid value: 0: spec.tags in body should have at least 1 items)"},
          {"FieldValueInvalid", "spec.labels", R"(Invalid value: 0: spec.labels in body should have at least 1 properties)"}}},
        {R"({"size":"small","replicas":11,"name":"ab1","ratio":1.5,"labels":{"a":"x","b":"y","c":1}})",
         {{"FieldValueInvalid", "spec.replicas", R"(Invalid value: 11: spec.replicas in body should be less than or equal to 10)"},
          {"FieldValueInvalid", "spec.name", R"(Invalid value: "ab1": spec.name in body should match '^[a-z]+$')"},
          {"FieldValueTooMany", "spec.labels", R"(Too many: 3: must have at most 2 items)"}}},
        {R"({"size":"small","replicas":1.0,"ratio":1,"tags":["a"]})", {}},
    });
}

void types_nulls_and_int_or_string_get_kube_s_messages(void** /*state*/) {
    runCases({
        {R"({"replicas":1.5,"ratio":"1","nonnul":null,"nul":null,"ios":1.5,"iosp":"10","labels":{"a":1},"tags":"x"})",
         {{"FieldValueTypeInvalid", "spec.replicas", R"(Invalid value: "number": spec.replicas in body must be of type integer: "number")"},
          {"FieldValueTypeInvalid", "spec.ratio", R"(Invalid value: "string": spec.ratio in body must be of type number: "string")"},
          {"FieldValueTypeInvalid", "spec.ios", R"(Invalid value: "number": spec.ios in body must be of type integer,string: "number")"},
          {"FieldValueInvalid", "spec.iosp", R"(Invalid value: "10": spec.iosp in body should match '^[0-9]+%$')"},
          {"FieldValueTypeInvalid", "spec.labels.a", R"(Invalid value: "integer": spec.labels.a in body must be of type string: "integer")"},
          {"FieldValueTypeInvalid", "spec.tags", R"(Invalid value: "string": spec.tags in body must be of type array: "string")"},
          {"FieldValueRequired", "spec.size", R"(Required value)"}}},
        {R"({"size":"small","tags":[null,null]})",
         {{"FieldValueTypeInvalid", "spec.tags[0]", R"(Invalid value: "null": spec.tags[0] in body must be of type string: "null")"},
          {"FieldValueTypeInvalid", "spec.tags[1]", R"(Invalid value: "null": spec.tags[1] in body must be of type string: "null")"},
          {"FieldValueDuplicate", "spec.tags[1]", R"(Duplicate value: "null")"}}},
        {R"({"size":"small","ios":"x","iosp":"3%","nul":null})", {}},
    });
}

void formats_kube_checks_are_checked(void** /*state*/) {
    runCases({
        {R"({"size":"small","ios":true,"iosp":7,"ts":"yesterday","ip":"1.2.3","uid":"zz","dt":"2020-13-01","b64":"!!"})",
         {{"FieldValueTypeInvalid", "spec.ios", R"(Invalid value: "boolean": spec.ios in body must be of type integer,string: "boolean")"},
          {"FieldValueInvalid", "spec.iosp", R"(Invalid value: 7: spec.iosp in body should be less than or equal to 5)"},
          {"FieldValueTypeInvalid", "spec.ts", R"(Invalid value: "yesterday": spec.ts in body must be of type date-time: "yesterday")"},
          {"FieldValueTypeInvalid", "spec.ip", R"(Invalid value: "1.2.3": spec.ip in body must be of type ipv4: "1.2.3")"},
          {"FieldValueTypeInvalid", "spec.uid", R"(Invalid value: "zz": spec.uid in body must be of type uuid: "zz")"},
          {"FieldValueTypeInvalid", "spec.dt", R"(Invalid value: "2020-13-01": spec.dt in body must be of type date: "2020-13-01")"},
          {"FieldValueTypeInvalid", "spec.b64", R"(Invalid value: "!!": spec.b64 in body must be of type byte: "!!")"}}},
        {R"({"size":"small","ts":"2020-01-01T00:00:00Z","ip":"1.2.3.4","uid":"123e4567-e89b-12d3-a456-426614174000","dt":"2020-01-02","b64":"aGVsbG8="})", {}},
    });
}

void all_of_one_of_and_not_get_kube_s_messages(void** /*state*/) {
    runCases({
        {R"({"size":"small","oneof":{},"notx":"bad","allof":7})",
         {{"FieldValueInvalid", "<nil>", R"(Invalid value: "": "spec.oneof" must validate one and only one schema (oneOf). Found none valid)"},
          {"FieldValueRequired", "spec.oneof.a", R"(Required value)"},
          {"FieldValueInvalid", "<nil>", R"(Invalid value: "": "spec.notx" must not validate the schema (not))"},
          {"FieldValueInvalid", "spec.allof", R"(Invalid value: 7: spec.allof in body should be less than or equal to 4)"},
          {"FieldValueInvalid", "<nil>", R"(Invalid value: "": "spec.allof" must validate all the schemas (allOf))"}}},
        {R"({"size":"small","oneof":{"a":"1","b":"2"},"allof":1})",
         {{"FieldValueInvalid", "<nil>", R"(Invalid value: "": "spec.oneof" must validate one and only one schema (oneOf). Found 2 valid alternatives)"},
          {"FieldValueInvalid", "spec.allof", R"(Invalid value: 1: spec.allof in body should be greater than or equal to 2)"},
          {"FieldValueInvalid", "<nil>", R"(Invalid value: "": "spec.allof" must validate all the schemas (allOf))"}}},
        {R"({"size":"small","oneof":{"b":"2"},"notx":"good","allof":3})", {}},
    });
}

void embedded_resources_get_type_and_object_meta_checks(void** /*state*/) {
    runCases({
        {R"({"size":"small","template":{"kind":"Foo_Bar","apiVersion":"a/b/c","metadata":{"name":"Bad_Name","labels":{"a b":"c"},"namespace":"x"}},"emb":{"spec":{}}})",
         {{"FieldValueInvalid", "spec.template.apiVersion", R"(Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c)"},
          {"FieldValueInvalid", "spec.template.kind", R"(Invalid value: "Foo_Bar": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'))"},
          {"FieldValueInvalid", "spec.template.metadata.labels", R"(Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'))"},
          {"FieldValueRequired", "spec.emb.apiVersion", R"(Required value: must not be empty)"},
          {"FieldValueRequired", "spec.emb.kind", R"(Required value: must not be empty)"}}},
        {R"({"size":"small","template":{"kind":"","apiVersion":"","metadata":{"generateName":"x"}},"emb":{"kind":"K","apiVersion":"v1","metadata":{"name":"ok"}}})",
         {{"FieldValueInvalid", "spec.template.apiVersion", R"(Invalid value: "": must not be empty)"},
          {"FieldValueInvalid", "spec.template.kind", R"(Invalid value: "": must not be empty)"}}},
    });
}

void embedded_resources_of_the_wrong_type_are_refused_when_decoded(void** /*state*/) {
    json::Document d = widgetWithSpec(R"({"size":"small","template":{"kind":1,"apiVersion":"a/b/c"}})");
    auto err = ext::coerceCustomResource(widget(), d);
    assert_true(err.has_value());
    assert_string_equal(err->c_str(), "spec.template.kind: Invalid value: 1: must be a string");
    d = widgetWithSpec(R"({"size":"small","emb":{"kind":"","apiVersion":"v1","metadata":{"name":5}}})");
    err = ext::coerceCustomResource(widget(), d);
    assert_true(err.has_value());
    assert_string_equal(err->c_str(), R"(spec.emb.metadata: Invalid value: map[string]interface {}{"name":5}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string)");
    d = widgetWithSpec(R"({"size":"small","emb":{"kind":"A","apiVersion":"v1","metadata":{"name":"n"}}})");
    assert_false(ext::coerceCustomResource(widget(), d).has_value());
}

void list_sets_and_map_keys_must_be_unique(void** /*state*/) {
    runCases({
        {R"({"size":"small","ports":[{"port":1},{"port":1,"name":"x"},{"name":"y"},{"name":"z"},{"port":1}],"pairs":[{"a":"1"},{"a":"1","b":"x"},{"a":"2","b":"y"},{"a":"2","b":"y"}],"tags":["a","a"]})",
         {{"FieldValueRequired", "spec.ports[2].port", R"(Required value)"},
          {"FieldValueRequired", "spec.ports[3].port", R"(Required value)"},
          {"FieldValueDuplicate", "spec.ports[1]", R"(Duplicate value: map[string]interface {}{"port":1})"},
          {"FieldValueDuplicate", "spec.ports[3]", R"(Duplicate value: map[string]interface {}{})"},
          {"FieldValueDuplicate", "spec.pairs[1]", R"(Duplicate value: map[string]interface {}{"a":"1", "b":"x"})"},
          {"FieldValueDuplicate", "spec.pairs[3]", R"(Duplicate value: map[string]interface {}{"a":"2", "b":"y"})"},
          {"FieldValueDuplicate", "spec.tags[1]", R"(Duplicate value: "a")"}}},
        {R"({"size":"small","ports":[1]})",
         {{"FieldValueTypeInvalid", "spec.ports[0]", R"(Invalid value: "integer": spec.ports[0] in body must be of type object: "integer")"},
          {"FieldValueInvalid", "spec.ports[0]", R"(Invalid value: 1: must be an object for an array of list-type map)"}}},
    });
}
// clang-format on

void pruning_reports_unknown_fields_as_kube_warns(void** /*state*/) {
    json::Document d = widgetWithSpec(
        R"({"size":"small","zzz":1,"aaa":{"b":1},"list":[{"q":1},{"v":null},{"w":null},null],)"
        R"("nested":null,"defaulted":null,"free":{"x":{"y":1},"known":{"k":"a","j":2}},)"
        R"("template":{"kind":"A","apiVersion":"v1","spec":{"any":1},)"
        R"("metadata":{"name":"n","bogus":1}},"pairs":[{"a":"1"}],"labels":{"a":null},)"
        R"("nul":null,"ios":null})");
    std::vector<std::string> unknown = ext::pruneCustomResource(widget(), d);
    std::vector<std::string> want = {"spec.aaa", "spec.free.known.j", "spec.list[0].q", "spec.zzz",
                                     "spec.template.metadata.bogus"};
    assert_int_equal(unknown.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        assert_string_equal(unknown[i].c_str(), want[i].c_str());
    }
    ext::defaultCustomResource(widget(), d, d.GetAllocator());
    expectCauses(ext::validateCustomResource(widget(), d),
                 {{"FieldValueTypeInvalid", "spec.list[3]",
                   R"(Invalid value: "null": spec.list[3] in body must be of type object: "null")"},
                  {"FieldValueInvalid", "spec.labels",
                   R"(Invalid value: 0: spec.labels in body should have at least 1 properties)"}});
    // The root's apiVersion, kind and metadata stay; nothing else is pruned.
    assert_non_null(json::member(d, "apiVersion"));
    assert_non_null(json::member(d, "metadata"));
}

void defaults_fill_absent_fields_and_disallowed_nulls(void** /*state*/) {
    json::Document d = widgetWithSpec(
        R"({"size":"small","list":[{"q":1},{"v":null},{"w":null},{}],"nested":null,)"
        R"("defaulted":null,"free":{"x":{"y":1},"known":{"k":"a","j":2}},)"
        R"("template":{"kind":"A","apiVersion":"v1","spec":{"any":1},"metadata":{"name":"n"}},)"
        R"("pairs":[{"a":"1"}],"nul":null,"ios":null,"emb":{"kind":"A","apiVersion":"v1","spec":{}}})");
    ext::pruneCustomResource(widget(), d);
    ext::defaultCustomResource(widget(), d, d.GetAllocator());
    expectSpec(d, R"({"defaulted":"hello","emb":{"apiVersion":"v1","kind":"A","spec":{"x":3}},)"
                  R"("free":{"known":{"k":"a"},"x":{"y":1}},)"
                  R"("list":[{"v":7},{"v":7},{"v":7},{"v":7}],"nested":{"a":5,"nn":"dn"},)"
                  R"("nul":null,"pairs":[{"a":"1","b":"x"}],"size":"small",)"
                  R"("template":{"apiVersion":"v1","kind":"A","metadata":{"name":"n"},)"
                  R"("spec":{"any":1}}})");
    assert_true(ext::validateCustomResource(widget(), d).empty());

    // A nullable field keeps its null; an embedded resource without the
    // defaulted field's parent gets nothing.
    d = widgetWithSpec(
        R"({"size":"small","nested":{"nn":null},"emb":{"kind":"A","apiVersion":"v1"}})");
    ext::pruneCustomResource(widget(), d);
    ext::defaultCustomResource(widget(), d, d.GetAllocator());
    expectSpec(d, R"({"defaulted":"hello","emb":{"apiVersion":"v1","kind":"A"},)"
                  R"("nested":{"a":5,"nn":null},"size":"small"})");
}

// A schema whose defaults carry unknown fields: they are pruned when the
// schema is compiled (PruneDefaults), so a defaulted object has none.
void defaults_are_pruned_when_compiled(void** /*state*/) {
    json::Document schema = parse(
        R"({"type":"object","properties":{"spec":{"type":"object","default":{"a":1,"zz":2},)"
        R"("properties":{"a":{"type":"integer"},"l":{"type":"array","items":{"type":"object",)"
        R"("properties":{"p":{"type":"integer"}}},"default":[{"p":1,"q":2}]}}}}})");
    auto s = ext::compileStructuralSchema(schema);
    json::Document d = parse(R"({"apiVersion":"x/v1","kind":"X","metadata":{}})");
    ext::defaultCustomResource(*s, d, d.GetAllocator());
    expectSpec(d, R"({"a":1,"l":[{"p":1}]})");
}

// Objects nested to the decoder's limit, in a schema that lets them in,
// and a schema nested thousands deep: the walks finish (on a stack for
// them) instead of overflowing the worker's.
void deep_objects_and_schemas_do_not_overflow_the_stack(void** /*state*/) {
    json::Document schema =
        parse(R"({"type":"object","properties":{"spec":{"type":"object",)"
              R"("properties":{"a":{"type":"array","items":{"type":"array","items":{}}}},)"
              R"("x-kubernetes-preserve-unknown-fields":true}}})");
    auto s = ext::compileStructuralSchema(schema);
    std::string deep = R"({"apiVersion":"x/v1","kind":"X","metadata":{},"spec":{"free":)";
    for (int i = 0; i < 9990; ++i) {
        deep += i % 2 ? "[" : "{\"k\":";
    }
    for (int i = 9989; i >= 0; --i) {
        deep += i % 2 ? "]" : "}";
    }
    deep += R"(,"a":[[)";
    for (int i = 0; i < 9990; ++i) {
        deep += "[";
    }
    deep += std::string(9990, ']') + "]]}}";
    json::Document d = parse(deep);
    std::vector<std::string> unknown = ext::pruneCustomResource(*s, d);
    assert_true(unknown.empty());
    ext::defaultCustomResource(*s, d, d.GetAllocator());
    (void)ext::validateCustomResource(*s, d);

    // properties 3000 deep, and an object as deep, with an unknown field at
    // the bottom and a type error.
    std::string nested = R"({"type":"object","properties":{"spec":)";
    for (int i = 0; i < 3000; ++i) {
        nested += R"({"type":"object","properties":{"n":)";
    }
    nested += R"({"type":"integer","default":1})";
    for (int i = 0; i < 3000; ++i) {
        nested += "}}";
    }
    nested += "}}";
    json::Document deepSchema = parse(nested);
    s = ext::compileStructuralSchema(deepSchema);
    std::string obj = R"({"apiVersion":"x/v1","kind":"X","metadata":{},"spec":)";
    for (int i = 0; i < 3000; ++i) {
        obj += R"({"n":)";
    }
    obj += R"({"u":1})";
    obj += std::string(3000, '}') + "}";
    d = parse(obj);
    unknown = ext::pruneCustomResource(*s, d);
    assert_int_equal(unknown.size(), 1);
    assert_true(unknown[0].size() > 3000 * 2);
    ext::defaultCustomResource(*s, d, d.GetAllocator());
    kube::apis::core::field::Causes causes = ext::validateCustomResource(*s, d);
    assert_int_equal(causes.size(), 1);
    assert_string_equal(causes[0].reason.c_str(), "FieldValueTypeInvalid");
}

// Compiled once, a 100-field object is validated in microseconds.
void a_hundred_fields_validate_in_microseconds(void** /*state*/) {
    std::string schema = R"({"type":"object","properties":{"spec":{"type":"object","properties":{)";
    std::string spec = "{";
    for (int i = 0; i < 100; ++i) {
        std::string n = "f" + std::to_string(i);
        schema += (i ? "," : "") + std::string("\"") + n + "\":" +
                  (i % 3 == 0   ? R"({"type":"integer","minimum":0,"maximum":1000})"
                   : i % 3 == 1 ? R"({"type":"string","maxLength":20,"pattern":"^[a-z0-9]+$"})"
                                : R"({"type":"array","items":{"type":"string"}})");
        spec += (i ? "," : "") + std::string("\"") + n + "\":" +
                (i % 3 == 0   ? std::to_string(i)
                 : i % 3 == 1 ? "\"v" + n + "\""
                              : "[\"a\",\"b\"]");
    }
    schema += "}}}}";
    spec += "}";
    json::Document sd = parse(schema);
    auto s = ext::compileStructuralSchema(sd);
    json::Document d =
        parse(R"({"apiVersion":"x/v1","kind":"X","metadata":{},"spec":)" + spec + "}");
    constexpr int kRounds = 2000;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRounds; ++i) {
        ext::pruneCustomResource(*s, d);
        ext::defaultCustomResource(*s, d, d.GetAllocator());
        assert_true(ext::validateCustomResource(*s, d).empty());
    }
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                    .count() /
                kRounds;
    fprintf(stderr, "100 fields: prune + default + validate in %.1f us\n", us);
    assert_true(us < 2000);
}

// clang-format off
// A CRD whose defaults do not fit their schemas: kube 1.26.5's causes (its
// order of properties is random; here they come by name), after the
// structural checks and before the OpenAPI rules' own.
void crd_defaults_must_validate_and_be_pruned(void** /*state*/) {
    json::Document schema = parse(
        R"({"type":"object","properties":{"spec":{"type":"object","default":{"replicas":"x","zz":1})"
        R"(,"properties":{"replicas":{"type":"integer","default":"three","minimum":1},"low":{"type")"
        R"(:"integer","default":0,"minimum":1},"name":{"type":"string","default":"ab","minLength":3)"
        R"(},"obj":{"type":"object","default":{"a":1,"b":{"c":1}},"properties":{"a":{"type":"string)"
        R"("}}},"list":{"type":"array","default":[1],"items":{"type":"string"}},"items":{"type":"ar)"
        R"(ray","items":{"type":"object","default":{"q":1},"properties":{"p":{"type":"integer"}}}},)"
        R"("e":{"type":"string","enum":["a"],"default":"b"},"emb":{"type":"object","x-kubernetes-em)"
        R"(bedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"default":{"kind":1,"a)"
        R"(piVersion":"v1"}},"emb2":{"type":"object","x-kubernetes-embedded-resource":true,"x-kuber)"
        R"(netes-preserve-unknown-fields":true,"default":{"apiVersion":"v1"}}}},"metadata":{"type":)"
        R"("object","properties":{"name":{"type":"string","default":"Bad/Name"}}}}})");
    kube::apis::core::field::Causes causes;
    ext::validateSchema(schema, "spec.validation.openAPIV3Schema", ext::SchemaOptions{}, causes);
    const std::string p = "spec.validation.openAPIV3Schema.properties[spec]";
    std::vector<std::pair<std::string, std::string>> want = {
        {"spec.validation.openAPIV3Schema.properties[metadata].properties[name].default", R"(Invalid value: "Bad/Name": must result in valid metadata: metadata.name: Invalid value: "Bad/Name": may not contain '/')"},
        {p + ".default", R"(Invalid value: map[string]interface {}{"replicas":"x", "zz":1}: must not have unknown fields)"},
        {p + ".default.replicas", R"(Invalid value: "string": replicas in body must be of type integer: "string")"},
        {p + ".properties[e].default", R"(Unsupported value: "b": supported values: "a")"},
        {p + ".properties[emb].default.kind", R"(Invalid value: 1: must be a string)"},
        {p + ".properties[emb2].default.kind", R"(Required value: must not be empty)"},
        {p + ".properties[items].items.default", R"(Invalid value: map[string]interface {}{"q":1}: must not have unknown fields)"},
        {p + ".properties[list].default.[0]", R"(Invalid value: "integer": [0] in body must be of type string: "integer")"},
        {p + ".properties[low].default", R"(Invalid value: 0:  in body should be greater than or equal to 1)"},
        {p + ".properties[name].default", R"(Invalid value: "ab":  in body should be at least 3 chars long)"},
        {p + ".properties[obj].default", R"(Invalid value: map[string]interface {}{"a":1, "b":map[string]interface {}{"c":1}}: must not have unknown fields)"},
        {p + ".properties[obj].default.a", R"(Invalid value: "integer": a in body must be of type string: "integer")"},
        {p + ".properties[replicas].default", R"(Invalid value: "string":  in body must be of type integer: "string")"},
        {"spec.validation.openAPIV3Schema.properties[metadata].properties[name].default", R"(Forbidden: must not be set in top-level metadata)"},
    };
    bool same = causes.size() == want.size();
    for (size_t i = 0; same && i < want.size(); ++i) {
        same = causes[i].field == want[i].first && causes[i].message == want[i].second;
    }
    if (!same) {
        for (const auto& c : causes) {
            fprintf(stderr, "got:  %s: %s\n", c.field.c_str(), c.message.c_str());
        }
        fail();
    }
}
// clang-format on

// clang-format off
// kube-openapi's conversions: an integer is held to a bound cut to an
// integer, a float matches an integer enum value by conversion, a nullable
// enum still refuses null, the int-or-string anyOf reports its branch.
void numbers_and_enums_compare_as_kube_openapi_converts_them(void** /*state*/) {
    json::Document schema = parse(
        R"({"type":"object","required":["spec"],"properties":{"spec":{"type":"object","properties":{)"
        R"("e":{"type":"string","nullable":true,"enum":["a"]},)"
        R"("ios2":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},)"
        R"("num":{"type":"number","minimum":1,"multipleOf":2},"intmax":{"type":"integer","maximum":1.5},)"
        R"("en":{"type":"integer","enum":[1,2]}}}}})");
    auto s = ext::compileStructuralSchema(schema);
    json::Document d = parse(R"({"apiVersion":"st.example.com/v1","kind":"Thing","metadata":{"name":"x"},)"
                             R"("spec":{"e":null,"ios2":true,"num":3,"intmax":2,"en":1.0}})");
    expectCauses(decodeAndValidate(*s, d),
                 {{"FieldValueNotSupported", "spec.e", R"(Unsupported value: "null": supported values: "a")"},
                  {"FieldValueTypeInvalid", "spec.ios2", R"(Invalid value: "boolean": spec.ios2 in body must be of type integer,string: "boolean")"},
                  {"FieldValueInvalid", "<nil>", R"(Invalid value: "": "spec.ios2" must validate at least one schema (anyOf))"},
                  {"FieldValueTypeInvalid", "spec.ios2", R"(Invalid value: "boolean": spec.ios2 in body must be of type integer: "boolean")"},
                  {"FieldValueInvalid", "spec.num", R"(Invalid value: 3: spec.num in body should be a multiple of 2)"},
                  {"FieldValueInvalid", "spec.intmax", R"(Invalid value: 2: spec.intmax in body should be less than or equal to 1)"}});
    d = parse(R"({"apiVersion":"st.example.com/v1","kind":"Thing","metadata":{"name":"x"},)"
              R"("spec":{"e":"b","num":0.5,"en":3}})");
    expectCauses(decodeAndValidate(*s, d),
                 {{"FieldValueNotSupported", "spec.e", R"(Unsupported value: "b": supported values: "a")"},
                  {"FieldValueInvalid", "spec.num", R"(Invalid value: 0.5: spec.num in body should be a multiple of 2)"},
                  {"FieldValueInvalid", "spec.num", R"(Invalid value: 0.5: spec.num in body should be greater than or equal to 1)"},
                  {"FieldValueNotSupported", "spec.en", R"(Unsupported value: 3: supported values: "1", "2")"}});
    d = parse(R"({"apiVersion":"st.example.com/v1","kind":"Thing","metadata":{"name":"x"}})");
    expectCauses(decodeAndValidate(*s, d), {{"FieldValueRequired", "spec", "Required value"}});
}
// clang-format on

// A null item or additionalProperties value takes its schema's default;
// additionalProperties: false keeps the field (nothing prunes it) and
// refuses it.
void item_and_map_value_defaults_and_forbidden_properties(void** /*state*/) {
    json::Document schema =
        parse(R"({"type":"object","properties":{"spec":{"type":"object","properties":{)"
              R"("l":{"type":"array","items":{"type":"string","default":"dflt"}},)"
              R"("m":{"type":"object","additionalProperties":{"type":"integer","default":9}},)"
              R"("o":{"type":"object","additionalProperties":false}}}}})");
    auto s = ext::compileStructuralSchema(schema);
    json::Document d = parse(R"({"apiVersion":"st.example.com/v1","kind":"Box","metadata":{},)"
                             R"("spec":{"l":["a",null],"m":{"a":null,"b":1}}})");
    expectCauses(decodeAndValidate(*s, d), {});
    expectSpec(d, R"({"l":["a","dflt"],"m":{"a":9,"b":1}})");
    d = parse(R"({"apiVersion":"st.example.com/v1","kind":"Box","metadata":{},)"
              R"("spec":{"o":{"x":1}}})");
    assert_true(ext::pruneCustomResource(*s, d).empty());
    expectCauses(ext::validateCustomResource(*s, d),
                 {{"FieldValueInvalid", "spec.o",
                   R"(Invalid value: "x": spec.o.x in body is a forbidden property)"}});
}

// An update keeps accepting defaults that are not pruned when the stored CRD
// already had such defaults (kube's requirePrunedDefaults); a create never.
void unpruned_defaults_stay_acceptable_on_update_only_when_stored(void** /*state*/) {
    auto crd = [](const char* dflt) {
        return parse(
            R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
            R"("metadata":{"name":"widgets.h.example.com"},"spec":{"group":"h.example.com",)"
            R"("names":{"plural":"widgets","kind":"Widget"},"scope":"Namespaced","versions":[)"
            R"({"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{)"
            R"("type":"object","properties":{"spec":{"type":"object","default":)" +
            std::string(dflt) +
            R"(,"properties":{"a":{"type":"integer"}}}}}}}]},)"
            R"("status":{"storedVersions":["v1"]}})");
    };
    json::Document unpruned = crd(R"({"a":1,"zz":2})");
    json::Document pruned = crd(R"({"a":1})");
    const std::string field = "spec.validation.openAPIV3Schema.properties[spec].default";
    auto hasUnknownFieldsCause = [&](const kube::apis::core::field::Causes& causes) {
        for (const auto& c : causes) {
            if (c.field == field &&
                c.message.find("must not have unknown fields") != std::string::npos) {
                return true;
            }
        }
        return false;
    };
    assert_true(hasUnknownFieldsCause(ext::validateCustomResourceDefinition(unpruned)));
    assert_true(
        hasUnknownFieldsCause(ext::validateCustomResourceDefinitionUpdate(unpruned, pruned)));
    assert_false(
        hasUnknownFieldsCause(ext::validateCustomResourceDefinitionUpdate(unpruned, unpruned)));
    assert_false(hasUnknownFieldsCause(ext::validateCustomResourceDefinition(pruned)));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bounds_lengths_enums_and_counts_get_kube_s_messages),
        cmocka_unit_test(types_nulls_and_int_or_string_get_kube_s_messages),
        cmocka_unit_test(formats_kube_checks_are_checked),
        cmocka_unit_test(all_of_one_of_and_not_get_kube_s_messages),
        cmocka_unit_test(embedded_resources_get_type_and_object_meta_checks),
        cmocka_unit_test(embedded_resources_of_the_wrong_type_are_refused_when_decoded),
        cmocka_unit_test(list_sets_and_map_keys_must_be_unique),
        cmocka_unit_test(pruning_reports_unknown_fields_as_kube_warns),
        cmocka_unit_test(defaults_fill_absent_fields_and_disallowed_nulls),
        cmocka_unit_test(defaults_are_pruned_when_compiled),
        cmocka_unit_test(deep_objects_and_schemas_do_not_overflow_the_stack),
        cmocka_unit_test(a_hundred_fields_validate_in_microseconds),
        cmocka_unit_test(crd_defaults_must_validate_and_be_pruned),
        cmocka_unit_test(numbers_and_enums_compare_as_kube_openapi_converts_them),
        cmocka_unit_test(item_and_map_value_defaults_and_forbidden_properties),
        cmocka_unit_test(unpruned_defaults_stay_acceptable_on_update_only_when_stored),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
