// client-go's JSONPath as kube evaluates a CRD's printer columns: what each
// expression selects, what fails, and how selected values print. The
// expected values are kube-apiserver 1.26.5's answers for the same paths
// and objects (Table cells of a CRD's string columns).
#include <string>
#include <vector>

#include "util/json.hpp"
#include "util/json_path.hpp"

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
using kube::util::JsonPath;
using kube::util::jsonPathText;

const char* kObject = R"({
  "metadata": {"name": "t1", "labels": {"app": "web"}},
  "spec": {
    "replicas": 3, "ratio": 2.75, "ok": true, "nothing": null, "a.b": "dot",
    "l": [{"name": "n1", "n": 1}, {"name": "n2", "n": 2}, {"name": "n3"}],
    "m": {"z": 1, "y": "two"},
    "k": [{"name": "a", "n": 1}, {"name": "b", "n": 2}],
    "obj": {"k": "v", "a": [1, 2.0], "h": "<&>"}
  },
  "status": {"conditions": [
    {"type": "Other", "status": "X"},
    {"type": "Ready", "status": "True"},
    {"type": "Ready", "status": "Again"}
  ]}
})";

json::Document object() {
    json::Document d;
    assert_false(json::parse(kObject, d).has_value());
    return d;
}

// The first node's values printed and joined by spaces; "<error>" when the
// evaluation fails, "<parse: msg>" when the path does not parse.
std::string eval(const std::string& path, const json::Value& data) {
    JsonPath p = JsonPath::parse("{" + path + "}");
    if (!p.valid()) {
        return "<parse: " + p.error() + ">";
    }
    std::optional<JsonPath::Results> r = p.findResults(data);
    if (!r) {
        return "<error>";
    }
    std::string out;
    for (const json::Value* v : r->front()) {
        out += (out.empty() ? "" : " ") + jsonPathText(*v);
    }
    return out;
}

void fields_indexes_and_slices_select_like_client_go(void**) {
    json::Document d = object();
    struct Case {
        const char* path;
        const char* want;
    } cases[] = {
        {".spec.replicas", "3"},
        {".metadata.labels.app", "web"},
        {".spec.l[0].name", "n1"},
        {".spec.l[-1].name", "n3"},
        {".spec.l[1:].name", "n2 n3"},
        {".spec.l[:2].name", "n1 n2"},
        {".spec.l[*].name", "n1 n2 n3"},
        {".spec.l[0,2].name", "n1 n3"},
        {".spec.l[].name", "n1"},  // [] is [0]
        {".spec.m.*", "1 two"},
        {".spec['replicas']", "3"},
        {".spec['a.b']", ""},  // the key's dot still separates fields
        {".spec.a\\.b", "dot"},
        {"$.spec.replicas", "3"},
        {".spec.missing", ""},
        {".spec.missing.deeper[0]", ""},
        {".spec.l.name", ""},  // a field of a list selects nothing
        {".spec.nothing", "<no value>"},
        {".spec.nothing.below", ""},
        {".spec.l[0:0]", ""},
    };
    for (const Case& c : cases) {
        assert_string_equal(eval(c.path, d).c_str(), c.want);
    }
}

void filters_compare_values_of_one_kind(void**) {
    json::Document d = object();
    struct Case {
        const char* path;
        const char* want;
    } cases[] = {
        {".status.conditions[?(@.type==\"Ready\")].status", "True Again"},
        {".status.conditions[?(@.type=='Other')].status", "X"},
        {".status.conditions[?(@.type!=\"Ready\")].status", "X"},
        {".status.conditions[?(@.type==\"None\")].status", ""},
        {".spec.l[?(@.n)].name", "n1 n2"},      // exists
        {".spec.l[?(@.n>1)].name", "<error>"},  // n3 has no n: one value is needed
        {".spec.k[?(@.n>1)].name", "b"},        // ints against an int
        {".spec.k[?(@.n>=1)].name", "a b"},
        {".spec.k[?(@.n<1.5)].name", "<error>"},  // an int is no float
        {".spec.k[?(@.name<\"b\")].name", "a"},
        {".spec.l[0:2][?(@.n>1)]", "<error>"},  // filtering the elements, not a list
        {".spec[?(@.x==1)]", "<error>"},        // filtering an object
        {"..name", "t1 n1 n2 n3 a b"},          // recursive descent, document order
        {".spec..n", "1 2 1 2"},
    };
    for (const Case& c : cases) {
        assert_string_equal(eval(c.path, d).c_str(), c.want);
    }
}

void out_of_range_and_non_lists_fail(void**) {
    json::Document d = object();
    const char* failing[] = {
        ".spec.l[9].name",        // index out of bounds
        ".spec.l[-9].name",       // before the start
        ".spec.l[2:1]",           // bounds that cross
        ".spec.m[0]",             // indexing an object
        ".spec.replicas[0]",      // indexing a number
        ".spec.k[?(@.n==true)]",  // client-go cannot evaluate a bool literal
    };
    for (const char* path : failing) {
        assert_string_equal(eval(path, d).c_str(), "<error>");
    }
}

void syntax_errors_are_reported(void**) {
    struct Case {
        const char* text;
        const char* error;
    } cases[] = {
        {"{.a", "unclosed action"},
        {"{.a[0}", "unterminated array"},
        {"{.a[x]}", "invalid array index x"},
        {"{.a[-]}", "array index - is not a number"},
        {"{.a[?(@.b==1}", "unterminated filter"},
        {"{.a[?(@.b==1)x}", "unclosed array expect ]"},
        {"{.a....b}", "invalid multiple recursive descent"},
        {"{\"abc}", "unterminated quoted string"},
        {"{.a %}", "unrecognized character in action: '%'"},
    };
    for (const Case& c : cases) {
        JsonPath p = JsonPath::parse(c.text);
        assert_false(p.valid());
        assert_string_equal(p.error().c_str(), c.error);
    }
    // Text around actions is kept as text nodes.
    JsonPath p = JsonPath::parse("name: {.metadata.name} ok");
    assert_true(p.valid());
    json::Document d = object();
    auto r = p.findResults(d);
    assert_true(r.has_value());
    assert_int_equal(r->size(), 3);
    assert_string_equal(jsonPathText(*(*r)[0][0]).c_str(), "name: ");
    assert_string_equal(jsonPathText(*(*r)[1][0]).c_str(), "t1");
    // A long path parses and evaluates without recursion per token.
    std::string longPath;
    for (int i = 0; i < 100000; ++i) {
        longPath += ".a";
    }
    assert_true(JsonPath::parse("{" + longPath + "}").valid());
    // Filters nest only so deep.
    std::string nested = ".a";
    for (int i = 0; i < 100; ++i) {
        nested = ".a[?(@" + nested + ")]";
    }
    assert_false(JsonPath::parse("{" + nested + "}").valid());
}

std::string text(const char* json) {
    json::Document d;
    assert_false(json::parse(json, d).has_value());
    return jsonPathText(d);
}

// kube-apiserver 1.26.5's string cells for these values of .spec.v.
void values_print_as_go_prints_them(void**) {
    assert_string_equal(text("null").c_str(), "<no value>");
    assert_string_equal(text("true").c_str(), "true");
    assert_string_equal(text("1.5").c_str(), "1.5");
    assert_string_equal(text("1e20").c_str(), "1e+20");
    assert_string_equal(text("1.0").c_str(), "1");
    assert_string_equal(text("123456789012").c_str(), "123456789012");
    assert_string_equal(text("0.000001").c_str(), "1e-06");
    assert_string_equal(text("1e-7").c_str(), "1e-07");
    assert_string_equal(text("-0").c_str(), "0");
    assert_string_equal(text("12345678901234567890").c_str(), "1.2345678901234567e+19");
    assert_string_equal(text("100000000000000000000000").c_str(), "1e+23");
    assert_string_equal(text("123456.5").c_str(), "123456.5");
    assert_string_equal(text("1234567.5").c_str(), "1.2345675e+06");
    assert_string_equal(text("0.0001").c_str(), "0.0001");
    assert_string_equal(text("\"x\"").c_str(), "x");
    assert_string_equal(text("[1,\"a<b\"]").c_str(), "[1,\"a\\u003cb\"]");
    assert_string_equal(text("{\"k\":\"v\",\"a\":[1,2.0]}").c_str(), "{\"a\":[1,2],\"k\":\"v\"}");
    // encoding/json's numbers inside objects and arrays.
    assert_string_equal(text("[1e20,1e21,1e-7,0.5,-2.5e-9]").c_str(),
                        "[100000000000000000000,1e+21,1e-7,0.5,-2.5e-9]");
    assert_string_equal(text("{\"s\":\"\\n\\t\\u0001&\\u2028\"}").c_str(),
                        "{\"s\":\"\\n\\t\\u0001\\u0026\\u2028\"}");
    // Deeply nested values print without recursion.
    std::string deep(9000, '[');
    deep += std::string(9000, ']');
    assert_string_equal(text(deep.c_str()).c_str(), deep.c_str());
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fields_indexes_and_slices_select_like_client_go),
        cmocka_unit_test(filters_compare_values_of_one_kind),
        cmocka_unit_test(out_of_range_and_non_lists_fail),
        cmocka_unit_test(syntax_errors_are_reported),
        cmocka_unit_test(values_print_as_go_prints_them),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
