#include <chrono>
#include <memory>
#include <string>

#include "fake_loop.hpp"
#include "util/turns.hpp"

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
using kube::testing::FakeLoop;
using kube::util::Turns;

namespace {

constexpr microseconds kSlice{200};

// A job that needs `turns` turns, using each to the deadline, and writes its
// name into `log` at each.
struct GreedyJob : Turns::Job {
    GreedyJob(char name, int turns, std::string& log) : name(name), left(turns), log(log) {}

    bool runUntil(steady_clock::time_point deadline) override {
        log += name;
        while (steady_clock::now() < deadline) {
        }
        return --left > 0;
    }

    char name;
    int left;
    std::string& log;
};

// A job that ends at once, after an optional side effect.
struct QuickJob : Turns::Job {
    QuickJob(char name, std::string& log) : name(name), log(log) {}

    bool runUntil(steady_clock::time_point) override {
        log += name;
        if (then) {
            then();
        }
        return false;
    }

    char name;
    std::string& log;
    std::function<void()> then;
};

void greedy_jobs_take_turns_one_pass_each(void**) {
    FakeLoop loop;
    Turns turns(loop, kSlice);
    std::string log;
    auto a = std::make_shared<GreedyJob>('a', 3, log);
    auto b = std::make_shared<GreedyJob>('b', 2, log);
    turns.ready(a);
    turns.ready(b);
    // one pass per turn: a's slice leaves nothing for b in the same pass
    assert_int_equal(loop.run(), 5);
    assert_string_equal(log.c_str(), "ababa");
}

void quick_jobs_share_one_pass(void**) {
    FakeLoop loop;
    Turns turns(loop, seconds(10));
    std::string log;
    auto a = std::make_shared<QuickJob>('a', log);
    auto b = std::make_shared<QuickJob>('b', log);
    auto c = std::make_shared<QuickJob>('c', log);
    turns.ready(a);
    turns.ready(b);
    turns.ready(a);  // already waiting: keeps its place, one turn
    turns.ready(c);
    assert_int_equal(loop.run(), 1);
    assert_string_equal(log.c_str(), "abc");
}

void a_job_made_ready_during_a_pass_waits_for_the_next(void**) {
    FakeLoop loop;
    Turns turns(loop, seconds(10));
    std::string log;
    auto a = std::make_shared<QuickJob>('a', log);
    auto b = std::make_shared<QuickJob>('b', log);
    bool again = true;
    a->then = [&] {
        if (again) {
            again = false;
            turns.ready(b);
            turns.ready(a);
        }
    };
    turns.ready(a);
    assert_int_equal(loop.run(), 2);
    assert_string_equal(log.c_str(), "aba");
}

void a_job_gone_before_its_turn_is_skipped(void**) {
    FakeLoop loop;
    Turns turns(loop, seconds(10));
    std::string log;
    auto a = std::make_shared<QuickJob>('a', log);
    auto b = std::make_shared<QuickJob>('b', log);
    turns.ready(a);
    turns.ready(b);
    a.reset();
    assert_int_equal(loop.run(), 1);
    assert_string_equal(log.c_str(), "b");
}

void turns_gone_before_the_pass_touch_nothing(void**) {
    FakeLoop loop;
    std::string log;
    auto a = std::make_shared<QuickJob>('a', log);
    {
        Turns turns(loop, kSlice);
        turns.ready(a);
    }
    assert_int_equal(loop.run(), 1);
    assert_string_equal(log.c_str(), "");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(greedy_jobs_take_turns_one_pass_each),
        cmocka_unit_test(quick_jobs_share_one_pass),
        cmocka_unit_test(a_job_made_ready_during_a_pass_waits_for_the_next),
        cmocka_unit_test(a_job_gone_before_its_turn_is_skipped),
        cmocka_unit_test(turns_gone_before_the_pass_touch_nothing),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
