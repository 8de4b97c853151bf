// CEL evaluation over JSON objects: each case's expected outcome is what
// kube-apiserver 1.26.5 answered for the same rule on the same object (its
// 422 message names the error; "failed rule" is false).
#include <string>
#include <vector>

#include "cel/object_value.hpp"
#include "cel_cases.hpp"

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

using kube::cel::testing::kAnySchema;
using kube::cel::testing::outcome;

namespace {

const char* const kSchema = R"({"type": "object", "properties": {
    "x": {"type": "integer"}, "zero": {"type": "integer"}, "big": {"type": "integer"},
    "small": {"type": "integer"}, "d": {"type": "number"},
    "l": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10}},
    "m": {"type": "object", "maxProperties": 10,
          "additionalProperties": {"type": "string", "maxLength": 10}},
    "m2": {"type": "object", "properties": {"a": {"type": "object",
           "additionalProperties": {"type": "integer"}}}},
    "s": {"type": "string", "maxLength": 100}, "re": {"type": "string", "maxLength": 10},
    "bad": {"type": "string", "maxLength": 10}, "ios": {"x-kubernetes-int-or-string": true},
    "n": {"type": "array", "maxItems": 10, "items": {"type": "integer"}},
    "absent": {"type": "integer"}}})";

const char* const kObject = R"({"x": 1, "zero": 0, "big": 9223372036854775807,
    "small": -9223372036854775808, "d": 1.5, "l": ["a"], "m": {"k": "v"}, "m2": {"a": {}},
    "s": "::bad url", "re": "[", "ios": "a", "n": []})";

struct Case {
    const char* rule;
    const char* expected;
};

void runCases(const std::vector<Case>& cases, const char* schema = kSchema,
              const char* object = kObject) {
    int failures = 0;
    for (const Case& c : cases) {
        std::string got = outcome(c.rule, schema, object);
        if (got != c.expected) {
            print_error("%s\n  got:  %s\n  want: %s\n", c.rule, got.c_str(), c.expected);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

void runtime_errors_are_worded_as_kube_words_them(void**) {
    runCases({
        {"self.x / self.zero == 1", "error: division by zero"},
        {"self.x % self.zero == 1", "error: modulus by zero"},
        {"self.l[5] == 'a'", "error: index out of bounds: 5"},
        {"self.l[-1] == 'a'", "error: index out of bounds: -1"},
        {"[1, 2][self.x + 5] == 1", "error: index '6' out of range in list size '2'"},
        {"self.m['nokey'] == 'a'", "error: no such key: nokey"},
        {"self.m.nokey == 'a'", "error: no such key: nokey"},
        {"self.m2.a.b == 1", "error: no such key: b"},
        {"self.absent == 1", "error: no such key: absent"},
        {"{'a': 1}[self.s] == 1", "error: no such key: ::bad url"},
        {"self.big + 1 > 0", "error: integer overflow"},
        {"self.big * 2 > 0", "error: integer overflow"},
        {"-self.small > 0", "error: integer overflow"},
        {"self.small - 1 < 0", "error: integer overflow"},
        {"self.small / -1 < 0", "error: integer overflow"},
        {"int(self.s) > 0", "error: type conversion error from 'string' to 'int'"},
        {"double(self.s) > 0.0", "error: type conversion error from 'string' to 'double'"},
        {"duration(self.s) > duration('1s')",
         "error: type conversion error from 'string' to 'google.protobuf.Duration'"},
        {"timestamp(self.s) > timestamp('2020-01-01T00:00:00Z')",
         "error: type conversion error from 'string' to 'google.protobuf.Timestamp'"},
        {"self.ios > 1", "error: no such overload"},
        {"self.s.charAt(100) == ''", "error: index out of range: 100"},
        {"self.s.indexOf('a', 100) == 0", "error: index out of range: 100"},
        {"self.s.substring(5, 2) == ''", "error: invalid substring range. start: 5, end: 2"},
        {"url(self.s).getHost() == ''",
         "error: URL parse error during conversion from string: parse \"::bad url\": missing "
         "protocol scheme"},
        {"self.n.min() > 0", "error: min called on empty list"},
        {"self.s.matches(self.re)", "error: error parsing regexp: missing closing ]: `[`"},
        {"self.l.all(e, e == self.bad)", "error: no such key: bad"},
        {"uint(self.x) > 0u", "true"},
        {"[1, 2][self.x] == 1", "false"},
    });
}

// && and || are commutative over errors: a false (true) on either side
// decides, whichever side errs.
void logical_operators_absorb_errors(void**) {
    runCases({
        {"self.absent == 1 && false", "false"},
        {"false && self.absent == 1", "false"},
        {"self.absent == 1 || true", "true"},
        {"true || self.absent == 1", "true"},
        {"self.absent == 1 && true", "error: no such key: absent"},
        {"false || self.absent == 1", "error: no such key: absent"},
        {"self.ios == 'a' || self.ios > 1", "true"},
        {"self.ios > 1 || self.ios == 'a'", "true"},
        {"self.l.exists(e, e == 'a') || self.absent == 1", "true"},
        {"[1, 0].all(i, 10 / i > 1)", "error: division by zero"},
        {"[1, 0, 20].all(i, 10 / i > 1)", "false"},
        {"[0, 1].exists(i, 10 / i > 1)", "true"},
        {"[0, 20].exists(i, 10 / i > 1)", "error: division by zero"},
        {"[0, 1].exists_one(i, 10 / i > 1)", "error: division by zero"},
        {"(self.absent == 1) ? true : false", "error: no such key: absent"},
    });
}

void values_and_functions_behave_as_in_kube(void**) {
    runCases({
        {"string(1e21) == '1e+21' && string(123456789.0) == '1.23456789e+08'", "true"},
        {"string(0.000001) == '1e-06' && string(100000.0) == '100000'", "true"},
        {"string(1.5) == '1.5' && string(-0.25) == '-0.25' && string(1) == '1'", "true"},
        {"string(duration('1.5s')) == '1.5s' && string(duration('-1m')) == '-60s'", "true"},
        {"string(timestamp('2020-01-01T00:00:00.5Z')) == '2020-01-01T00:00:00.5Z'", "true"},
        {"string(timestamp('2020-01-01T01:00:00+01:00')) == '2020-01-01T00:00:00Z'", "true"},
        {"'abc'.lastIndexOf('') == 3 && 'abc'.indexOf('') == 0", "true"},
        {"'a,b,,c'.split(',').size() == 4 && 'a,b,c'.split(',', 2) == ['a', 'b,c']", "true"},
        {"'hello'.replace('', '-') == '-h-e-l-l-o-' && 'aaa'.replace('a', 'b', 2) == 'bba'",
         "true"},
        {"'  a  '.trim() == 'a' && '\\u00a0a\\t'.trim() == 'a'", "true"},
        {"'aaa'.findAll('a*').size() == 1 && 'a1b22'.findAll('[0-9]+') == ['1', '22']", "true"},
        {"'abc'.find('x') == '' && 'abc123'.find('[0-9]+') == '123'", "true"},
        {"'a1b2c3'.findAll('[0-9]', 2) == ['1', '2']", "true"},
        {"[1, 2, 3].sum() == 6 && [].sum() == 0 && [1.5].sum() == 1.5", "true"},
        {"[3, 1, 2].max() == 3 && [3, 1, 2].min() == 1 && [1, 2].isSorted()", "true"},
        {"[2, 1].isSorted() == false && [1, 2, 1].lastIndexOf(1) == 2", "true"},
        {"[1, 2, 1].indexOf(1) == 0 && [1, 2].indexOf(3) == -1", "true"},
        {"self.l.join() == 'a' && (self.l + self.l).join('-') == 'a-a'", "true"},
        // kube refuses a join of a literal list: its estimate knows no size
        // for the literal's strings.
        {"['a', 'b'].join() == 'ab'",
         "cost: estimated rule cost exceeds budget by factor of more than 100x (try simplifying "
         "the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and "
         "strings are declared)"},
        {"type(self) == map && type(1) == int && type('a') == string", "true"},
        {"type(self.x) == int && type(null) == null_type && type([]) == list", "true"},
        {"dyn(1) == 1.0 && dyn(1u) == 1 && dyn([1]) == [1.0]", "true"},
        {"dyn(1) != 'a' && dyn({'a': 1}) == {'a': 1.0}", "true"},
        {"has(self.m.k) && !has(self.m.z) && has(self.x) && !has(self.absent)", "true"},
        {"self.l.exists_one(e, e == 'a') && !['a', 'a'].exists_one(e, e == 'a')", "true"},
        {"[1, 2].map(x, x * 2) == [2, 4] && [1, 2, 3].map(x, x > 1, x * 10) == [20, 30]", "true"},
        {"[1, 2, 3].filter(x, x > 1) == [2, 3] && {'a': 1, 'b': 2}.all(k, k != 'c')", "true"},
        {"{'a': 1, 'b': 2}.map(k, k) == ['a', 'b'] && {'a': 1}.exists(k, k == 'a')", "true"},
        {"timestamp('2020-02-29T10:20:30Z').getDayOfYear() == 59", "true"},
        {"timestamp('2020-02-29T10:20:30Z').getMonth() == 1", "true"},
        {"timestamp('2020-02-29T10:20:30Z').getDayOfWeek() == 6", "true"},
        {"timestamp('2020-02-29T10:20:30Z').getDate() == 29", "true"},
        {"timestamp('2020-02-29T10:20:30Z').getHours('+02:00') == 12", "true"},
        {"duration('1h30m').getMinutes() == 90 && duration('1.5s').getMilliseconds() == 500",
         "true"},
        {"timestamp('2020-01-01T00:00:00Z') + duration('24h') == "
         "timestamp('2020-01-02T00:00:00Z')",
         "true"},
        {"timestamp('2020-01-02T00:00:00Z') - timestamp('2020-01-01T00:00:00Z') == "
         "duration('24h')",
         "true"},
        {"duration('1m') > duration('59s') && timestamp('2021-01-01T00:00:00Z') > "
         "timestamp('2020-12-31T23:59:59.999Z')",
         "true"},
        {"isURL('https://a.b:80/x?y=1') && !isURL('x/y') && isURL('/x/y')", "true"},
        {"url('https://a.b:80/x?y=1&y=2').getQuery() == {'y': ['1', '2']}", "true"},
        {"url('https://[::1]:80/x').getHostname() == '::1'", "true"},
        {"url('https://a.b:80/x').getPort() == '80' && url('https://a.b/x').getPort() == ''",
         "true"},
        {"url('https://a.b:80/x').getHost() == 'a.b:80' && url('HTTPS://a.b').getScheme() == "
         "'https'",
         "true"},
        {"url('/x/y').getScheme() == '' && url('https://a.b/x%20y').getEscapedPath() == "
         "'/x%20y'",
         "true"},
        {"'héllo'.charAt(1) == 'é' && 'héllo'.indexOf('l') == 2 && size('héllo') == 5", "true"},
        {"'héllo'.substring(1, 3) == 'él' && 'héllo'.lastIndexOf('l') == 3", "true"},
        {"'x'.matches('^[a-z]$') && !'xy'.matches('^[a-z]$') && 'xy'.matches('[a-z]')", "true"},
        {"matches('abc', 'b') && 'ÀB'.lowerAscii() == 'Àb' && 'ab'.upperAscii() == 'AB'", "true"},
        {"1.0 / 0.0 > 1.0 && int(1.9) == 1 && int(-1.9) == -1 && bool('true')", "true"},
        {"'ab' < 'b' && b'a' < b'b' && false < true && 1u < 2u && 1.5 <= 1.5", "true"},
        {"'a' + 'b' == 'ab' && b'a' + b'b' == b'ab' && [1] + [2] == [1, 2]", "true"},
        {"uint(-1) == 1u", "error: range error converting -1 to uint"},
        {"int(18446744073709551615u) == 1",
         "error: range error converting 18446744073709551615 to int"},
        {"2 in [1, 2] && 'k' in self.m && !('z' in self.m)", "true"},
        {"{'a': 1, 'a': 2}.size() == 1", "error: Failed with repeated key"},
        {"self.d == 1.5 && self.x == 1 && self.big == 9223372036854775807", "true"},
    });
}

// oldSelf is bound on updates: transition rules compare the two.
void old_self_is_the_previous_object(void**) {
    const char* schema = R"({"type": "object", "properties": {"n": {"type": "integer"}}})";
    assert_string_equal(
        outcome("self.n >= oldSelf.n", schema, R"({"n": 2})", R"({"n": 1})").c_str(), "true");
    assert_string_equal(
        outcome("self.n >= oldSelf.n", schema, R"({"n": 0})", R"({"n": 1})").c_str(), "false");
    assert_string_equal(outcome("self == oldSelf", schema, R"({"n": 1})", R"({"n": 1.0})").c_str(),
                        "true");
    std::string error;
    auto program =
        kube::cel::compile("self.n >= oldSelf.n", kube::cel::testing::schemaType(schema), &error);
    assert_true(program && program->isTransitionRule());
    program = kube::cel::compile("self.n >= 0", kube::cel::testing::schemaType(schema), &error);
    assert_true(program && !program->isTransitionRule());
}

// The schema's type decides what a JSON value becomes: numbers are doubles
// even when written as integers, date-time, duration and byte strings are
// timestamps, durations and bytes (kube-apiserver 1.26.5 passes all four).
void schema_formats_make_typed_values(void**) {
    const char* schema = R"({"type": "object", "properties": {"d": {"type": "number"},
        "t": {"type": "string", "format": "date-time"},
        "dur": {"type": "string", "format": "duration"},
        "b": {"type": "string", "format": "byte"},
        "ts": {"type": "array", "items": {"type": "string", "format": "date-time"}}}})";
    const char* object = R"({"d": 2, "t": "2021-03-04T05:06:07Z", "dur": "1h30m",
        "b": "aGVsbG8=", "ts": ["2021-01-01T00:00:00Z", "2020-01-01T00:00:00Z"]})";
    runCases(
        {{"self.d + 1.5 == 3.5", "true"},
         {"self.t > timestamp('2020-01-01T00:00:00Z') && self.t.getFullYear() == 2021", "true"},
         {"self.dur > duration('1s') && self.dur == duration('90m')", "true"},
         {"self.b == b'hello' && size(self.b) == 5", "true"},
         {"self.ts.all(t, t < self.t) && !self.ts.isSorted()", "true"}},
        schema, object);
    assert_string_equal(
        outcome("self.t == 'x'", schema, object).c_str(),
        "compile: compilation failed: ERROR: <input>:1:8: found no matching overload for '_==_' "
        "applied to '(timestamp, string)'\n | self.t == 'x'\n | .......^");
}

// Lists of list-type set or map compare without order and merge on +, as
// kube's unstructured lists (the left operand decides); kube-apiserver
// 1.26.5 answers the same for each case.
void set_and_map_lists_compare_without_order(void**) {
    const char* schema = R"({"type": "object", "properties": {
        "set": {"type": "array", "x-kubernetes-list-type": "set", "maxItems": 5,
                "items": {"type": "string", "maxLength": 5}},
        "atom": {"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 5}},
        "ml": {"type": "array", "x-kubernetes-list-type": "map",
               "x-kubernetes-list-map-keys": ["name"], "maxItems": 5,
               "items": {"type": "object", "properties": {"name": {"type": "string",
                         "maxLength": 5}, "v": {"type": "integer"}}}}}})";
    const char* object = R"({"set": ["a", "b"], "atom": ["a", "b"],
        "ml": [{"name": "x", "v": 1}, {"name": "y", "v": 2}]})";
    runCases({{"self.set == ['b', 'a']", "true"},
              {"['b', 'a'] == self.set", "false"},
              {"self.set + ['a', 'c'] == ['a', 'b', 'c']", "true"},
              {"self.set + ['a', 'c'] == ['a', 'c', 'b']", "true"},
              {"(self.set + self.set).size() == 2", "true"},
              {"(self.ml + self.ml).size() == 2", "true"},
              {"self.atom == ['b', 'a']", "false"},
              // kube's set equality only asks that the other's items be in the set.
              {"self.set == ['a', 'a']", "true"}},
             schema, object);
    const char* old = R"({"set": ["b"], "atom": [], "ml": [{"name": "y", "v": 3},
                          {"name": "z", "v": 4}]})";
    assert_string_equal(
        outcome("(self.ml + oldSelf.ml).map(e, e.v) == [1, 3, 4]", schema, object, old).c_str(),
        "true");
    assert_string_equal(outcome("self.ml == oldSelf.ml", schema, object, old).c_str(), "false");
    const char* reordered = R"({"set": ["b", "a"], "atom": ["b", "a"],
                                "ml": [{"name": "y", "v": 2}, {"name": "x", "v": 1}]})";
    assert_string_equal(outcome("self.ml == oldSelf.ml && self.set == oldSelf.set && "
                                "self.atom != oldSelf.atom",
                                schema, object, reordered)
                            .c_str(),
                        "true");
}

// Rules of one schema node can share one conversion of the object.
void converted_objects_are_shared_between_rules(void**) {
    kube::cel::TypePtr type = kube::cel::testing::schemaType(kSchema);
    kube::util::json::Document object;
    kube::util::json::parse(kObject, object);
    kube::cel::Value self = kube::cel::objectValue(object, type.get());
    std::string error;
    for (const char* rule : {"self.x == 1", "self.l == ['a']", "has(self.m.k)"}) {
        auto program = kube::cel::compile(rule, type, &error);
        assert_true(program != nullptr);
        kube::cel::EvalOutcome out = kube::cel::evaluate(*program, self, &self);
        assert_true(out.value.kind() == kube::cel::Kind::Bool && out.value.asBool());
    }
}

// A JSON value 10,000 levels deep (Go's encoding/json limit) converts and
// compares without trouble.
void deep_objects_evaluate(void**) {
    std::string deep;
    for (int i = 0; i < 9999; i++) {
        deep += "[";
    }
    for (int i = 0; i < 9999; i++) {
        deep += "]";
    }
    std::string object = "{\"a\": " + deep + "}";
    assert_string_equal(outcome("self.a == self.a", kAnySchema, object.c_str()).c_str(), "true");
    assert_string_equal(outcome("size(self.a) == 1", kAnySchema, object.c_str()).c_str(), "true");
}

// Property names CEL cannot spell are reached escaped, as kube escapes them
// (a reserved word: __namespace__; '-', '.', '/', "__": __dash__, __dot__,
// __slash__, __underscores__); kube 1.26.5 gave these results.
void escaped_property_names_reach_their_fields(void**) {
    const char* schema = R"({"type": "object", "properties": {"namespace": {"type": "string"},
        "x-y": {"type": "string"}, "a.b": {"type": "string"}, "a/b": {"type": "string"},
        "if": {"type": "string"}, "a__b": {"type": "string"}, "9lives": {"type": "string"},
        "m": {"type": "object", "additionalProperties": {"type": "string"}}}})";
    const char* object = R"({"namespace": "n", "x-y": "d", "a.b": "p", "a/b": "s", "if": "i",
        "a__b": "u", "m": {"x-y": "v", "namespace": "w"}})";
    runCases({{"self.__namespace__ == 'n'", "true"},
              {"self.x__dash__y == 'd'", "true"},
              {"self.a__dot__b == 'p'", "true"},
              {"self.a__slash__b == 's'", "true"},
              {"self.__if__ == 'i'", "true"},
              {"self.a__underscores__b == 'u'", "true"},
              {"has(self.__namespace__) && has(self.x__dash__y)", "true"},
              // Map keys are data, not names: never escaped.
              {"self.m['x-y'] == 'v' && self.m['namespace'] == 'w'", "true"},
              {"'x-y' in self.m", "true"}},
             schema, object);
    runCases({{"self.__namespace__ == 'n'", "error: no such key: __namespace__"},
              {"has(self.__namespace__)", "false"}},
             schema, "{}");
    // The unescaped name is not a field; a name CEL cannot spell even
    // escaped (a leading digit) is left out of the type.
    assert_string_equal(outcome("has(self.namespace)", schema, "{}").c_str(),
                        "compile: compilation failed: ERROR: <input>:1:4: undefined field "
                        "'namespace'\n | has(self.namespace)\n | ...^");
    assert_string_equal(outcome("self.__9lives__ == ''", schema, "{}").c_str(),
                        "compile: compilation failed: ERROR: <input>:1:5: undefined field "
                        "'__9lives__'\n | self.__9lives__ == ''\n | ....^");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runtime_errors_are_worded_as_kube_words_them),
        cmocka_unit_test(logical_operators_absorb_errors),
        cmocka_unit_test(values_and_functions_behave_as_in_kube),
        cmocka_unit_test(old_self_is_the_previous_object),
        cmocka_unit_test(schema_formats_make_typed_values),
        cmocka_unit_test(set_and_map_lists_compare_without_order),
        cmocka_unit_test(converted_objects_are_shared_between_rules),
        cmocka_unit_test(deep_objects_evaluate),
        cmocka_unit_test(escaped_property_names_reach_their_fields),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
