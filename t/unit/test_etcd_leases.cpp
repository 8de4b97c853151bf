// The etcd backend's leases for events (kube's etcd3 leaseManager): one lease
// reused while it covers the TTL within its margin, up to 1,000 keys, and a
// new one asked of etcd only then; writes arriving during a grant wait for it.
#include <string>
#include <vector>

#include "storage/etcd/lease_manager.hpp"

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

using kube::storage::Error;
using kube::storage::ErrorCode;
using kube::storage::etcd::LeaseManager;
using std::chrono::seconds;

// etcd, as far as leases go: grants are answered when the test says so.
struct FakeEtcd {
    struct Asked {
        seconds ttl;
        LeaseManager::Granted granted;
    };
    std::vector<Asked> asked;
    int64_t nextId = 100;
    LeaseManager::Clock::time_point now{seconds(1000)};

    LeaseManager manager(LeaseManager::Config config = {}) {
        return LeaseManager(
            [this](seconds ttl, LeaseManager::Granted granted) {
                asked.push_back(Asked{ttl, std::move(granted)});
            },
            [this] { return now; }, config);
    }

    // Answers the oldest grant not answered yet.
    void grant() {
        assert_false(asked.empty());
        Asked a = std::move(asked.front());
        asked.erase(asked.begin());
        a.granted(Error{}, nextId++);
    }
};

// The lease `m` gives a write now (granting it at once when etcd is asked).
int64_t leaseOf(LeaseManager& m, FakeEtcd& etcd, seconds ttl = seconds(3600)) {
    int64_t got = -1;
    m.getLease(ttl, [&](const Error& err, int64_t id) {
        assert_true(err.ok());
        got = id;
    });
    if (got == -1) {
        etcd.grant();
    }
    assert_int_not_equal(got, -1);
    return got;
}

void one_lease_serves_writes_within_its_reuse_margin(void**) {
    FakeEtcd etcd;
    LeaseManager m = etcd.manager();
    int64_t first = leaseOf(m, etcd);
    // Asked for the TTL plus kube's margin: min(60 s, 5% of an hour).
    assert_int_equal(m.grants(), 1);
    for (int i = 0; i < 10; i++) {
        etcd.now += seconds(5);
        assert_int_equal(leaseOf(m, etcd), first);
    }
    assert_int_equal(m.grants(), 1);
    // Past the margin the lease no longer outlives a new event's TTL.
    etcd.now += seconds(11);
    int64_t second = leaseOf(m, etcd);
    assert_int_not_equal(second, first);
    assert_int_equal(m.grants(), 2);
}

void the_grant_adds_the_margin_to_the_ttl(void**) {
    FakeEtcd etcd;
    LeaseManager m = etcd.manager();
    m.getLease(seconds(3600), [](const Error&, int64_t) {});
    assert_int_equal(etcd.asked.size(), 1);
    assert_int_equal(etcd.asked[0].ttl.count(), 3660);
    etcd.grant();
    // 5% of a short TTL is below a minute.
    m.getLease(seconds(100), [](const Error&, int64_t) {});
    assert_int_equal(etcd.asked.size(), 1);
    assert_int_equal(etcd.asked[0].ttl.count(), 105);
}

void a_lease_carries_at_most_max_object_count_keys(void**) {
    FakeEtcd etcd;
    LeaseManager::Config config;
    config.maxObjectCount = 3;
    LeaseManager m = etcd.manager(config);
    int64_t first = leaseOf(m, etcd);
    assert_int_equal(leaseOf(m, etcd), first);
    assert_int_equal(leaseOf(m, etcd), first);
    int64_t fourth = leaseOf(m, etcd);
    assert_int_not_equal(fourth, first);
    assert_int_equal(m.grants(), 2);
}

void writes_during_a_grant_wait_for_it(void**) {
    FakeEtcd etcd;
    LeaseManager m = etcd.manager();
    std::vector<int64_t> got;
    for (int i = 0; i < 5; i++) {
        m.getLease(seconds(3600), [&](const Error& err, int64_t id) {
            assert_true(err.ok());
            got.push_back(id);
        });
    }
    assert_int_equal(etcd.asked.size(), 1);
    assert_true(got.empty());
    etcd.grant();
    assert_int_equal(got.size(), 5);
    for (int64_t id : got) {
        assert_int_equal(id, got[0]);
    }
    assert_int_equal(m.grants(), 1);
}

void a_failed_grant_fails_the_waiting_writes_and_the_next_asks_again(void**) {
    FakeEtcd etcd;
    LeaseManager m = etcd.manager();
    std::vector<ErrorCode> codes;
    for (int i = 0; i < 2; i++) {
        m.getLease(seconds(3600), [&](const Error& err, int64_t id) {
            codes.push_back(err.code);
            assert_int_equal(id, 0);
        });
    }
    LeaseManager::Granted granted = std::move(etcd.asked[0].granted);
    etcd.asked.clear();
    granted(Error{ErrorCode::Unavailable, "etcd lease grant: connection refused"}, 0);
    assert_int_equal(codes.size(), 2);
    assert_int_equal(static_cast<int>(codes[0]), static_cast<int>(ErrorCode::Unavailable));
    leaseOf(m, etcd);
    assert_int_equal(m.grants(), 2);
}

void a_forgotten_lease_is_not_reused(void**) {
    FakeEtcd etcd;
    LeaseManager m = etcd.manager();
    int64_t first = leaseOf(m, etcd);
    m.forget(first + 1);  // not ours: kept
    assert_int_equal(leaseOf(m, etcd), first);
    m.forget(first);
    assert_int_not_equal(leaseOf(m, etcd), first);
}

void a_lease_for_a_longer_ttl_is_not_reused_for_a_shorter_one(void**) {
    FakeEtcd etcd;
    LeaseManager m = etcd.manager();
    int64_t hour = leaseOf(m, etcd, seconds(3600));
    // It would keep a 10-minute event for an hour.
    int64_t tenMinutes = leaseOf(m, etcd, seconds(600));
    assert_int_not_equal(hour, tenMinutes);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_lease_serves_writes_within_its_reuse_margin),
        cmocka_unit_test(the_grant_adds_the_margin_to_the_ttl),
        cmocka_unit_test(a_lease_carries_at_most_max_object_count_keys),
        cmocka_unit_test(writes_during_a_grant_wait_for_it),
        cmocka_unit_test(a_failed_grant_fails_the_waiting_writes_and_the_next_asks_again),
        cmocka_unit_test(a_forgotten_lease_is_not_reused),
        cmocka_unit_test(a_lease_for_a_longer_ttl_is_not_reused_for_a_shorter_one),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
