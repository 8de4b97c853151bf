#include <chrono>
#include <string>

#include "util/time.hpp"

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

using namespace std::chrono;
namespace t = kube::util::time;

namespace {

std::string human(long long secs) {
    return t::humanDuration(seconds(secs));
}

void human_duration_matches_kube_table(void**) {
    struct Case {
        long long secs;
        const char* want;
    } cases[] = {
        {-2, "<invalid>"},
        {-1, "0s"},
        {0, "0s"},
        {1, "1s"},
        {59, "59s"},
        {119, "119s"},
        {120, "2m"},
        {123, "2m3s"},
        {599, "9m59s"},
        {600, "10m"},
        {630, "10m"},
        {179 * 60 + 59, "179m"},
        {3 * 3600, "3h"},
        {3 * 3600 + 60, "3h1m"},
        {7 * 3600 + 59 * 60, "7h59m"},
        {8 * 3600, "8h"},
        {47 * 3600 + 59 * 60, "47h"},
        {48 * 3600, "2d"},
        {51 * 3600, "2d3h"},
        {7 * 86400 + 23 * 3600, "7d23h"},
        {8 * 86400, "8d"},
        {729 * 86400, "729d"},
        {730 * 86400, "2y"},
        {731 * 86400, "2y1d"},
        {(3 * 365 + 45) * 86400LL, "3y45d"},
        {8 * 365 * 86400LL, "8y"},
        {(8 * 365 + 100) * 86400LL, "8y"},
    };
    for (const Case& c : cases) {
        std::string got = human(c.secs);
        if (got != c.want) {
            fail_msg("humanDuration(%llds) = %s, want %s", c.secs, got.c_str(), c.want);
        }
    }
}

void rfc3339_round_trips_at_second_precision(void**) {
    auto tp = t::parseRFC3339("2026-11-21T23:55:01Z");
    assert_true(tp.has_value());
    assert_string_equal(t::formatRFC3339(*tp).c_str(), "2026-11-21T23:55:01Z");
    assert_int_equal(system_clock::to_time_t(*tp), 1795305301);
    // Sub-second parts are dropped on output.
    assert_string_equal(t::formatRFC3339(*tp + milliseconds(999)).c_str(), "2026-11-21T23:55:01Z");
}

void rfc3339_accepts_fractions_and_offsets(void**) {
    auto utc = t::parseRFC3339("2026-11-21T23:55:01Z");
    auto frac = t::parseRFC3339("2026-11-21T23:55:01.250000Z");
    auto offset = t::parseRFC3339("2026-11-22T01:55:01+02:00");
    auto negative = t::parseRFC3339("2026-11-21T20:25:01.5-03:30");
    assert_true(utc && frac && offset && negative);
    assert_true(*frac - *utc == milliseconds(250));
    assert_true(*offset == *utc);
    assert_true(*negative - *utc == milliseconds(500));
}

void rfc3339_rejects_malformed_input(void**) {
    for (const char* bad :
         {"", "2026-11-21", "2026-11-21T23:55:01", "2026-13-01T00:00:00Z", "2026-11-21 23:55:01Z",
          "2026-11-21T23:55:01.Z", "2026-11-21T23:55:01+0200", "2026-11-21T23:55:01Zjunk"}) {
        if (t::parseRFC3339(bad)) {
            fail_msg("accepted %s", bad);
        }
    }
}

void human_since_reports_unknown_for_missing_timestamps(void**) {
    auto now = *t::parseRFC3339("2026-11-21T23:55:01Z");
    assert_string_equal(t::humanSince("", now).c_str(), "<unknown>");
    assert_string_equal(t::humanSince("garbage", now).c_str(), "<unknown>");
    assert_string_equal(t::humanSince("2026-11-21T23:50:01Z", now).c_str(), "5m");
    assert_string_equal(t::humanSince("2026-11-21T23:55:10Z", now).c_str(), "<invalid>");
}

void years_0000_to_9999_round_trip_exactly(void**) {
    // The clock's int64 nanoseconds would wrap outside 1677-2262.
    for (const char* text :
         {"9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z",
          "1600-02-29T12:00:00Z", "1816-03-01T00:00:00Z", "2262-04-12T00:00:00Z"}) {
        auto tp = t::parseRFC3339(text);
        assert_true(tp.has_value());
        assert_string_equal(t::formatRFC3339(*tp).c_str(), text);
    }
    auto last = t::parseRFC3339("9999-12-31T23:59:59.999999Z");
    assert_int_equal(last->time_since_epoch().count(), 253402300799999999LL);
    // Offsets can carry a time past the four-digit years; Go writes them so.
    assert_string_equal(t::formatRFC3339(*t::parseRFC3339("9999-12-31T23:59:59-01:00")).c_str(),
                        "10000-01-01T00:59:59Z");
    assert_string_equal(t::formatRFC3339(*t::parseRFC3339("0000-01-01T00:30:00+01:00")).c_str(),
                        "-0001-12-31T23:30:00Z");
    // Before 1970, a fraction does not round the second up.
    assert_string_equal(t::formatRFC3339(*t::parseRFC3339("1969-12-31T23:59:59.5Z")).c_str(),
                        "1969-12-31T23:59:59Z");
    assert_string_equal(t::formatUnixSeconds(INT64_MIN).c_str(), "-292277022657-01-27T08:29:52Z");
    assert_string_equal(t::formatUnixSeconds(INT64_MAX).c_str(), "292277026596-12-04T15:30:07Z");
    // A five-digit year is not RFC 3339 (Go: cannot parse "0-01-01..." as "-").
    assert_false(t::parseRFC3339("10000-01-01T00:00:00Z").has_value());
    // The age of a far time neither overflows nor wraps.
    auto now = system_clock::now();
    assert_string_equal(t::humanSince("9999-12-31T23:59:59Z", now).c_str(), "<invalid>");
    assert_true(t::humanSince("0000-01-01T00:00:00Z", now).ends_with("y"));
    assert_int_equal(t::secondsBetween(*t::parseRFC3339("0000-01-01T00:00:00Z"),
                                       *t::parseRFC3339("9999-12-31T23:59:59Z"))
                         .count(),
                     253402300799LL + 62167219200LL);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(human_duration_matches_kube_table),
        cmocka_unit_test(rfc3339_round_trips_at_second_precision),
        cmocka_unit_test(years_0000_to_9999_round_trip_exactly),
        cmocka_unit_test(rfc3339_accepts_fractions_and_offsets),
        cmocka_unit_test(rfc3339_rejects_malformed_input),
        cmocka_unit_test(human_since_reports_unknown_for_missing_timestamps),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
