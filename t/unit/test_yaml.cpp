#include <string>
#include <vector>

#include "util/json.hpp"
#include "util/yaml.hpp"

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

namespace json = kube::util::json;
namespace yaml = kube::util::yaml;

namespace {

// The JSON of the first document, or "ERR <message>".
std::string convert(const std::string& text) {
    json::Document doc;
    std::optional<std::string> err = yaml::toJson(text, doc);
    return err ? "ERR " + *err : json::serialize(doc);
}

struct Case {
    const char* yaml;
    const char* json;
};

void expectAll(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
        std::string got = convert(c.yaml);
        if (got != c.json) {
            print_error("yaml %s: want %s, got %s\n", c.yaml, c.json, got.c_str());
            fail();
        }
    }
}

void plain_scalars_resolve_like_go_yaml_v2(void** /*state*/) {
    expectAll({
        {"v: yes", R"({"v":true})"},
        {"v: Yes", R"({"v":true})"},
        {"v: YES", R"({"v":true})"},
        {"v: y", R"({"v":true})"},
        {"v: on", R"({"v":true})"},
        {"v: True", R"({"v":true})"},
        {"v: no", R"({"v":false})"},
        {"v: N", R"({"v":false})"},
        {"v: OFF", R"({"v":false})"},
        {"v: FALSE", R"({"v":false})"},
        {"v: yEs", R"({"v":"yEs"})"},
        {"v: oN", R"({"v":"oN"})"},
        {"v: ~", R"({"v":null})"},
        {"v: null", R"({"v":null})"},
        {"v: NULL", R"({"v":null})"},
        {"v:", R"({"v":null})"},
        {"v: nULL", R"({"v":"nULL"})"},
        {"v: 42", R"({"v":42})"},
        {"v: -42", R"({"v":-42})"},
        {"v: +42", R"({"v":42})"},
        {"v: 0x1F", R"({"v":31})"},
        {"v: 0o17", R"({"v":15})"},
        {"v: 017", R"({"v":15})"},
        {"v: 08", R"({"v":8})"},
        {"v: 0b101", R"({"v":5})"},
        {"v: -0b101", R"({"v":-5})"},
        {"v: 1_000_000", R"({"v":1000000})"},
        {"v: 9223372036854775807", R"({"v":9223372036854775807})"},
        {"v: 18446744073709551615", R"({"v":18446744073709551615})"},
        {"v: 0x", R"({"v":"0x"})"},
        {"v: 1.5", R"({"v":1.5})"},
        {"v: .5", R"({"v":0.5})"},
        {"v: 1.", R"({"v":1})"},
        {"v: 1.0", R"({"v":1})"},
        {"v: 1e3", R"({"v":1000})"},
        {"v: -2.5E-3", R"({"v":-0.0025})"},
        {"v: 1e400", R"({"v":"1e400"})"},
        {"v: 1.2.3", R"({"v":"1.2.3"})"},
        {"v: 2001-12-14", R"({"v":"2001-12-14"})"},
        {"v: 2001-12-14T21:59:43.10Z", R"({"v":"2001-12-14T21:59:43.10Z"})"},
        {"v: 12:30", R"({"v":"12:30"})"},
        {"v: -x", R"({"v":"-x"})"},
        {"v: <<", R"({"v":"<<"})"},
        {"v: hello world", R"({"v":"hello world"})"},
    });
}

void quoted_scalars_are_strings(void** /*state*/) {
    expectAll({
        {R"(v: "yes")", R"({"v":"yes"})"},
        {"v: '42'", R"({"v":"42"})"},
        {R"(v: "")", R"({"v":""})"},
        {R"(v: "null")", R"({"v":"null"})"},
        {"v: |\n  line one\n  line two\n", R"({"v":"line one\nline two\n"})"},
        {"v: >-\n  folded\n  text\n", R"({"v":"folded text"})"},
        {R"(v: "caf\u00e9\t")", R"({"v":"café\t"})"},
    });
}

void keys_become_strings_and_members_are_sorted(void** /*state*/) {
    expectAll({
        {"b: 1\na: 2\nC: 3", R"({"C":3,"a":2,"b":1})"},
        {"1: a\ntrue: b\n1.5: c\n1000000.0: d\n0.1: e",
         R"({"0.1":"e","1":"a","1.5":"c","1e+06":"d","true":"b"})"},
        {"yes: a\nn: b", R"({"false":"b","true":"a"})"},
        {"a: 1\na: 2", R"({"a":2})"},
        {"? [x]\n: 1",
         R"(ERR error converting YAML to JSON: yaml: invalid map key: []interface {}{"x"})"},
        {"~: x",
         R"(ERR error converting YAML to JSON: unsupported map key of type: %!s(<nil>), key: <nil>, value: "x")"},
        {"18446744073709551615: x",
         R"(ERR error converting YAML to JSON: unsupported map key of type: uint64, key: 0xffffffffffffffff, value: "x")"},
    });
}

void anchors_aliases_and_merge_keys_expand(void** /*state*/) {
    expectAll({
        {"base: &b {p: 1, q: 2}\ncopy: *b", R"({"base":{"p":1,"q":2},"copy":{"p":1,"q":2}})"},
        {"b: &b {p: 1, q: 2}\nm:\n  <<: *b\n  q: 3", R"({"b":{"p":1,"q":2},"m":{"p":1,"q":3}})"},
        // A merge overwrites keys set before it; earlier list items win.
        {"b: &b {p: 1}\nm:\n  p: 0\n  <<: *b", R"({"b":{"p":1},"m":{"p":1}})"},
        {"xa: &x {p: 1}\nya: &y {p: 2, r: 2}\nm:\n  <<: [*x, *y]",
         R"({"m":{"p":1,"r":2},"xa":{"p":1},"ya":{"p":2,"r":2}})"},
        {"m:\n  <<: {a: 1}\n  b: 2", R"({"m":{"a":1,"b":2}})"},
        {"s: &s [1, 2]\nt: *s", R"({"s":[1,2],"t":[1,2]})"},
        {"v: &v 5\nk: {*v : x}", R"({"k":{"5":"x"},"v":5})"},
        {R"(m: {"<<": {a: 1}})", R"({"m":{"<<":{"a":1}}})"},
        {"m:\n  <<: 5",
         "ERR error converting YAML to JSON: yaml: map merge requires map or "
         "sequence of maps as the value"},
        {"a: *nope", "ERR error converting YAML to JSON: yaml: unknown anchor 'nope' referenced"},
        {"a: &x [*x]", "ERR error converting YAML to JSON: yaml: anchor 'x' value contains itself"},
    });
}

void excessive_aliasing_is_refused(void** /*state*/) {
    std::string text = R"(a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"])";
    std::string prev = "a";
    for (char n = 'b'; n <= 'i'; n++) {
        text += "\n" + std::string(1, n) + ": &" + std::string(1, n) + " [";
        for (int k = 0; k < 9; k++) {
            text += (k ? ",*" : "*") + prev;
        }
        text += "]";
        prev = std::string(1, n);
    }
    assert_string_equal(
        convert(text).c_str(),
        "ERR error converting YAML to JSON: yaml: document contains excessive aliasing");
}

void deep_nesting_is_refused(void** /*state*/) {
    // go-yaml's scanner: flow collections nest at most 10,000 deep; the line
    // of the one too many, 1-based, and none on the first line.
    std::string deep = std::string(10001, '[') + std::string(10001, ']');
    assert_string_equal(convert(deep).c_str(),
                        "ERR error converting YAML to JSON: yaml: exceeded max depth of 10000");
    std::string later = "a: 1\nb: " + std::string(5000, '[') + "\n\n" + std::string(5001, '[') +
                        std::string(10001, ']');
    assert_string_equal(
        convert(later).c_str(),
        "ERR error converting YAML to JSON: yaml: line 4: exceeded max depth of 10000");
    // 200,000 levels are refused as fast, with no recursion to run out of stack.
    std::string huge = "x: " + std::string(200000, '[');
    assert_true(convert(huge).ends_with("exceeded max depth of 10000"));
    // 10,000 flow levels inside block mappings decode (without recursion).
    std::string ok = "a:\n  b: " + std::string(10000, '[') + std::string(10000, ']');
    std::string got = convert(ok);
    assert_true(got.starts_with(R"({"a":{"b":[[[)"));
    assert_int_equal(got.size(), 2 * 10000 + std::string(R"({"a":{"b":}})").size());
}

void aliases_expand_deep_values_without_recursion(void** /*state*/) {
    // Each alias doubles the depth: 5,000 flow levels used four times over.
    std::string text = "a: &a " + std::string(5000, '[') + std::string(5000, ']') +
                       "\nb: &b [*a, [*a]]\nc: [*b, *b]\n";
    std::string got = convert(text);
    assert_false(got.starts_with("ERR"));
    // A key that is a deep collection is named in the error without recursion.
    std::string key = "? " + std::string(9000, '[') + std::string(9000, ']') + "\n: x\n";
    got = convert(key);
    assert_true(
        got.starts_with("ERR error converting YAML to JSON: yaml: invalid map key: "
                        "[]interface {}{[]interface {}{"));
}

void float_keys_beyond_float32_are_infinities(void** /*state*/) {
    // sigs.k8s.io/yaml formats a float key as a float32 ('g', -1, 32): past
    // its range Go's conversion gives an infinity (".inf"), below it zero.
    expectAll({
        {"1e300: a", R"({".inf":"a"})"},
        {"1.0e40: a", R"({".inf":"a"})"},
        {"-1e300: a", R"({"-.inf":"a"})"},
        {"3.4028235e38: a", R"({"3.4028235e+38":"a"})"},
        {"3.40282355e38: a", R"({"3.4028235e+38":"a"})"},
        {"3.4028236e38: a", R"({".inf":"a"})"},
        {"1e-50: a", R"({"0":"a"})"},
        {"1e-45: a", R"({"1e-45":"a"})"},
        {"1.5: a", R"({"1.5":"a"})"},
        {"123456789.0: a", R"({"1.2345679e+08":"a"})"},
    });
}

void invalid_utf8_is_refused_as_go_yaml_refuses_it(void** /*state*/) {
    assert_string_equal(convert("a: \"x\xffy\"").c_str(),
                        "ERR error converting YAML to JSON: yaml: invalid leading UTF-8 octet");
    assert_string_equal(convert("a: x\xffy").c_str(),
                        "ERR error converting YAML to JSON: yaml: invalid leading UTF-8 octet");
    // !!binary that is not text decodes with U+FFFD for each invalid byte.
    assert_string_equal(convert("a: !!binary /w==").c_str(), "{\"a\":\"\xef\xbf\xbd\"}");
}

void syntax_errors_use_go_yaml_wording_and_lines(void** /*state*/) {
    expectAll({
        // A scanner error on the first line carries no line number.
        {"a: b: c",
         "ERR error converting YAML to JSON: yaml: mapping values are not allowed in this context"},
        {"a: 1\nb: c: d",
         "ERR error converting YAML to JSON: yaml: line 2: mapping values are "
         "not allowed in this context"},
        // Parser errors report go-yaml's 0-based line of the problem.
        {"a:\n  - b\n  c: d",
         "ERR error converting YAML to JSON: yaml: line 2: did not find expected '-' indicator"},
        {"a: [1, 2",
         "ERR error converting YAML to JSON: yaml: line 1: did not find expected ',' "
         "or ']'"},
        {"a:\n\tb: 2",
         "ERR error converting YAML to JSON: yaml: line 2: found character that "
         "cannot start any token"},
        {"a: 1\n\tb: 2",
         "ERR error converting YAML to JSON: yaml: line 2: found a tab character "
         "that violates indentation"},
        {"- a\nb: c",
         "ERR error converting YAML to JSON: yaml: line 1: did not find expected '-' indicator"},
        {"a: \"open", "ERR error converting YAML to JSON: yaml: found unexpected end of stream"},
    });
}

void explicit_tags_are_honoured(void** /*state*/) {
    expectAll({
        {"v: !!str 12", R"({"v":"12"})"},
        {"v: !!int \"12\"", R"({"v":12})"},
        {"v: !!float 1", R"({"v":1})"},
        {"v: !!float 1.5", R"({"v":1.5})"},
        {"v: !!bool yes", R"({"v":true})"},
        {"v: !!null ~", R"({"v":null})"},
        {"v: !!binary aGVsbG8=", R"({"v":"hello"})"},
        {"v: !!binary /w==", R"({"v":"�"})"},
        {"v: !custom 5", R"({"v":"5"})"},
        {"v: ! 5", R"({"v":"5"})"},
        {"v: !!timestamp 2001-12-14", R"({"v":"2001-12-14"})"},
        {"v: !!int abc",
         "ERR error converting YAML to JSON: yaml: cannot decode !!str `abc` as a "
         "!!int"},
        {"v: !!bool 1",
         "ERR error converting YAML to JSON: yaml: cannot decode !!int `1` as a "
         "!!bool"},
        {"v: !!binary 'a*b='",
         "ERR error converting YAML to JSON: yaml: !!binary value contains "
         "invalid base64 data"},
        {"v: !!timestamp nope",
         "ERR error converting YAML to JSON: yaml: cannot decode !!str "
         "`nope` as a !!timestamp"},
    });
}

void nan_and_inf_cannot_become_json(void** /*state*/) {
    expectAll({
        {"v: .nan", "ERR error converting YAML to JSON: json: unsupported value: NaN"},
        {"v: .inf", "ERR error converting YAML to JSON: json: unsupported value: +Inf"},
        {"v: -.Inf", "ERR error converting YAML to JSON: json: unsupported value: -Inf"},
        // A yaml error anywhere wins over a JSON one, as go-yaml decodes first.
        {"v: .nan\nw: *missing",
         "ERR error converting YAML to JSON: yaml: unknown anchor "
         "'missing' referenced"},
    });
}

void numbers_read_back_as_json_would(void** /*state*/) {
    json::Document doc;
    assert_false(yaml::toJson("a: 1.0\nb: 3\nc: 2.5\nd: 1e20", doc).has_value());
    assert_true(doc["a"].IsInt64());
    assert_int_equal(doc["a"].GetInt64(), 1);
    assert_true(doc["b"].IsInt64());
    assert_true(doc["c"].IsDouble());
    assert_true(doc["d"].IsDouble());
}

// go-yaml v2 reads an integer past 64 bits as a float when it is one, and
// otherwise as the string it is (recorded from kube-apiserver 1.26.5: a
// ConfigMap's data and label keys). The 318-digit case is a yaml fuzzer
// finding: it used to become an infinity, which no JSON can hold.
void integers_past_64_bits_are_floats_or_strings(void** /*state*/) {
    std::string decimal318 = "1" + std::string(317, '5');
    expectAll({
        {"v: 0x1FFFFFFFFFFFFFFFFFFFF", R"({"v":"0x1FFFFFFFFFFFFFFFFFFFF"})"},
        {"v: 0o7777777777777777777777777", R"({"v":"0o7777777777777777777777777"})"},
        {"0x1FFFFFFFFFFFFFFFFFFFF: x", R"({"0x1FFFFFFFFFFFFFFFFFFFF":"x"})"},
    });
    assert_string_equal(convert("v: " + decimal318).c_str(),
                        ("{\"v\":\"" + decimal318 + "\"}").c_str());
    assert_string_equal(convert(decimal318 + ": x").c_str(),
                        ("{\"" + decimal318 + "\":\"x\"}").c_str());
}

void empty_input_is_null_and_later_documents_are_ignored(void** /*state*/) {
    expectAll({
        {"", "null"},
        {"# only a comment\n", "null"},
        {"---\n", "null"},
        {"a: 1\n---\nb: 2\n", R"({"a":1})"},
        {"a: 1\n---\nb: [", R"({"a":1})"},
        {"[1, {a: x}]", R"([1,{"a":"x"}])"},
        {"plain", R"("plain")"},
        {R"({"apiVersion":"v1","kind":"ConfigMap","data":{"k":"v"}})",
         R"({"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap"})"},
    });
}

void streams_yield_every_document(void** /*state*/) {
    std::vector<json::Document> docs;
    assert_false(yaml::toJsonStream("a: 1\n---\nb: 2\n...\n---\n", docs).has_value());
    assert_int_equal(docs.size(), 3);
    assert_string_equal(json::serialize(docs[0]).c_str(), R"({"a":1})");
    assert_string_equal(json::serialize(docs[1]).c_str(), R"({"b":2})");
    assert_true(docs[2].IsNull());

    assert_false(yaml::toJsonStream("", docs).has_value());
    assert_int_equal(docs.size(), 0);

    std::optional<std::string> err = yaml::toJsonStream("a: 1\n---\nb: c: d\n", docs);
    assert_true(err.has_value());
    assert_string_equal(err->c_str(),
                        "error converting YAML to JSON: yaml: line 3: mapping "
                        "values are not allowed in this context");
    assert_int_equal(docs.size(), 0);
}

void kubernetes_manifest_converts(void** /*state*/) {
    const char* manifest = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 3
  template:
    spec:
      containers:
      - name: web
        image: "nginx:1.25"
        ports:
        - containerPort: 80
        env:
        - name: DEBUG
          value: "true"
)";
    assert_string_equal(
        convert(manifest).c_str(),
        R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"app":"web"},)"
        R"("name":"web"},"spec":{"replicas":3,"template":{"spec":{"containers":[{"env":[{"name":)"
        R"("DEBUG","value":"true"}],"image":"nginx:1.25","name":"web","ports":[{"containerPort":)"
        R"(80}]}]}}}})");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_scalars_resolve_like_go_yaml_v2),
        cmocka_unit_test(quoted_scalars_are_strings),
        cmocka_unit_test(keys_become_strings_and_members_are_sorted),
        cmocka_unit_test(anchors_aliases_and_merge_keys_expand),
        cmocka_unit_test(excessive_aliasing_is_refused),
        cmocka_unit_test(deep_nesting_is_refused),
        cmocka_unit_test(aliases_expand_deep_values_without_recursion),
        cmocka_unit_test(float_keys_beyond_float32_are_infinities),
        cmocka_unit_test(integers_past_64_bits_are_floats_or_strings),
        cmocka_unit_test(invalid_utf8_is_refused_as_go_yaml_refuses_it),
        cmocka_unit_test(syntax_errors_use_go_yaml_wording_and_lines),
        cmocka_unit_test(explicit_tags_are_honoured),
        cmocka_unit_test(nan_and_inf_cannot_become_json),
        cmocka_unit_test(numbers_read_back_as_json_would),
        cmocka_unit_test(empty_input_is_null_and_later_documents_are_ignored),
        cmocka_unit_test(streams_yield_every_document),
        cmocka_unit_test(kubernetes_manifest_converts),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
