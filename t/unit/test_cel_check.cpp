// CEL type checking against a CRD schema: what compiles and what does not,
// with the messages kube-apiserver 1.26.5 gave for the same rules on the
// same schema (its random self type name aside).
#include <string>
#include <vector>

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

using kube::cel::testing::outcome;

namespace {

const char* const kSchema = R"({"type": "object", "properties": {
    "s": {"type": "string"}, "x": {"type": "integer"},
    "l": {"type": "array", "items": {"type": "string"}},
    "n": {"type": "array", "items": {"type": "integer"}}, "d": {"type": "number"},
    "m": {"type": "object", "additionalProperties": {"type": "string"}},
    "ios": {"x-kubernetes-int-or-string": true},
    "p": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
    "o": {"type": "object", "properties": {"a": {"type": "string"}}},
    "b": {"type": "boolean"}}})";

const char* const kObject =
    R"({"s": "a", "x": 1, "l": ["a"], "n": [1], "d": 1.5, "m": {"k": "v"}, "ios": 1,
        "p": {"q": 1}, "o": {"a": "x"}, "b": true})";

// The rule's compile error, or "ok" when it compiles (its value does not
// matter here).
std::string compileError(const char* rule, const char* schema = kSchema) {
    std::string got = outcome(rule, schema, kObject);
    const char* prefix = "compile: ";
    if (got.rfind(prefix, 0) == 0) {
        return got.substr(std::string(prefix).size());
    }
    return "ok";
}

struct Case {
    const char* rule;
    const char* expected;
};

void runCases(const std::vector<Case>& cases, const char* schema = kSchema) {
    int failures = 0;
    for (const Case& c : cases) {
        std::string got = compileError(c.rule, schema);
        if (got != c.expected) {
            print_error("%s\n  got:  %s\n  want: %s\n", c.rule, got.c_str(), c.expected);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

std::string failed(const char* rule, int column, const char* message) {
    return std::string("compilation failed: ERROR: <input>:1:") + std::to_string(column) + ": " +
           message + "\n | " + rule + "\n | " + std::string(static_cast<size_t>(column - 1), '.') +
           "^";
}

void undeclared_fields_and_names_fail_to_compile(void**) {
    std::vector<std::string> keep;
    auto f = [&](const char* rule, int column, const char* message) {
        keep.push_back(failed(rule, column, message));
        return keep.back().c_str();
    };
    keep.reserve(64);
    runCases({
        {"self.foo == 1", f("self.foo == 1", 5, "undefined field 'foo'")},
        {"self.o.b == 'a'", f("self.o.b == 'a'", 7, "undefined field 'b'")},
        // An object that only preserves unknown fields declares none.
        {"self.p.foo == 1", f("self.p.foo == 1", 7, "undefined field 'foo'")},
        {"a.b == 1", f("a.b == 1", 1, "undeclared reference to 'a' (in container '')")},
        {"self.s.foo(1)",
         f("self.s.foo(1)", 11, "undeclared reference to 'foo' (in container '')")},
        {"self.l.map(x, y, x)",
         f("self.l.map(x, y, x)", 15, "undeclared reference to 'y' (in container '')")},
        {"quantity('1') == quantity('1')",
         "compilation failed: ERROR: <input>:1:9: undeclared reference to 'quantity' (in "
         "container '')\n | quantity('1') == quantity('1')\n | ........^\n"
         "ERROR: <input>:1:26: undeclared reference to 'quantity' (in container '')\n"
         " | quantity('1') == quantity('1')\n | .........................^"},
        {"self.m.foo == 'a' && self.m['x'] == 'a' && has(self.m.x)", "ok"},
        {"self.ios == 1 || self.ios == 'a'", "ok"},
        {"self.o == null && self.o.a == 'x'", "ok"},
    });
}

void overloads_are_resolved_as_cel_go_resolves_them(void**) {
    std::vector<std::string> keep;
    keep.reserve(64);
    auto f = [&](const char* rule, int column, const char* message) {
        keep.push_back(failed(rule, column, message));
        return keep.back().c_str();
    };
    runCases({
        {"1 == 1u",
         f("1 == 1u", 3, "found no matching overload for '_==_' applied to '(int, uint)'")},
        {"1 < 2.0",
         f("1 < 2.0", 3, "found no matching overload for '_<_' applied to '(int, double)'")},
        {"[1,2] == [1u]", f("[1,2] == [1u]", 7,
                            "found no matching overload for '_==_' applied to '(list(int), "
                            "list(uint))'")},
        {"self.s + 1 == 2", f("self.s + 1 == 2", 8,
                              "found no matching overload for '_+_' applied to '(string, int)'")},
        {"size(self.s) == 'a'", f("size(self.s) == 'a'", 14,
                                  "found no matching overload for '_==_' applied to '(int, "
                                  "string)'")},
        {"self.l.sum() == ''", f("self.l.sum() == ''", 11,
                                 "found no matching overload for 'sum' applied to "
                                 "'list(string).()'")},
        {"self.x.contains('a')", f("self.x.contains('a')", 16,
                                   "found no matching overload for 'contains' applied to "
                                   "'int.(string)'")},
        {"size(self.s) > 0 ? true : 1",
         f("size(self.s) > 0 ? true : 1", 18,
           "found no matching overload for '_?_:_' applied to '(bool, bool, int)'")},
        {"null == self.s", f("null == self.s", 6,
                             "found no matching overload for '_==_' applied to '(null, string)'")},
        {"self.l == null", f("self.l == null", 8,
                             "found no matching overload for '_==_' applied to '(list(string), "
                             "null)'")},
        {"self.o == {'a': 'b'}", f("self.o == {'a': 'b'}", 8,
                                   "found no matching overload for '_==_' applied to "
                                   "'(selfType.o, map(string, string))'")},
        {"self.x + 1u > 0",
         f("self.x + 1u > 0", 8, "found no matching overload for '_+_' applied to '(int, uint)'")},
        {"self.l + [1] == []", f("self.l + [1] == []", 8,
                                 "found no matching overload for '_+_' applied to "
                                 "'(list(string), list(int))'")},
        {"self.d == 1",
         f("self.d == 1", 8, "found no matching overload for '_==_' applied to '(double, int)'")},
        {"1 in [1.0]", f("1 in [1.0]", 3,
                         "found no matching overload for '@in' applied to '(int, list(double))'")},
        {"self.l.all(x, x)", f("self.l.all(x, x)", 11,
                               "found no matching overload for '_&&_' applied to '(bool, "
                               "string)'")},
        {"[1, 'a'] == []", f("[1, 'a'] == []", 5, "expected type 'int' but found 'string'")},
        {"dyn(1) == 'a' && {'a':1}.a == 1 && self.x in [1,2] && 'a' in {'a':1}", "ok"},
        {"self.l + ['a'] == [] && self.n.max() > 0 && type(self.x) == int", "ok"},
        {"self.o == null && null == null && self.d == 1.0", "ok"},
        {"duration('1s') == 'x'", f("duration('1s') == 'x'", 16,
                                    "found no matching overload for '_==_' applied to "
                                    "'(duration, string)'")},
        {"url('x') == 'x'", f("url('x') == 'x'", 10,
                              "found no matching overload for '_==_' applied to "
                              "'(kubernetes.URL, string)'")},
        {"type(1) == 'x'", f("type(1) == 'x'", 9,
                             "found no matching overload for '_==_' applied to '(type(int), "
                             "string)'")},
        {"1 < 2 < 3",
         f("1 < 2 < 3", 7, "found no matching overload for '_<_' applied to '(bool, int)'")},
        // The presence test is placed at the macro call, as cel-go places it.
        {"has(self.foo)", f("has(self.foo)", 4, "undefined field 'foo'")},
        {"self.s", "cel expression must evaluate to a bool"},
        {"self.s.matches('[')",
         "program instantiation failed: error parsing regexp: missing closing ]: `[`"},
    });
}

// The resource root and embedded resources have apiVersion, kind and
// metadata (name and generateName only).
void the_resource_root_declares_its_metadata(void**) {
    const char* schema = R"({"type": "object", "properties": {"spec": {"type": "object"}}})";
    kube::util::json::Document doc;
    kube::util::json::parse(schema, doc);
    kube::cel::TypePtr root = kube::cel::Type::fromSchema(doc, true);
    std::string error;
    assert_true(kube::cel::compile("self.metadata.name.startsWith('a') && self.kind == 'X' && "
                                   "self.apiVersion != ''",
                                   root, &error) != nullptr);
    assert_true(kube::cel::compile("self.metadata.labels.size() > 0", root, &error) == nullptr);
    assert_string_equal(error.c_str(),
                        "compilation failed: ERROR: <input>:1:14: undefined field 'labels'\n"
                        " | self.metadata.labels.size() > 0\n"
                        " | .............^");
}

// A messageExpression (kube 1.27) yields the message's string.
void message_expressions_are_strings(void**) {
    kube::cel::TypePtr self = kube::cel::testing::schemaType(kSchema);
    std::string error;
    auto program = kube::cel::compile("'x is ' + string(self.x)", self, &error,
                                      kube::cel::Purpose::MessageExpression);
    assert_true(program != nullptr);
    kube::util::json::Document object;
    kube::util::json::parse(kObject, object);
    kube::cel::EvalOutcome out = kube::cel::evaluate(*program, {&object, nullptr});
    assert_string_equal(out.value.str().c_str(), "x is 1");
    assert_true(kube::cel::compile("self.x > 1", self, &error,
                                   kube::cel::Purpose::MessageExpression) == nullptr);
    assert_string_equal(error.c_str(), "messageExpression must evaluate to a string");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(undeclared_fields_and_names_fail_to_compile),
        cmocka_unit_test(overloads_are_resolved_as_cel_go_resolves_them),
        cmocka_unit_test(the_resource_root_declares_its_metadata),
        cmocka_unit_test(message_expressions_are_strings),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
