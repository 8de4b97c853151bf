#include <sys/wait.h>
#include <unistd.h>

#include <re2/re2.h>

#include <cstring>
#include <set>
#include <string>

#include "util/uid.hpp"

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

// Version 4, RFC 4122 variant, lowercase hex with the dashes where
// metadata.uid has them.
void uids_are_version_4(void**) {
    // RE2: std::regex trips g++ 12's maybe-uninitialized under the sanitizers
    RE2 form("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    assert_true(form.ok());
    assert_false(RE2::FullMatch("0123456789ab-cdef-4123-8123-0123456789ab", form));
    for (int i = 0; i < 1000; i++) {
        std::string uid = kube::util::newUid();
        assert_true(RE2::FullMatch(uid, form));
    }
}

void uids_do_not_repeat(void**) {
    std::set<std::string> seen;
    // more than one block of random bytes
    for (int i = 0; i < 20000; i++) {
        assert_true(seen.insert(kube::util::newUid()).second);
    }
}

// nginx forks its workers from the master: a worker must not hand out what
// its parent had drawn and not used yet.
void a_forked_child_draws_its_own(void**) {
    (void)kube::util::newUid();  // the parent holds a block now
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        std::string uid = kube::util::newUid();
        ssize_t n = write(pipefd[1], uid.data(), uid.size());
        _exit(n == static_cast<ssize_t>(uid.size()) ? 0 : 1);
    }
    std::string mine = kube::util::newUid();
    char child[37] = {};
    assert_int_equal(read(pipefd[0], child, 36), 36);
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_string_not_equal(child, mine.c_str());
    close(pipefd[0]);
    close(pipefd[1]);
}

void suffixes_use_kubes_alphabet(void**) {
    std::string s = kube::util::randomSuffix(5);
    assert_int_equal(s.size(), 5);
    assert_true(s.find_first_not_of("bcdfghjklmnpqrstvwxz2456789") == std::string::npos);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uids_are_version_4),
        cmocka_unit_test(uids_do_not_repeat),
        cmocka_unit_test(a_forked_child_draws_its_own),
        cmocka_unit_test(suffixes_use_kubes_alphabet),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
