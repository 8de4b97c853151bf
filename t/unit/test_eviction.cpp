// pods/eviction's decisions (apis/policy/eviction), as kube 1.26's
// EvictionREST takes them, without storage: which pods skip the budgets,
// which budgets cover a pod, what an unready pod does to a budget, and what
// checkAndDecrement writes or refuses.
#include <string>
#include <vector>

#include "apis/policy/eviction.hpp"
#include "util/json.hpp"

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
namespace policy = kube::apis::policy;

namespace {

json::Document doc(const std::string& text) {
    json::Document d;
    assert_false(json::parse(text, d).has_value());
    return d;
}

json::Document pod(const std::string& phase, bool ready, const std::string& extraMeta = "") {
    return doc(R"({"metadata":{"name":"p","namespace":"ns","labels":{"app":"web"})" + extraMeta +
               R"(},"status":{"phase":")" + phase +
               R"(","conditions":[{"type":"Ready","status":")" + (ready ? "True" : "False") +
               R"("}]}})");
}

json::Document budget(int64_t allowed, int64_t current, int64_t desired,
                      const std::string& spec = R"("selector":{"matchLabels":{"app":"web"}})",
                      int64_t generation = 1, int64_t observed = 1) {
    return doc(R"({"metadata":{"name":"pdb","namespace":"ns","generation":)" +
               std::to_string(generation) + R"(},"spec":{)" + spec +
               R"(},"status":{"observedGeneration":)" + std::to_string(observed) +
               R"(,"disruptionsAllowed":)" + std::to_string(allowed) + R"(,"currentHealthy":)" +
               std::to_string(current) + R"(,"desiredHealthy":)" + std::to_string(desired) +
               R"(,"expectedPods":2}})");
}

void terminal_pending_and_terminating_pods_skip_the_budgets(void**) {
    for (const char* phase : {"Pending", "Succeeded", "Failed"}) {
        assert_true(policy::canIgnoreBudgets(pod(phase, false)));
    }
    assert_false(policy::canIgnoreBudgets(pod("Running", true)));
    assert_false(policy::canIgnoreBudgets(pod("", true)));
    assert_true(policy::canIgnoreBudgets(
        pod("Running", true, R"(,"deletionTimestamp":"2026-01-01T00:00:00Z")")));
    // Pending pods are deleted at the version read; terminal and terminating ones not.
    assert_true(policy::shouldEnforceResourceVersion(pod("Pending", false)));
    assert_false(policy::shouldEnforceResourceVersion(pod("Failed", false)));
    assert_false(policy::shouldEnforceResourceVersion(
        pod("Running", true, R"(,"deletionTimestamp":"2026-01-01T00:00:00Z")")));
}

void budgets_cover_pods_of_their_namespace_their_selector_matches(void**) {
    json::Document p = pod("Running", true);
    json::Document match = budget(1, 2, 1);
    json::Document other = budget(1, 2, 1, R"("selector":{"matchLabels":{"app":"db"}})");
    json::Document empty = budget(1, 2, 1, R"("selector":{})");
    json::Document none = budget(1, 2, 1, R"("minAvailable":1)");
    json::Document invalid =
        budget(1, 2, 1, R"("selector":{"matchExpressions":[{"key":"app","operator":"Bogus"}]})");
    json::Document elsewhere = budget(1, 2, 1);
    elsewhere["metadata"]["namespace"].SetString("other");
    json::Document expr = budget(
        1, 2, 1,
        R"("selector":{"matchExpressions":[{"key":"app","operator":"In","values":["web"]}]})");
    std::vector<const json::Value*> all = {&match, &other, &empty, &none, &invalid, &elsewhere};
    std::vector<const json::Value*> covering = policy::budgetsOf(p, all);
    assert_int_equal(covering.size(), 1);
    assert_ptr_equal(covering[0], &match);
    all.push_back(&expr);
    assert_int_equal(policy::budgetsOf(p, all).size(), 2);
    assert_int_equal(policy::moreThanOneBudget().code, 500);
    assert_string_equal(policy::moreThanOneBudget().toJson().c_str(),
                        R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
                        R"J("message":"This pod has more than one PodDisruptionBudget, which the )J"
                        R"J(eviction subresource does not support.","code":500})J");
}

void a_ready_pod_takes_a_disruption_and_is_recorded_as_disrupted(void**) {
    json::Document b = budget(2, 2, 0);
    assert_true(policy::decideBudget(pod("Running", true), b) == policy::BudgetDecision::Decrement);
    assert_false(policy::checkAndDecrement(b, "p", "2026-11-26T10:00:00Z", false, b.GetAllocator())
                     .has_value());
    assert_string_equal(json::serialize(b["status"]).c_str(),
                        R"({"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":2,)"
                        R"("desiredHealthy":0,"expectedPods":2,)"
                        R"("disruptedPods":{"p":"2026-11-26T10:00:00Z"}})");
}

void the_last_disruption_sets_disruption_allowed_false(void**) {
    json::Document b = budget(1, 2, 1);
    assert_false(policy::checkAndDecrement(b, "p", "2026-11-26T10:00:00Z", false, b.GetAllocator())
                     .has_value());
    assert_string_equal(
        json::serialize(b["status"]).c_str(),
        R"({"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":2,"desiredHealthy":1,)"
        R"("expectedPods":2,"conditions":[{"type":"DisruptionAllowed","status":"False",)"
        R"("observedGeneration":1,"lastTransitionTime":"2026-11-26T10:00:00Z",)"
        R"("reason":"InsufficientPods","message":""}],)"
        R"("disruptedPods":{"p":"2026-11-26T10:00:00Z"}})");
}

void a_dry_run_decrements_but_records_no_disrupted_pod(void**) {
    json::Document b = budget(3, 3, 0);
    assert_false(policy::checkAndDecrement(b, "p", "2026-11-26T10:00:00Z", true, b.GetAllocator())
                     .has_value());
    assert_int_equal(b["status"]["disruptionsAllowed"].GetInt64(), 2);
    assert_null(json::member(b["status"], "disruptedPods"));
}

void a_budget_with_no_disruption_left_refuses_with_429(void**) {
    json::Document b = budget(0, 2, 2);
    auto refused = policy::checkAndDecrement(b, "p", "now", false, b.GetAllocator());
    assert_true(refused.has_value());
    assert_string_equal(
        refused->toJson().c_str(),
        R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
        R"J("message":"Cannot evict pod as it would violate the pod's disruption budget.",)J"
        R"J("reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget",)J"
        R"J("message":"The disruption budget pdb needs 2 healthy pods and has 2 currently"}]},)J"
        R"J("code":429})J");
    assert_int_equal(b["status"]["disruptionsAllowed"].GetInt64(), 0);
}

void a_budget_not_yet_observed_asks_to_retry_in_10s(void**) {
    json::Document b = budget(1, 2, 1, R"("selector":{"matchLabels":{"app":"web"}})", 2, 1);
    auto refused = policy::checkAndDecrement(b, "p", "now", false, b.GetAllocator());
    assert_true(refused.has_value());
    assert_int_equal(refused->code, 429);
    assert_int_equal(refused->details->retryAfterSeconds, 10);
    assert_string_equal(refused->details->causes.at(0).message.c_str(),
                        "The disruption budget pdb is still being processed by the server.");
}

void negative_or_overfull_budgets_are_forbidden(void**) {
    json::Document b = budget(-1, 2, 1);
    auto refused = policy::checkAndDecrement(b, "p", "now", false, b.GetAllocator());
    assert_true(refused.has_value());
    assert_int_equal(refused->code, 403);
    assert_string_equal(refused->message.c_str(),
                        "poddisruptionbudget.policy \"pdb\" is forbidden: pdb disruptions allowed "
                        "is negative");
    json::Document full = budget(5, 2, 1);
    json::Value pods(rapidjson::kObjectType);
    for (size_t i = 0; i <= policy::kMaxDisruptedPods; ++i) {
        pods.AddMember(json::stringValue("p" + std::to_string(i), full.GetAllocator()),
                       json::Value("now"), full.GetAllocator());
    }
    full["status"].AddMember("disruptedPods", pods, full.GetAllocator());
    refused = policy::checkAndDecrement(full, "p", "now", false, full.GetAllocator());
    assert_true(refused.has_value());
    assert_int_equal(refused->code, 403);
}

void an_unready_pod_leaves_a_met_budget_alone(void**) {
    json::Document unready = pod("Running", false);
    // IfHealthyBudget (the default): the budget is met without the pod.
    assert_true(policy::decideBudget(unready, budget(0, 2, 1)) ==
                policy::BudgetDecision::DeleteUnhealthy);
    // Not met, or nothing desired: the pod takes a disruption like a ready one.
    assert_true(policy::decideBudget(unready, budget(0, 1, 2)) ==
                policy::BudgetDecision::Decrement);
    assert_true(policy::decideBudget(unready, budget(0, 0, 0)) ==
                policy::BudgetDecision::Decrement);
    // AlwaysAllow: an unready pod always goes without a disruption.
    json::Document always = budget(
        0, 1, 2,
        R"("selector":{"matchLabels":{"app":"web"}},"unhealthyPodEvictionPolicy":"AlwaysAllow")");
    assert_true(policy::decideBudget(unready, always) == policy::BudgetDecision::DeleteUnhealthy);
    assert_true(policy::decideBudget(pod("Running", true), always) ==
                policy::BudgetDecision::Decrement);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(terminal_pending_and_terminating_pods_skip_the_budgets),
        cmocka_unit_test(budgets_cover_pods_of_their_namespace_their_selector_matches),
        cmocka_unit_test(a_ready_pod_takes_a_disruption_and_is_recorded_as_disrupted),
        cmocka_unit_test(the_last_disruption_sets_disruption_allowed_false),
        cmocka_unit_test(a_dry_run_decrements_but_records_no_disrupted_pod),
        cmocka_unit_test(a_budget_with_no_disruption_left_refuses_with_429),
        cmocka_unit_test(a_budget_not_yet_observed_asks_to_retry_in_10s),
        cmocka_unit_test(negative_or_overfull_budgets_are_forbidden),
        cmocka_unit_test(an_unready_pod_leaves_a_met_budget_alone),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
