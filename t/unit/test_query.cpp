#include "util/query.hpp"

#include <cstdint>
#include <string>

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

using kube::util::Query;

namespace {

void decodes_percent_escapes_and_plus_as_space(void** /*state*/) {
    Query q = Query::parse("fieldSelector=metadata.name%3Dfoo&labelSelector=a+in+(x%2Cy)");
    assert_string_equal(q.get("fieldSelector")->c_str(), "metadata.name=foo");
    assert_string_equal(q.get("labelSelector")->c_str(), "a in (x,y)");
}

void first_value_wins_and_values_keeps_all(void** /*state*/) {
    Query q = Query::parse("watch=1&watch=0&x=a");
    assert_string_equal(q.get("watch")->c_str(), "1");
    auto all = q.values("watch");
    assert_int_equal(all.size(), 2);
    assert_string_equal(all[1].c_str(), "0");
    assert_int_equal(q.values("nope").size(), 0);
}

void bare_keys_are_present_with_empty_values(void** /*state*/) {
    Query q = Query::parse("pretty&dryRun=");
    assert_true(q.has("pretty"));
    assert_string_equal(q.get("pretty")->c_str(), "");
    assert_true(q.has("dryRun"));
    assert_false(q.has("limit"));
    assert_false(q.get("limit").has_value());
}

void escaped_keys_are_decoded(void** /*state*/) {
    Query q = Query::parse("field%53elector=x");
    assert_true(q.has("fieldSelector"));
}

void drops_pairs_go_rejects(void** /*state*/) {
    // A bad escape or a ';' drops only that pair; empty pairs are skipped.
    Query q = Query::parse("a=%zz&b=1;c=2&&d=%4&e=ok&f=%41");
    assert_false(q.has("a"));
    assert_false(q.has("b"));
    assert_false(q.has("c"));
    assert_false(q.has("d"));
    assert_string_equal(q.get("e")->c_str(), "ok");
    assert_string_equal(q.get("f")->c_str(), "A");
    assert_int_equal(q.pairs().size(), 2);
}

void value_keeps_everything_after_the_first_equals(void** /*state*/) {
    Query q = Query::parse("fieldSelector=metadata.name=a=b");
    assert_string_equal(q.get("fieldSelector")->c_str(), "metadata.name=a=b");
}

void empty_query_has_nothing(void** /*state*/) {
    assert_true(Query::parse("").empty());
    assert_true(Query::parse("&&").empty());
}

void unescape_rejects_truncated_escapes(void** /*state*/) {
    assert_false(Query::unescape("%").has_value());
    assert_false(Query::unescape("a%2").has_value());
    assert_string_equal(Query::unescape("%2f%2F+")->c_str(), "// ");
}

// strconv.ParseInt(s, 10, 64): a sign, decimal digits, int64's range.
void parse_int_is_gos_parse_int(void**) {
    std::string why;
    assert_int_equal(*Query::parseInt("-1", &why), -1);
    assert_int_equal(*Query::parseInt("+5", &why), 5);
    assert_int_equal(*Query::parseInt("007", &why), 7);
    assert_true(*Query::parseInt("-9223372036854775808", &why) == INT64_MIN);
    assert_true(*Query::parseInt("9223372036854775807", &why) == INT64_MAX);
    for (const char* bad : {"", "+", "-", " 5", "1.5", "1e3", "0x10", "1_000", "5 "}) {
        why.clear();
        assert_false(Query::parseInt(bad, &why).has_value());
        assert_string_equal(why.c_str(), "invalid syntax");
    }
    for (const char* big :
         {"9223372036854775808", "-9223372036854775809", "99999999999999999999"}) {
        assert_false(Query::parseInt(big, &why).has_value());
        assert_string_equal(why.c_str(), "value out of range");
    }
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decodes_percent_escapes_and_plus_as_space),
        cmocka_unit_test(first_value_wins_and_values_keeps_all),
        cmocka_unit_test(bare_keys_are_present_with_empty_values),
        cmocka_unit_test(escaped_keys_are_decoded),
        cmocka_unit_test(drops_pairs_go_rejects),
        cmocka_unit_test(value_keeps_everything_after_the_first_equals),
        cmocka_unit_test(empty_query_has_nothing),
        cmocka_unit_test(unescape_rejects_truncated_escapes),
        cmocka_unit_test(parse_int_is_gos_parse_int),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
