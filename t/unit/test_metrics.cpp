#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "endpoints/metrics.hpp"
#include "endpoints/request_info.hpp"
#include "util/metrics/series_table.hpp"
#include "util/metrics/text_format.hpp"

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

namespace um = kube::util::metrics;
namespace km = kube::endpoints::metrics;
using kube::endpoints::resolveRequestInfo;

namespace {

// A table in shared anonymous memory, as the nginx zone is: a fork sees it.
struct SharedTable {
    explicit SharedTable(unsigned slots, unsigned values = 1) {
        bytes = um::SeriesTable::bytesFor(slots, values);
        mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        assert_true(mem != MAP_FAILED);
        table = um::SeriesTable::create(mem, slots, values);
    }
    ~SharedTable() { munmap(mem, bytes); }
    void* mem;
    size_t bytes;
    um::SeriesTable* table;
};

void a_series_keeps_its_slot_and_families_are_apart(void**) {
    SharedTable t(64);
    auto* a = t.table->find(1, "verb=\"GET\"");
    auto* b = t.table->find(1, "verb=\"GET\"");
    auto* c = t.table->find(2, "verb=\"GET\"");
    assert_non_null(a);
    assert_ptr_equal(a, b);
    assert_ptr_not_equal(a, c);
    a->fetch_add(3);
    c->fetch_add(1);
    assert_int_equal(t.table->used(), 2);
    std::string out;
    um::appendScalars(out, "x_total", *t.table, 1, false);
    assert_string_equal(out.c_str(), "x_total{verb=\"GET\"} 3\n");
}

void a_full_table_drops_and_counts_what_does_not_fit(void**) {
    SharedTable t(8);
    for (int i = 0; i < 8; i++) {
        assert_non_null(t.table->find(1, "n=\"" + std::to_string(i) + "\""));
    }
    assert_null(t.table->find(1, "n=\"8\""));
    assert_int_equal(t.table->overflow(), 1);
    // a series already held still counts
    assert_non_null(t.table->find(1, "n=\"3\""));
    // labels longer than a slot holds are dropped too
    assert_null(t.table->find(1, std::string(um::SeriesTable::kMaxLabels + 1, 'a')));
    assert_int_equal(t.table->overflow(), 2);
}

void two_processes_count_into_one_series(void**) {
    SharedTable t(1024);
    const int n = 200000;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (int i = 0; i < n; i++) {
            t.table->find(7, "worker=\"any\"")->fetch_add(1, std::memory_order_relaxed);
        }
        _exit(0);
    }
    for (int i = 0; i < n; i++) {
        t.table->find(7, "worker=\"any\"")->fetch_add(1, std::memory_order_relaxed);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    auto series = um::collect(*t.table, 7);
    assert_int_equal(series.size(), 1);
    assert_int_equal(series.begin()->second[0], 2 * n);
    assert_int_equal(t.table->used(), 1);
}

void per_process_gauges_are_summed_under_a_mask_and_reset(void**) {
    SharedTable t(64);
    t.table->find(3 | (1 << 8), "l=\"a\"")->fetch_add(2);
    t.table->find(3 | (2 << 8), "l=\"a\"")->fetch_add(static_cast<uint64_t>(-1));
    std::string out;
    um::appendScalars(out, "g", *t.table, 3, true, 0xff);
    assert_string_equal(out.c_str(), "g{l=\"a\"} 1\n");
    t.table->reset(3 | (1 << 8));
    out.clear();
    um::appendScalars(out, "g", *t.table, 3, true, 0xff);
    assert_string_equal(out.c_str(), "g{l=\"a\"} -1\n");
}

void histograms_are_cumulative_and_inf_is_the_count(void**) {
    um::Buckets b{{0.005, 0.025, 1}, 1e-9};
    SharedTable t(16, b.values());
    auto* h = t.table->find(1, "verb=\"GET\"");
    b.observe(h, 0.001, 1000000);
    b.observe(h, 0.005, 5000000);  // on a bound: that bucket (le)
    b.observe(h, 0.5, 500000000);
    b.observe(h, 7, 7000000000ull);
    std::string out;
    um::appendHistograms(out, "d_seconds", b, *t.table, 1);
    assert_string_equal(out.c_str(),
                        "d_seconds_bucket{verb=\"GET\",le=\"0.005\"} 2\n"
                        "d_seconds_bucket{verb=\"GET\",le=\"0.025\"} 2\n"
                        "d_seconds_bucket{verb=\"GET\",le=\"1\"} 3\n"
                        "d_seconds_bucket{verb=\"GET\",le=\"+Inf\"} 4\n"
                        "d_seconds_sum{verb=\"GET\"} 7.506\n"
                        "d_seconds_count{verb=\"GET\"} 4\n");
}

void label_values_are_escaped_and_floats_written_as_go_does(void**) {
    um::LabelBuffer b;
    b.add("resource", "a\"b\\c\nd");
    assert_true(b.ok());
    assert_string_equal(std::string(b.view()).c_str(), "resource=\"a\\\"b\\\\c\\nd\"");
    um::LabelBuffer full;
    full.add("x", std::string(um::SeriesTable::kMaxLabels, 'y'));
    assert_false(full.ok());
    assert_string_equal(um::formatFloat(1e6).c_str(), "1e+06");
    assert_string_equal(um::formatFloat(0.005).c_str(), "0.005");
    assert_string_equal(um::formatFloat(131072).c_str(), "131072");
}

void request_labels_follow_kube_apiserver(void**) {
    auto get = resolveRequestInfo("GET", "/api/v1/namespaces/a/configmaps/x", "");
    auto list = resolveRequestInfo("GET", "/api/v1/namespaces/a/configmaps", "");
    auto all = resolveRequestInfo("GET", "/apis/apps/v1/deployments", "");
    auto watch = resolveRequestInfo("GET", "/api/v1/namespaces/a/configmaps", "watch=1");
    auto create = resolveRequestInfo("POST", "/api/v1/namespaces/a/configmaps", "");
    auto patch = resolveRequestInfo("PATCH", "/api/v1/namespaces/a/configmaps/x", "");
    auto dc = resolveRequestInfo("DELETE", "/api/v1/namespaces/a/configmaps", "");
    auto health = resolveRequestInfo("GET", "/readyz", "");

    assert_true(km::reportedVerb(get, "GET", "") == "GET");
    assert_true(km::reportedVerb(list, "GET", "") == "LIST");
    assert_true(km::reportedVerb(watch, "GET", "") == "WATCH");
    assert_true(km::reportedVerb(create, "POST", "application/json") == "POST");
    assert_true(km::reportedVerb(patch, "PATCH", "application/merge-patch+json") == "PATCH");
    assert_true(km::reportedVerb(patch, "PATCH", "application/apply-patch+yaml") == "APPLY");
    assert_true(km::reportedVerb(dc, "DELETE", "") == "DELETE");
    assert_true(km::reportedVerb(health, "GET", "") == "GET");

    assert_true(km::scope(get, "GET") == "resource");
    assert_true(km::scope(list, "GET") == "namespace");
    assert_true(km::scope(all, "GET") == "cluster");
    assert_true(km::scope(create, "POST") == "resource");
    assert_true(km::scope(dc, "DELETE") == "namespace");
    assert_true(km::scope(health, "GET") == "");

    assert_true(km::dryRun("") == "");
    assert_true(km::dryRun("watch=1") == "");
    assert_true(km::dryRun("dryRun=All") == "All");
    assert_true(km::dryRun("a=b&dryRun=All&dryRun=All") == "All");
    assert_true(km::dryRun("dryRun=") == "invalid");
    assert_true(km::dryRun("dryRun=Some") == "invalid");

    assert_true(km::systemClient("kube-scheduler/v1.26.5 (linux/amd64)") == "kube-scheduler");
    assert_true(km::systemClient("kube-controller-manager/v1.26") == "kube-controller-manager");
    assert_true(km::systemClient("kube-scheduler") == "");
    assert_true(km::systemClient("kubectl/v1.32") == "");

    assert_true(km::longRunning(watch));
    assert_false(km::longRunning(list));
    assert_false(km::mutating(get));
    assert_true(km::mutating(create));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_series_keeps_its_slot_and_families_are_apart),
        cmocka_unit_test(a_full_table_drops_and_counts_what_does_not_fit),
        cmocka_unit_test(two_processes_count_into_one_series),
        cmocka_unit_test(per_process_gauges_are_summed_under_a_mask_and_reset),
        cmocka_unit_test(histograms_are_cumulative_and_inf_is_the_count),
        cmocka_unit_test(label_values_are_escaped_and_floats_written_as_go_does),
        cmocka_unit_test(request_labels_follow_kube_apiserver),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
