#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "registry/validation.hpp"
#include "util/json.hpp"
#include "util/label_selector.hpp"

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

using kube::util::LabelOperator;
using kube::util::LabelSelector;
namespace json = kube::util::json;

namespace {

using Labels = std::map<std::string, std::string>;

bool matches(const LabelSelector& sel, const Labels& labels) {
    return sel.matches([&labels](std::string_view k) -> std::optional<std::string_view> {
        auto it = labels.find(std::string(k));
        if (it == labels.end()) {
            return std::nullopt;
        }
        return std::string_view(it->second);
    });
}

LabelSelector mustParse(const char* text) {
    std::string err;
    auto sel = LabelSelector::parse(text, &err);
    if (!sel) {
        print_error("parse(%s) failed: %s\n", text, err.c_str());
    }
    assert_true(sel.has_value());
    return *sel;
}

std::string parseError(const char* text) {
    std::string err;
    auto sel = LabelSelector::parse(text, &err);
    if (sel) {
        print_error("parse(%s) unexpectedly succeeded\n", text);
    }
    assert_false(sel.has_value());
    return err;
}

// labels.TestSelectorParse: what parses and what does not.
void valid_and_invalid_selectors_parse_as_kube(void**) {
    for (const char* ok : {"", "x=a,y=b,z=c", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x",
                           "x>1", "x>1,z<5", "x in (a)", "x notin ( a , b )", "x in (in)",
                           "x in (a,,b)", "x notin ()", "x==a", " x = a ", "\tx\t", "a.b/c-d_e=f",
                           "x in (a,)", "x in (,a)"}) {
        mustParse(ok);
    }
    for (const char* bad : {"x=a||y=b", "x==a==b", "!x=a", "x<a", "x=a,,y=b", "x notin (a",
                            "x in", "x in a", "=a", "x=(a)", "x>1.5", "a b", "!", ",", "x,"}) {
        parseError(bad);
    }
}

void messages_are_kube_apiservers(void**) {
    assert_string_equal(parseError("a=b=c").c_str(),
                        "found '=', expected: ',' or 'end of string'");
    assert_string_equal(parseError("a in b").c_str(),
                        "unable to parse requirement: found 'b' expected: '('");
    assert_string_equal(parseError("!").c_str(),
                        "unable to parse requirement: found '', expected: identifier");
    assert_string_equal(parseError("a,").c_str(), "found '', expected: identifier after ','");
    assert_string_equal(parseError(",a").c_str(),
                        "found ',', expected: !, identifier, or 'end of string'");
    assert_string_equal(parseError("a in (b c)").c_str(),
                        "unable to parse requirement: found 'c', expected: ',' or ')'");
    assert_string_equal(parseError("a in (b,=)").c_str(),
                        "unable to parse requirement: found '=', expected: ',', or identifier");
    assert_string_equal(parseError("a in )").c_str(),
                        "unable to parse requirement: found ')' expected: '('");
    assert_string_equal(parseError("a x").c_str(),
                        "unable to parse requirement: found 'x', expected: in, notin, =, ==, "
                        "!=, gt, lt");
    assert_string_equal(parseError("x>a").c_str(),
                        "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', "
                        "'Lt' operators, the value must be an integer");
}

void invalid_keys_and_values_use_field_error_wording(void**) {
    std::string keyMsg;
    for (const std::string& m : kube::registry::validation::isQualifiedName("-a")) {
        keyMsg += (keyMsg.empty() ? "" : "; ") + m;
    }
    assert_string_equal(parseError("-a=b").c_str(),
                        ("unable to parse requirement: <nil>: Invalid value: \"-a\": " + keyMsg)
                            .c_str());
    std::string valueMsg = kube::registry::validation::isValidLabelValue("-b").at(0);
    assert_string_equal(parseError("a=-b").c_str(),
                        ("unable to parse requirement: values[0][a]: Invalid value: \"-b\": " +
                         valueMsg)
                            .c_str());
    std::string longValue(64, 'v');
    std::string err = parseError(("a=" + longValue).c_str());
    assert_non_null(strstr(err.c_str(), "must be no more than 63 characters"));
}

void requirements_are_sorted_by_key_with_set_values(void**) {
    LabelSelector sel = mustParse("z notin (b,a,b), a in (in,,x), !m, k");
    const auto& r = sel.requirements();
    assert_int_equal(r.size(), 4);
    assert_string_equal(r[0].key.c_str(), "a");
    assert_true(r[0].op == LabelOperator::In);
    assert_true((r[0].values == std::vector<std::string>{"", "in", "x"}));
    assert_true(r[1].op == LabelOperator::Exists);
    assert_true(r[2].op == LabelOperator::DoesNotExist);
    assert_true(r[3].op == LabelOperator::NotIn);
    assert_true((r[3].values == std::vector<std::string>{"a", "b"}));
    assert_true(mustParse("x notin ()").requirements()[0].values == std::vector<std::string>{""});
    assert_true(mustParse("x=").requirements()[0].values == std::vector<std::string>{""});
}

// labels.TestSelectorMatches.
void selectors_match_label_sets_as_kube(void**) {
    struct Case {
        const char* sel;
        Labels labels;
        bool want;
    } cases[] = {
        {"", {{"x", "y"}}, true},
        {"x=y", {{"x", "y"}}, true},
        {"x==y", {{"x", "y"}}, true},
        {"x=y,z=w", {{"x", "y"}, {"z", "w"}}, true},
        {"x!=y,z!=w", {{"x", "z"}, {"z", "a"}}, true},
        {"notin=in", {{"notin", "in"}}, true},
        {"x", {{"x", "z"}}, true},
        {"!x", {{"y", "z"}}, true},
        {"x>1", {{"x", "2"}}, true},
        {"x<1", {{"x", "0"}}, true},
        {"x in (a,b)", {{"x", "b"}}, true},
        {"x notin (a,b)", {{"x", "c"}}, true},
        {"x notin (a,b)", {}, true},
        {"x!=y", {}, true},
        {"x=", {{"x", ""}}, true},
        {"x in (a,)", {{"x", ""}}, true},
        {"x=z", {}, false},
        {"x=y", {{"x", "z"}}, false},
        {"x=y,z=w", {{"x", "w"}, {"z", "w"}}, false},
        {"x!=y,z!=w", {{"x", "z"}, {"z", "w"}}, false},
        {"x", {{"y", "z"}}, false},
        {"!x", {{"x", "z"}}, false},
        {"x>1", {{"x", "0"}}, false},
        {"x<1", {{"x", "2"}}, false},
        {"x>1", {{"x", "a"}}, false},
        {"x>1", {}, false},
        {"x in (a,b)", {{"x", "c"}}, false},
        {"x in (a,b)", {}, false},
        {"x notin (a,b)", {{"x", "a"}}, false},
        {"x=", {}, false},
    };
    for (const Case& c : cases) {
        if (matches(mustParse(c.sel), c.labels) != c.want) {
            print_error("selector %s: expected %d\n", c.sel, c.want);
            fail();
        }
    }
}

// "()" is the set holding "": kube-apiserver 1.26.5 answers 200 to `a in ()`
// (the objects whose label a is empty) and `a notin ()` (all others), not 400.
void empty_value_sets_hold_the_empty_string(void**) {
    LabelSelector in = mustParse("a in ()");
    assert_true(matches(in, {{"a", ""}}));
    assert_false(matches(in, {{"a", "x"}}));
    assert_false(matches(in, {}));
    LabelSelector notIn = mustParse("a notin ()");
    assert_false(matches(notIn, {{"a", ""}}));
    assert_true(matches(notIn, {{"a", "x"}}));
    assert_true(matches(notIn, {}));
    // A trailing or doubled comma adds "" too.
    LabelSelector trailing = mustParse("a in (x, )");
    assert_true(matches(trailing, {{"a", "x"}}));
    assert_true(matches(trailing, {{"a", ""}}));
    assert_false(matches(trailing, {{"a", "y"}}));
    assert_true(mustParse("a in (,)").requirements()[0].values == std::vector<std::string>{""});
    assert_string_equal(parseError("!").c_str(),
                        "unable to parse requirement: found '', expected: identifier");
    assert_string_equal(parseError("a in (x").c_str(),
                        "unable to parse requirement: found '', expected: ',' or ')'");
}

void json_labels_are_matched_and_missing_labels_are_empty(void**) {
    json::Document doc;
    doc.Parse(R"({"app":"web","tier":"front","n":3})");
    assert_true(mustParse("app=web,tier in (front,back)").matches(&doc));
    assert_false(mustParse("app=db").matches(&doc));
    assert_false(mustParse("n").matches(&doc));  // a non-string is no label
    assert_true(mustParse("!app2").matches(nullptr));
    assert_false(mustParse("app").matches(nullptr));
    assert_true(mustParse("").matches(nullptr));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_and_invalid_selectors_parse_as_kube),
        cmocka_unit_test(messages_are_kube_apiservers),
        cmocka_unit_test(invalid_keys_and_values_use_field_error_wording),
        cmocka_unit_test(requirements_are_sorted_by_key_with_set_values),
        cmocka_unit_test(selectors_match_label_sets_as_kube),
        cmocka_unit_test(empty_value_sets_hold_the_empty_string),
        cmocka_unit_test(json_labels_are_matched_and_missing_labels_are_empty),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
