// endpoints::WarningRecorder as kube's warning recorder writes a response's
// Warning headers: escaped, each text once, none for texts NewWarningHeader
// refuses, and at most 4,096 runes of text: past that every text is cut to
// 256 runes and the rest dropped (figures checked against kube-apiserver
// 1.26, which answers the 401-field object below with the same 97 headers).
#include <string>
#include <vector>

#include "endpoints/warning.hpp"

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

using kube::endpoints::warningHeaders;
using kube::endpoints::WarningRecorder;

std::string repeat(std::string_view s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) {
        out += s;
    }
    return out;
}

std::string quoted(std::string_view text) {
    return "299 - \"" + std::string(text) + "\"";
}

void headers_escape_quotes_and_backslashes(void**) {
    auto h = warningHeaders({"unknown field \"spec.a\\b\""});
    assert_int_equal(h.size(), 1);
    assert_string_equal(h[0].c_str(), R"(299 - "unknown field \"spec.a\\b\"")");
}

void each_text_once_and_none_for_refused_texts(void**) {
    auto h =
        warningHeaders({"a", "", "b", "a", "new\nline", "del\x7f", "c1\xc2\x85", "bad\xff", "é"});
    std::vector<std::string> want{quoted("a"), quoted("b"), quoted("é")};
    assert_true(h == want);
}

void the_budget_cuts_every_text_then_drops_the_rest(void**) {
    // kube's answer to a ConfigMap with 401 unknown fields: one of 625 runes,
    // then 400 of 40. At the 87th the total passes 4,096: the first is cut to
    // 256 runes, and nine more fit before the cut texts fill the budget.
    std::vector<std::string> texts{"unknown field \"metadata." + repeat("qé", 300) + "\""};
    for (int i = 0; i < 400; ++i) {
        char name[8];
        snprintf(name, sizeof name, "x%03d", i);
        texts.push_back("unknown field \"" + std::string(name) + repeat("y", 20) + "\"");
    }
    auto h = warningHeaders(texts);
    assert_int_equal(h.size(), 97);
    assert_string_equal(h[0].c_str(),
                        ("299 - \"unknown field \\\"metadata." + repeat("qé", 116) + "\"").c_str());
    assert_int_equal(h[0].size(), 381);
    assert_string_equal(h[96].c_str(), R"(299 - "unknown field \"x095yyyyyyyyyyyyyyyyyyyy\"")");
}

void a_huge_first_text_is_cut_and_the_total_stays_bounded(void**) {
    WarningRecorder r;
    r.add(repeat("a", 5000));
    assert_int_equal(r.headers().size(), 1);
    assert_string_equal(r.headers()[0].c_str(), quoted(repeat("a", 256)).c_str());
    // Cut as they come, by runes; fifteen more fill the budget.
    for (int i = 0; i < 100; ++i) {
        r.add(repeat("é", 300) + std::to_string(i));
    }
    assert_int_equal(r.headers().size(), 16);
    assert_string_equal(r.headers()[15].c_str(), quoted(repeat("é", 256)).c_str());
    size_t bytes = 0;
    for (const std::string& h : r.headers()) {
        bytes += h.size();
    }
    assert_true(bytes < 8 * 1024 + 16 * 16);
    // Once over, even short texts are dropped.
    r.add("late");
    assert_int_equal(r.headers().size(), 16);
}

void a_cut_text_with_invalid_bytes_reads_them_as_replacement_characters(void**) {
    WarningRecorder r;
    r.add(repeat("a", 5000));
    r.add("x\xff" + repeat("b", 300));  // cut: "x", U+FFFD, 254 b
    r.add("y\xff");                     // short: not cut, still invalid, refused
    assert_int_equal(r.headers().size(), 2);
    assert_string_equal(r.headers()[1].c_str(), quoted("x\xef\xbf\xbd" + repeat("b", 254)).c_str());
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(headers_escape_quotes_and_backslashes),
        cmocka_unit_test(each_text_once_and_none_for_refused_texts),
        cmocka_unit_test(the_budget_cuts_every_text_then_drops_the_rest),
        cmocka_unit_test(a_huge_first_text_is_cut_and_the_total_stays_bounded),
        cmocka_unit_test(a_cut_text_with_invalid_bytes_reads_them_as_replacement_characters),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
