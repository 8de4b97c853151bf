// Server-side apply's field paths and sets (registry/apply): path elements
// named and written as kube does, the set algebra of fieldpath.Set, and the
// FieldsV1 encoding, checked against managedFields recorded from
// kube-apiserver 1.26.
#include <string>

#include "apply_recorded.hpp"
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

namespace {

namespace json = kube::util::json;
using kube::registry::apply::FieldSet;
using kube::registry::apply::ItemValue;
using kube::registry::apply::Managers;
using kube::registry::apply::Path;
using kube::registry::apply::PathElement;

PathElement f(const char* name) {
    return PathElement::field(name);
}

PathElement key(const char* name, const char* value) {
    json::Document d;
    d.SetString(value, d.GetAllocator());
    return PathElement::keyed({{name, ItemValue::from(d)}});
}

FieldSet parseSet(const std::string& text) {
    json::Document d;
    assert_false(json::parse(text, d).has_value());
    std::string error;
    auto s = kube::registry::apply::fromFieldsV1(d, &error);
    if (!s) {
        fail_msg("%s", error.c_str());
    }
    return *s;
}

void path_elements_are_written_and_read_as_kube_does(void**) {
    json::Document d;
    assert_false(json::parse(R"({"protocol":"TCP","containerPort":80})", d).has_value());
    std::vector<kube::registry::apply::KeyField> fields;
    for (const auto& m : d.GetObject()) {
        fields.push_back({m.name.GetString(), ItemValue::from(m.value)});
    }
    PathElement port = PathElement::keyed(fields);
    // Key fields sorted by name; strings quoted, numbers bare.
    assert_string_equal(port.serialize().c_str(), R"(k:{"containerPort":80,"protocol":"TCP"})");
    assert_string_equal(port.toString().c_str(), R"([containerPort=80,protocol="TCP"])");
    assert_string_equal(f("spec").serialize().c_str(), "f:spec");
    assert_string_equal(f("spec").toString().c_str(), ".spec");

    d.SetString("a<b", d.GetAllocator());
    PathElement v = PathElement::ofValue(ItemValue::from(d));
    assert_string_equal(v.serialize().c_str(), R"(v:"a\u003cb")");  // Go's JSON escapes <
    assert_string_equal(v.toString().c_str(), R"([="a<b"])");
    assert_string_equal(PathElement::ofIndex(3).serialize().c_str(), "i:3");
    assert_string_equal(PathElement::ofIndex(3).toString().c_str(), "[3]");

    std::string error;
    for (const char* s : {"f:spec", R"(k:{"containerPort":80,"protocol":"TCP"})", "v:\"x\"", "v:12",
                          "v:true", "i:7"}) {
        auto pe = PathElement::parse(s, &error);
        assert_true(pe.has_value());
        assert_string_equal(pe->serialize().c_str(), s);
    }
    // Keys in any order read as the same element.
    auto reordered = PathElement::parse(R"(k:{"protocol":"TCP","containerPort":80})", &error);
    assert_true(reordered.has_value() && *reordered == port);

    assert_false(PathElement::parse("f", &error).has_value());
    assert_string_equal(error.c_str(), "key must be 2 characters long:");
    assert_false(PathElement::parse("fx", &error).has_value());
    assert_string_equal(error.c_str(), "missing colon: fx");
    assert_false(PathElement::parse("i:x", &error).has_value());
    assert_string_equal(error.c_str(), "strconv.Atoi: parsing \"x\": invalid syntax");
    assert_false(PathElement::parse("k:{\"a\"", &error).has_value());
    bool unknown = false;
    assert_false(PathElement::parse("z:x", &error, &unknown).has_value());
    assert_true(unknown);
}

void path_elements_order_by_kind_then_value(void**) {
    // Fields, then keys, then values, then indexes; numbers before strings.
    json::Document n;
    n.SetInt64(5);
    json::Document s;
    s.SetString("5", s.GetAllocator());
    assert_true(f("z") < key("a", "a"));
    assert_true(key("a", "a") < PathElement::ofValue(ItemValue::from(n)));
    assert_true(PathElement::ofValue(ItemValue::from(n)) <
                PathElement::ofValue(ItemValue::from(s)));
    assert_true(PathElement::ofValue(ItemValue::from(s)) < PathElement::ofIndex(0));
    // A shorter key first, then by name and value.
    assert_true(key("name", "a") < key("name", "b"));
    json::Document d;
    n.SetDouble(5.0);
    assert_true(ItemValue::from(n) == ItemValue::from(json::Value(int64_t{5})));
}

void sets_union_intersect_and_subtract(void**) {
    FieldSet a;
    a.insert({f("spec"), f("replicas")});
    a.insert({f("spec"), f("template"), f("spec"), f("containers"), key("name", "c")});
    a.insert({f("spec"), f("template"), f("spec"), f("containers"), key("name", "c"), f("image")});
    a.insert({f("metadata"), f("labels"), f("app")});
    FieldSet b;
    b.insert({f("spec"), f("replicas")});
    b.insert({f("metadata"), f("labels"), f("tier")});

    assert_int_equal(a.size(), 4);
    assert_true(a.has({f("spec"), f("replicas")}));
    assert_false(a.has({f("spec")}));  // only a prefix

    FieldSet u = a.unionWith(b);
    assert_int_equal(u.size(), 5);
    assert_true(u.has({f("metadata"), f("labels"), f("tier")}));
    assert_true(u == b.unionWith(a));

    FieldSet i = a.intersection(b);
    assert_int_equal(i.size(), 1);
    assert_true(i.has({f("spec"), f("replicas")}));
    // No empty children are left behind.
    assert_int_equal(i.children().size(), 1);

    FieldSet d = a.difference(b);
    assert_int_equal(d.size(), 3);
    assert_false(d.has({f("spec"), f("replicas")}));
    assert_true(b.difference(b).empty());

    // Recursive difference also drops whatever is below a member.
    FieldSet container;
    container.insert({f("spec"), f("template"), f("spec"), f("containers"), key("name", "c")});
    FieldSet r = a.recursiveDifference(container);
    assert_int_equal(r.size(), 2);
    assert_int_equal(a.difference(container).size(), 3);

    // Leaves: members with nothing below them.
    FieldSet l = a.leaves();
    assert_int_equal(l.size(), 3);
    assert_false(l.has({f("spec"), f("template"), f("spec"), f("containers"), key("name", "c")}));

    assert_string_equal(b.toString().c_str(), ".metadata.labels.tier\n.spec.replicas");
}

void fields_v1_round_trips_what_kube_wrote(void**) {
    int entries = 0;
    for (const char* object : {apply_recorded::kApplied, apply_recorded::kScaled,
                               apply_recorded::kForced, apply_recorded::kReapplied}) {
        json::Document d;
        assert_false(json::parse(object, d).has_value());
        const json::Value* list = json::at(d, {"metadata", "managedFields"});
        assert_non_null(list);
        for (const json::Value& e : list->GetArray()) {
            const json::Value* v1 = json::member(e, "fieldsV1");
            std::string error;
            auto set = kube::registry::apply::fromFieldsV1(*v1, &error);
            assert_true(set.has_value());
            assert_string_equal(kube::registry::apply::toFieldsV1Json(*set).c_str(),
                                json::serialize(*v1).c_str());
            ++entries;
        }
        // The whole list: decoded and encoded again, order and members as kube's.
        Managers managers;
        assert_false(kube::registry::apply::decodeManagedFields(list, managers).has_value());
        json::Document out;
        json::Value encoded =
            kube::registry::apply::encodeManagedFields(managers, out.GetAllocator());
        assert_string_equal(json::serialize(encoded).c_str(), json::serialize(*list).c_str());
    }
    assert_int_equal(entries, 10);
}

void fields_v1_marks_nodes_that_are_members_with_a_dot(void**) {
    FieldSet s = parseSet(R"({"f:data":{".":{},"f:j":{},"f:k":{}}})");
    assert_true(s.has({f("data")}));
    assert_true(s.has({f("data"), f("k")}));
    assert_int_equal(s.size(), 3);
    // Without ".", a node with children is not a member; a leaf always is.
    FieldSet t = parseSet(R"({"f:data":{"f:k":{}},"f:x":{}})");
    assert_false(t.has({f("data")}));
    assert_true(t.has({f("x")}));
    // Keys out of order are read all the same; written back sorted.
    FieldSet u = parseSet(R"({"f:b":{},"f:a":{"f:y":{},"f:x":{}}})");
    assert_string_equal(kube::registry::apply::toFieldsV1Json(u).c_str(),
                        R"({"f:a":{"f:x":{},"f:y":{}},"f:b":{}})");
    // Unknown kinds are skipped; a malformed key or a non-object fails.
    FieldSet w = parseSet(R"({"z:what":{},"f:a":{}})");
    assert_int_equal(w.size(), 1);
    json::Document d;
    std::string error;
    assert_false(json::parse(R"({"fa":{}})", d).has_value());
    assert_false(kube::registry::apply::fromFieldsV1(d, &error).has_value());
    assert_string_equal(error.c_str(), "parsing key as path element: missing colon: fa");
    assert_false(json::parse(R"({"f:a":1})", d).has_value());
    assert_false(kube::registry::apply::fromFieldsV1(d, &error).has_value());
}

void managed_fields_entries_are_checked_as_kube_checks_them(void**) {
    struct Case {
        const char* list;
        const char* error;
    } cases[] = {
        {R"([{"manager":"m","operation":"Patch","apiVersion":"v1","fieldsType":"FieldsV1"}])",
         "operation must be `Apply` or `Update`"},
        {R"([{"manager":"m","operation":"Update","fieldsType":"FieldsV1"}])",
         "apiVersion must not be empty"},
        {R"([{"manager":"m","operation":"Update","apiVersion":"v1"}])",
         "missing fieldsType in managed fields entry 0"},
        {R"([{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV2"}])",
         "invalid fieldsType \"FieldsV2\" in managed fields entry 0"},
    };
    for (const Case& c : cases) {
        json::Document d;
        assert_false(json::parse(c.list, d).has_value());
        Managers m;
        auto err = kube::registry::apply::decodeManagedFields(&d, m);
        assert_true(err.has_value());
        assert_string_equal(err->c_str(), c.error);
    }
    // Same manager, operation Apply, two apiVersions: one identity.
    json::Document d;
    assert_false(json::parse(R"([
        {"manager":"m","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:a":{}}},
        {"manager":"m","operation":"Apply","apiVersion":"v2","fieldsType":"FieldsV1","fieldsV1":{"f:b":{}}},
        {"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:c":{}}}])",
                             d)
                     .has_value());
    Managers m;
    assert_false(kube::registry::apply::decodeManagedFields(&d, m).has_value());
    assert_int_equal(m.size(), 2);
    assert_int_equal(m.count(R"({"manager":"m","operation":"Apply"})"), 1);
    assert_int_equal(m.count(R"({"manager":"m","operation":"Update","apiVersion":"v1"})"), 1);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(path_elements_are_written_and_read_as_kube_does),
        cmocka_unit_test(path_elements_order_by_kind_then_value),
        cmocka_unit_test(sets_union_intersect_and_subtract),
        cmocka_unit_test(fields_v1_round_trips_what_kube_wrote),
        cmocka_unit_test(fields_v1_marks_nodes_that_are_members_with_a_dot),
        cmocka_unit_test(managed_fields_entries_are_checked_as_kube_checks_them),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
