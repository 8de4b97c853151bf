#include <string>
#include <vector>

#include "cel/issues.hpp"
#include "cel/parser.hpp"
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

struct Case {
    const char* rule;
    const char* expected;
};

void runCases(const std::vector<Case>& cases) {
    for (const Case& c : cases) {
        std::string got = outcome(c.rule, kAnySchema, "{}");
        if (got != c.expected) {
            fail_msg("%s\n  got:  %s\n  want: %s", c.rule, got.c_str(), c.expected);
        }
    }
}

std::string syntaxError(const std::string& rule) {
    std::vector<kube::cel::Issue> issues;
    if (kube::cel::parse(rule, &issues)) {
        fail_msg("%s parsed", rule.c_str());
    }
    return kube::cel::formatIssues(rule, issues);
}

void literals_of_every_kind_parse(void**) {
    runCases({
        {"1 == 1 && -1 == 0 - 1 && 0x10 == 16 && -0x10 == -16", "true"},
        {"1u == uint(1) && 0xFFu == uint(255)", "true"},
        {"-9223372036854775808 == -9223372036854775807 - 1", "true"},
        {"1.5 == 3.0 / 2.0 && 1e3 == 1000.0 && .5 == 0.5 && 2.5e-1 == 0.25", "true"},
        {"null == null && true != false", "true"},
        {"'a' == \"a\" && '''x'y''' == \"x'y\" && \"\"\"a\nb\"\"\" == 'a\\nb'", "true"},
        {"r'\\d' == '\\\\d' && R\"\\n\" == '\\\\n'", "true"},
        {"'\\x41\\u0042\\U00000043\\103' == 'ABCC'", "true"},
        {"'\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"\\`\\?'.size() == 12", "true"},
        {"b'\\xff' != b'\\xfe' && size(b'\\377') == 1 && size(b'\\u00e9') == 2", "true"},
        {"size('\\u00e9') == 1 && size(bytes('\\u00e9')) == 2", "true"},
        {"[1, 2, 3,] == [1, 2, 3] && {'a': 1, 'b': 2,}['b'] == 2", "true"},
        {"// a comment\n true", "true"},
    });
}

void operators_keep_cel_precedence(void**) {
    runCases({
        {"1 + 2 * 3 == 7 && (1 + 2) * 3 == 9 && 7 % 4 * 2 == 6", "true"},
        {"10 - 4 - 3 == 3 && 100 / 10 / 5 == 2", "true"},
        {"true || false && false", "true"},
        {"(true || false) && false", "false"},
        {"(false ? 1 : 2) == 2 && (false ? 1 : true ? 2 : 3) == 2", "true"},
        {"false ? 1 : 2 == 2",
         "compile: compilation failed: ERROR: <input>:1:7: found no matching "
         "overload for '_?_:_' applied to '(bool, int, bool)'\n"
         " | false ? 1 : 2 == 2\n"
         " | ......^"},
        {"!false && !!true && !!!false", "true"},
        {"- -1 == 1 && -(-1) == 1", "true"},
        {"1 < 2 == true && 2 in [1, 2] == true", "true"},
        {"{'a': {'b': [10, 20]}}.a.b[1] == 20", "true"},
        {".self == self", "true"},
    });
}

void syntax_errors_read_as_cel_go_writes_them(void**) {
    const char* expecting =
        "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
        "STRING, BYTES, IDENTIFIER}";
    assert_string_equal(syntaxError("self.x +").c_str(),
                        (std::string("ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' "
                                     "expecting ") +
                         expecting + "\n | self.x +\n | ........^")
                            .c_str());
    assert_string_equal(syntaxError("0x == 1").c_str(),
                        "ERROR: <input>:1:2: Syntax error: mismatched input 'x' expecting <EOF>\n"
                        " | 0x == 1\n"
                        " | .^");
    assert_string_equal(syntaxError("self.x == 'a").c_str(),
                        "ERROR: <input>:1:11: Syntax error: token recognition error at: ''a'\n"
                        " | self.x == 'a\n"
                        " | ..........^");
    assert_string_equal(syntaxError("self.s == \"\\q\"").c_str(),
                        "ERROR: <input>:1:11: Syntax error: token recognition error at: '\"\\q'\n"
                        " | self.s == \"\\q\"\n"
                        " | ..........^");
    assert_string_equal(syntaxError("self.s = 'a'").c_str(),
                        "ERROR: <input>:1:8: Syntax error: token recognition error at: '= '\n"
                        " | self.s = 'a'\n"
                        " | .......^");
    assert_string_equal(syntaxError("has(self)").c_str(),
                        "ERROR: <input>:1:4: invalid argument to has() macro\n"
                        " | has(self)\n"
                        " | ...^");
    assert_string_equal(syntaxError("[1].all(1, true)").c_str(),
                        "ERROR: <input>:1:9: argument must be a simple name\n"
                        " | [1].all(1, true)\n"
                        " | ........^");
    assert_string_equal(syntaxError("9223372036854775808 == 1").c_str(),
                        "ERROR: <input>:1:1: invalid int literal\n"
                        " | 9223372036854775808 == 1\n"
                        " | ^");
    assert_string_equal(syntaxError("if == 1").c_str(),
                        "ERROR: <input>:1:1: reserved identifier: if\n | if == 1\n | ^");
    // The caret counts code points, and lines.
    assert_string_equal(syntaxError("'é' ==\n  )").c_str(),
                        (std::string("ERROR: <input>:2:3: Syntax error: mismatched input ')' "
                                     "expecting ") +
                         expecting + "\n |   )\n | ..^")
                            .c_str());
}

// ANTLR's recovery wording: a missing token, an extraneous one, a mismatch
// (each first line as kube-apiserver 1.26.5 gave it for the same rule).
void syntax_errors_name_missing_and_extraneous_tokens(void**) {
    const char* expr =
        "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
        "STRING, BYTES, IDENTIFIER}";
    struct Case {
        const char* rule;
        std::string first;
    };
    const Case cases[] = {
        {"size(self.s", "ERROR: <input>:1:12: Syntax error: missing ')' at '<EOF>'"},
        {"[1, 2",
         "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {']', ','}"},
        {"{'a': 1",
         "ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting {'}', ','}"},
        {"self.l.all(x, ", "ERROR: <input>:1:13: Syntax error: mismatched input ',' expecting ')'"},
        {"(1 + 2", "ERROR: <input>:1:7: Syntax error: missing ')' at '<EOF>'"},
        {"self.", "ERROR: <input>:1:6: Syntax error: missing IDENTIFIER at '<EOF>'"},
        {"1 ? 2", "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ':'"},
        {"self.s self.s",
         "ERROR: <input>:1:8: Syntax error: mismatched input 'self' expecting <EOF>"},
        {"'a' 'b'", "ERROR: <input>:1:5: Syntax error: extraneous input ''b'' expecting <EOF>"},
        {")",
         std::string("ERROR: <input>:1:1: Syntax error: mismatched input ')' expecting ") + expr},
        {"1 +* 2",
         std::string("ERROR: <input>:1:4: Syntax error: extraneous input '*' expecting ") + expr},
        {"self.l[",
         std::string("ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting ") +
             expr},
        {"size(self.s,)", "ERROR: <input>:1:12: Syntax error: extraneous input ',' expecting ')'"},
        {"{'a' 1}", "ERROR: <input>:1:6: Syntax error: missing ':' at '1'"},
        {"self.l.all(x.y, true)", "ERROR: <input>:1:13: argument must be a simple name"},
    };
    for (const Case& c : cases) {
        std::string got = syntaxError(c.rule);
        got = got.substr(0, got.find('\n'));
        if (got != c.first) {
            fail_msg("%s\n  got:  %s\n  want: %s", c.rule, got.c_str(), c.first.c_str());
        }
    }
}

std::string nested(const std::string& open, const std::string& inner, const std::string& close,
                   int n) {
    std::string s;
    for (int i = 0; i < n; i++) {
        s += open;
    }
    s += inner;
    for (int i = 0; i < n; i++) {
        s += close;
    }
    return s;
}

// kube-apiserver 1.26.5 accepts 40 nested lists and refuses 41; chains of
// 243 `+` pass and 246 fail; && chains of any length pass (balanced).
void nesting_is_bounded_as_cel_go_bounds_it(void**) {
    const char* tooDeep = "ERROR: <input>:-1:0: max recursion depth exceeded";
    std::vector<kube::cel::Issue> issues;
    assert_true(kube::cel::parse(nested("[", "1", "]", 40) + " != []", &issues) != nullptr);
    assert_string_equal(syntaxError(nested("[", "1", "]", 41) + " != []").c_str(), tooDeep);
    assert_true(kube::cel::parse(nested("size(", "'a'", ")", 40), &issues) != nullptr);
    assert_string_equal(syntaxError(nested("size(", "'a'", ")", 42)).c_str(), tooDeep);
    assert_true(kube::cel::parse(nested("(", "1", ")", 40) + " == 1", &issues) != nullptr);
    assert_string_equal(syntaxError(nested("(", "1", ")", 60) + " == 1").c_str(), tooDeep);
    std::string sum = "1";
    for (int i = 1; i < 243; i++) {
        sum += "+1";
    }
    assert_true(kube::cel::parse(sum + " > 0", &issues) != nullptr);
    assert_string_equal(syntaxError(sum + "+1+1+1 > 0").c_str(), tooDeep);
    std::string conj = "true";
    for (int i = 0; i < 5000; i++) {
        conj += " && true";
    }
    assert_string_equal(outcome(conj.c_str(), kAnySchema, "{}").c_str(), "true");
    assert_string_equal(
        outcome((std::string(10001, '!') + "true").c_str(), kAnySchema, "{}").c_str(), "false");
    assert_true(issues.empty());
}

// Hostile inputs: a megabyte of brackets or of unclosed strings is refused
// quickly and without deep recursion.
void hostile_inputs_are_refused_without_overflow(void**) {
    std::string brackets(1000000, '[');
    std::string error = syntaxError(brackets);
    assert_string_equal(error.c_str(),
                        "ERROR: <input>:-1:0: expression code point size exceeds limit: size: "
                        "1000000, limit 100000");
    assert_string_equal(syntaxError(std::string(99999, '(')).c_str(),
                        "ERROR: <input>:-1:0: max recursion depth exceeded");
    assert_string_equal(syntaxError(std::string(99999, '{')).c_str(),
                        "ERROR: <input>:-1:0: max recursion depth exceeded");
    std::string members = "self";
    for (int i = 0; i < 20000; i++) {
        members += ".a";
    }
    assert_string_equal(syntaxError(members).c_str(),
                        "ERROR: <input>:-1:0: max recursion depth exceeded");
    std::string quotes(50000, '\'');
    assert_true(syntaxError(quotes).find("Syntax error") != std::string::npos);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(literals_of_every_kind_parse),
        cmocka_unit_test(operators_keep_cel_precedence),
        cmocka_unit_test(syntax_errors_read_as_cel_go_writes_them),
        cmocka_unit_test(syntax_errors_name_missing_and_extraneous_tokens),
        cmocka_unit_test(nesting_is_bounded_as_cel_go_bounds_it),
        cmocka_unit_test(hostile_inputs_are_refused_without_overflow),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
