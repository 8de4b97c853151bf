#include <cstdint>
#include <string>

#include "util/quantity.hpp"

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

using kube::util::Quantity;

namespace {

std::string canonical(const char* text) {
    std::optional<Quantity> q = Quantity::parse(text);
    if (!q) {
        fail_msg("parse(%s) failed", text);
    }
    return q->string();
}

std::string parseError(const char* text) {
    std::string why;
    if (Quantity::parse(text, &why)) {
        fail_msg("parse(%s) succeeded", text);
    }
    return why;
}

const char* const kFormat =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

// Each as kube-apiserver 1.26.5 stores it in a ResourceQuota (before the
// ResourceList rounding, which roundUpToMilli covers).
void exponents_keep_their_low_32_bits_as_kube_does(void**) {
    // int32(9223372036854775807) is -1, int32(2^32 + 1) is 1.
    assert_string_equal(canonical("1e9223372036854775807").c_str(), "100e-3");
    assert_string_equal(canonical("1e4294967297").c_str(), "10");
    // int32(2^31) is -2^31: far below the nano unit, rounded up to it (it
    // was 1e-9 before by an overflow in the nano shift, now by the rule).
    assert_string_equal(canonical("1e2147483648").c_str(), "1e-9");
    assert_string_equal(canonical("1e-2147483648").c_str(), "1e-9");
    assert_string_equal(parseError("1e9223372036854775808").c_str(),
                        "unable to parse quantity's suffix");
}

void amounts_past_the_exponent_limit_are_refused(void**) {
    // kube-apiserver spends minutes (504) on 1e2147483647; we refuse it.
    assert_string_equal(parseError("1e2147483647").c_str(), "unable to parse quantity's suffix");
    assert_string_equal(parseError("1e100001").c_str(), "unable to parse quantity's suffix");
    assert_string_equal(canonical("1e100000").c_str(), "10e99999");
    assert_string_equal(canonical("0.1e100001").c_str(), "10e99999");
    assert_string_equal(canonical("1e-100001").c_str(), "1e-9");
    std::string digits = "1" + std::string(100001, '0');
    assert_string_equal(parseError(digits.c_str()).c_str(),
                        "unable to parse quantity's numeric part");
}

void big_amounts_are_exact(void**) {
    assert_string_equal(canonical("1e37").c_str(), "10e36");
    assert_string_equal(canonical("1e100").c_str(), "10e99");
    assert_string_equal(canonical("123456789012345678901234567890").c_str(),
                        "123456789012345678901234567890");
    assert_true(Quantity::parse("123456789012345678901234567891")
                    ->compare(*Quantity::parse("123456789012345678901234567890")) > 0);
    assert_true(Quantity::parse("1e37")->compare(*Quantity::parse("1e36")) > 0);
    assert_true(Quantity::parse("-1e37")->compare(*Quantity::parse("-1e36")) < 0);
    assert_int_equal(Quantity::parse("1e30")->value(), INT64_MAX);
    assert_int_equal(Quantity::parse("-1e30")->value(), INT64_MIN);
    assert_int_equal(Quantity::parse("9223372036854775807")->value(), INT64_MAX);
    assert_int_equal(Quantity::parse("9223372036854775")->milliValue(), 9223372036854775000);
    // A thousand digits and a long fraction: exact, then rounded to nano.
    std::string many = std::string(1000, '7');
    assert_string_equal(canonical(many.c_str()).c_str(), many.c_str());
    assert_string_equal(canonical(("0." + std::string(3000, '0') + "1").c_str()).c_str(), "1n");
    assert_string_equal(canonical("1.5e-9").c_str(), "2e-9");
    assert_string_equal(canonical("0.000000000000000000000000001").c_str(), "1n");
}

void binary_amounts_are_capped_at_int64(void**) {
    // 2^63 does not fit the fast path; maxAllowed caps it.
    assert_string_equal(canonical("8Ei").c_str(), "9223372036854775807");
    assert_string_equal(canonical("99999999999999999999Ei").c_str(), "9223372036854775807");
    assert_string_equal(canonical("-9Ei").c_str(), "-9223372036854775807");
    assert_string_equal(canonical("7Ei").c_str(), "7Ei");
    assert_string_equal(canonical("0.1Ki").c_str(), "102400m");
    assert_string_equal(canonical("0.5Ki").c_str(), "512");
    assert_int_equal(Quantity::parse("8Ei")->value(), INT64_MAX);
}

void errors_are_kubes(void**) {
    assert_string_equal(parseError("").c_str(), kFormat);
    assert_string_equal(parseError("1.2.3").c_str(), kFormat);
    assert_string_equal(parseError("1e3Ki").c_str(), kFormat);
    for (const char* bad : {"1K", "1e", "1e+", "1ee3", "++1", "1Mi1", "1EE"}) {
        assert_string_equal(parseError(bad).c_str(), "unable to parse quantity's suffix");
    }
}

void resource_list_values_round_up_to_milli(void**) {
    auto milli = [](const char* text) {
        Quantity q = *Quantity::parse(text);
        q.roundUpToMilli();
        return q.string();
    };
    assert_string_equal(milli("1n").c_str(), "1m");
    assert_string_equal(milli("1e-9").c_str(), "1e-3");
    assert_string_equal(milli("-1n").c_str(), "-1m");
    assert_string_equal(milli("1.0001").c_str(), "1001m");
    // Exact at milli: the text written stays (int64 amounts)...
    assert_string_equal(milli("00001").c_str(), "00001");
    assert_string_equal(milli("1500m").c_str(), "1500m");
    // ...but an inf.Dec amount shows its canonical form.
    assert_string_equal(milli("123456789012345678901234567890").c_str(),
                        "123456789012345678901234567890");
    // An int64 amount is rescaled (%#v shows it); an inf.Dec one stays one.
    Quantity dec = *Quantity::parse("1.5n");
    dec.roundUpToMilli();
    assert_int_equal(dec.milliValue(), 1);
    assert_string_equal(dec.goString().c_str(), "\"1m\"");
    Quantity q = *Quantity::parse("1n");
    q.roundUpToMilli();
    assert_string_equal(q.goString().c_str(),
                        "resource.Quantity{i:resource.int64Amount{value:1, scale:-3}, "
                        "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"1m\", "
                        "Format:\"DecimalSI\"}");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exponents_keep_their_low_32_bits_as_kube_does),
        cmocka_unit_test(amounts_past_the_exponent_limit_are_refused),
        cmocka_unit_test(big_amounts_are_exact),
        cmocka_unit_test(binary_amounts_are_capped_at_int64),
        cmocka_unit_test(errors_are_kubes),
        cmocka_unit_test(resource_list_values_round_up_to_milli),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
