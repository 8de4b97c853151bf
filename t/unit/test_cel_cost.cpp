// CEL cost limits: the compile-time estimate against kube's static limit
// (factors as kube-apiserver 1.26.5 reported them for the same rules), and
// the runtime limit that stops an evaluation, so no rule can hang a worker.
#include <chrono>
#include <string>

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
using kube::cel::testing::schemaType;

namespace {

const char* const kUnbounded = R"({"type": "object", "properties": {
    "s": {"type": "string"}, "l": {"type": "array", "items": {"type": "string"}},
    "n": {"type": "array", "items": {"type": "integer"}},
    "m": {"type": "object", "additionalProperties": {"type": "string"}}}})";

std::string refusal(const char* factor) {
    return std::string("cost: estimated rule cost exceeds budget by factor of ") + factor +
           " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where "
           "arrays, maps, and strings are declared)";
}

std::string estimateOutcome(const std::string& rule, const char* schema = kUnbounded) {
    return outcome(rule.c_str(), schema, "{}");
}

void estimates_refuse_what_kube_refuses(void**) {
    std::string concat = "self.s";
    for (int i = 0; i < 100; i++) {
        concat += "+'a'";
    }
    assert_string_equal(estimateOutcome(concat + " != ''").c_str(), refusal("3.1x").c_str());
    assert_string_equal(estimateOutcome("self.l.filter(e, e.startsWith('a')).size() > 0").c_str(),
                        refusal("1.6x").c_str());
    assert_string_equal(estimateOutcome("self.s.split(',').all(x, x.size() > 1)").c_str(),
                        refusal("2.0x").c_str());
    for (const char* rule :
         {"self.l.all(e, self.l.exists(f, f == e))",
          "self.n.all(x, self.n.all(y, self.n.all(z, true)))", "self.l.map(e, e.size()).sum() > 0",
          "self.l.isSorted()", "self.l.all(e, e.matches('^[a-z]+$'))",
          "self.l.exists(e, e.contains('x'))", "self.l.indexOf('a') >= 0"}) {
        assert_string_equal(estimateOutcome(rule).c_str(), refusal("more than 100x").c_str());
    }
}

void estimates_accept_what_kube_accepts(void**) {
    for (const char* rule :
         {"self.l.all(e, e.size() < 10)", "self.s.matches('^[a-z]+$')", "self.s.contains('abc')",
          "self.m.all(k, self.m[k].startsWith('x'))", "self.s + self.s == ''",
          "self.s.lowerAscii() == 'a'", "self.n.sum() > 0", "self.n.isSorted()",
          "self.s.findAll('[a-z]').size() > 1", "self.l.all(e, e.startsWith('a'))",
          "self.l.exists_one(x, x == 'a')", "self.s.split(',').size() > 0"}) {
        std::string got = estimateOutcome(rule);
        if (got.rfind("cost:", 0) == 0) {
            fail_msg("%s: %s", rule, got.c_str());
        }
    }
    // Bounds make a quadratic rule affordable.
    const char* bounded = R"({"type": "array", "maxItems": 100,
                              "items": {"type": "string", "maxLength": 64}})";
    assert_string_equal(estimateOutcome("self.all(e, self.exists(f, f == e))", bounded).c_str(),
                        "true");
}

void cost_messages_give_the_factor_as_kube_does(void**) {
    using kube::cel::costErrorMessage;
    const char* tail =
        " (try simplifying the rule, or adding maxItems, maxProperties, and "
        "maxLength where arrays, maps, and strings are declared)";
    assert_string_equal(
        costErrorMessage("estimated rule cost", 12000000, 10000000).c_str(),
        (std::string("estimated rule cost exceeds budget by factor of 1.200000x") + tail).c_str());
    assert_string_equal(
        costErrorMessage("estimated rule cost", 25000000, 10000000).c_str(),
        (std::string("estimated rule cost exceeds budget by factor of 2.5x") + tail).c_str());
    assert_string_equal(
        costErrorMessage("x-kubernetes-validations estimated rule cost total for entire "
                         "OpenAPIv3 schema",
                         UINT64_MAX, 100000000)
            .c_str(),
        (std::string("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 "
                     "schema exceeds budget by factor of more than 100x") +
         tail)
            .c_str());
}

std::string numbers(int n) {
    std::string json = "[";
    for (int i = 0; i < n; i++) {
        json += (i ? "," : "") + std::to_string(i);
    }
    return json + "]";
}

// A rule whose estimate passes (7M < 10M) but that spends more than the
// per-call limit (1M) on a full list is stopped there.
void the_runtime_limit_stops_an_expensive_rule(void**) {
    const char* schema = R"({"type": "array", "maxItems": 1000, "items": {"type": "integer"}})";
    const char* rule = "self.all(x, self.all(y, x + y > -1))";
    std::string error;
    auto program = kube::cel::compile(rule, schemaType(schema), &error);
    assert_true(program != nullptr);
    assert_true(program->estimatedMaxCost() < kube::cel::kStaticEstimatedCostLimit);
    assert_string_equal(outcome(rule, schema, numbers(100).c_str()).c_str(), "true");
    assert_string_equal(outcome(rule, schema, numbers(1000).c_str()).c_str(),
                        "error: operation cancelled: actual cost limit exceeded");

    kube::util::json::Document self;
    kube::util::json::parse(numbers(1000), self);
    kube::cel::EvalOutcome out = kube::cel::evaluate(*program, {&self, nullptr});
    assert_true(out.cost > kube::cel::kPerCallLimit);
    assert_true(out.cost < kube::cel::kPerCallLimit + 100);
    // Under the limit the actual cost stays within the estimate.
    out = kube::cel::evaluate(*program, {&self, nullptr}, UINT64_MAX);
    assert_true(out.value.kind() == kube::cel::Kind::Bool);
    assert_true(out.cost <= program->estimatedMaxCost());
}

// Rules over unbounded data that the estimate would refuse still stop
// quickly at run time, whatever limit the caller gives.
void hostile_rules_stop_within_the_limit(void**) {
    std::string error;
    auto dyn = schemaType(kube::cel::testing::kAnySchema);
    kube::util::json::Document self;
    kube::util::json::parse(numbers(2000), self);
    for (const char* rule : {"self.all(x, self.all(y, self.all(z, true)))",
                             "self.map(x, self.map(y, self)).size() > 0",
                             "self.exists(x, self.filter(y, y == x).size() > 5)",
                             "[1,2,3,4,5,6,7,8].all(a, [1,2,3,4,5,6,7,8].all(b, "
                             "[1,2,3,4,5,6,7,8].all(c, self.all(d, d >= 0))))"}) {
        auto program = kube::cel::compile(rule, dyn, &error);
        if (!program) {
            fail_msg("%s: %s", rule, error.c_str());
        }
        auto start = std::chrono::steady_clock::now();
        kube::cel::EvalOutcome out = kube::cel::evaluate(*program, {&self, nullptr});
        auto took = std::chrono::steady_clock::now() - start;
        assert_true(out.value.isError());
        assert_string_equal(out.value.str().c_str(), kube::cel::kCostLimitExceeded);
        assert_true(took < std::chrono::seconds(1));
    }
}

// maxLength counts characters of up to 4 bytes each; contains and matches
// cost the product of their operands' tenths (a quarter of the pattern for
// matches), as cel-go estimates them: kube 1.26.5 gave these factors.
void string_bounds_and_functions_cost_as_kube_estimates(void**) {
    const char* strings = R"({"type": "array", "maxItems": 100000,
                              "items": {"type": "string", "maxLength": 1000}})";
    assert_string_equal(estimateOutcome("self.all(e, e.contains('abc'))", strings).c_str(),
                        refusal("4.0x").c_str());
    assert_string_equal(
        estimateOutcome("self.all(e, e.contains('abcdefghijklmnopqrstu'))", strings).c_str(),
        refusal("12.0x").c_str());
    assert_string_equal(
        estimateOutcome("self.all(e, e.matches('abcdefghijklmnopqrstu'))", strings).c_str(),
        refusal("24.1x").c_str());
    assert_string_equal(estimateOutcome("self.all(e, e + e != '')", strings).c_str(),
                        refusal("8.1x").c_str());
    assert_string_equal(estimateOutcome("self.all(e, e.size() < 5)", strings).c_str(), "true");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(estimates_refuse_what_kube_refuses),
        cmocka_unit_test(estimates_accept_what_kube_accepts),
        cmocka_unit_test(cost_messages_give_the_factor_as_kube_does),
        cmocka_unit_test(string_bounds_and_functions_cost_as_kube_estimates),
        cmocka_unit_test(the_runtime_limit_stops_an_expensive_rule),
        cmocka_unit_test(hostile_rules_stop_within_the_limit),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
