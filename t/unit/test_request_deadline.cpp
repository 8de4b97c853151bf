#include <chrono>
#include <string>

#include "endpoints/request_info.hpp"
#include "server/request_deadline.hpp"
#include "util/go_duration.hpp"

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

using namespace std::chrono_literals;
using kube::util::parseGoDuration;

namespace {

void expectDuration(const char* s, std::chrono::nanoseconds want) {
    std::string error;
    auto d = parseGoDuration(s, &error);
    if (!d || *d != want) {
        fail_msg("%s: want %lld ns, got %s", s, static_cast<long long>(want.count()),
                 d ? std::to_string(d->count()).c_str() : error.c_str());
    }
}

void expectError(const char* s, const char* message) {
    std::string error;
    auto d = parseGoDuration(s, &error);
    if (d) {
        fail_msg("%s: want an error, got %lld ns", s, static_cast<long long>(d->count()));
    }
    assert_string_equal(error.c_str(), message);
}

// Go's time.ParseDuration, its values and its error texts.
void go_durations_parse_as_go_parses_them(void** /*state*/) {
    expectDuration("0", 0ns);
    expectDuration("-0", 0ns);
    expectDuration("1ns", 1ns);
    expectDuration("1.5h", 90min);
    expectDuration("1h2m3s", 3723s);
    expectDuration("-1.5s", -1500ms);
    expectDuration("+2ms", 2ms);
    expectDuration(".5s", 500ms);
    expectDuration("5.s", 5s);
    expectDuration("3us", 3us);
    expectDuration("3\xc2\xb5s", 3us);
    expectDuration("3\xce\xbcs", 3us);
    expectDuration("2562047h47m16.854775807s", std::chrono::nanoseconds(INT64_MAX));
    expectError("", "time: invalid duration \"\"");
    expectError("abc", "time: invalid duration \"abc\"");
    expectError("1", "time: missing unit in duration \"1\"");
    expectError("5.5.5s", "time: missing unit in duration \"5.5.5s\"");
    expectError("1x", "time: unknown unit \"x\" in duration \"1x\"");
    expectError("1d", "time: unknown unit \"d\" in duration \"1d\"");
    expectError(".s", "time: invalid duration \".s\"");
    expectError("-", "time: invalid duration \"-\"");
    expectError("\xc2\xb5", "time: invalid duration \"\\xc2\\xb5\"");
    expectError("9999999999999999999s", "time: invalid duration \"9999999999999999999s\"");
    expectError("2562047h47m16.854775808s", "time: invalid duration \"2562047h47m16.854775808s\"");
}

kube::server::RequestDeadline deadline(const char* method, const char* path, const char* query) {
    kube::endpoints::RequestInfo info = kube::endpoints::resolveRequestInfo(method, path, query);
    return kube::server::requestDeadline(info, query, 60s);
}

// WithRequestDeadline: the smaller of the maximum and a positive ?timeout=;
// a malformed one is a 400; long-running requests have none.
void the_deadline_is_the_smaller_timeout(void** /*state*/) {
    auto d = deadline("GET", "/api/v1/namespaces", "");
    assert_false(d.longRunning);
    assert_false(d.error.has_value());
    assert_true(d.timeout == 60s);
    assert_true(deadline("GET", "/api/v1/namespaces", "timeout=5s").timeout == 5s);
    assert_true(deadline("GET", "/api/v1/namespaces", "timeout=2m").timeout == 60s);
    assert_true(deadline("GET", "/api/v1/namespaces", "timeout=0").timeout == 60s);
    assert_true(deadline("GET", "/api/v1/namespaces", "timeout=-1s").timeout == 60s);
    assert_true(deadline("GET", "/api/v1/namespaces", "timeout=").timeout == 60s);
    assert_true(deadline("GET", "/version", "timeout=1ms").timeout == 1ms);

    d = deadline("POST", "/api/v1/namespaces", "timeout=abc");
    assert_true(d.error.has_value());
    assert_int_equal(d.error->code, 400);
    assert_string_equal(d.error->reason.c_str(), "BadRequest");
    assert_string_equal(d.error->message.c_str(),
                        "invalid timeout specified in the request URL - time: invalid duration "
                        "\"abc\"");

    assert_true(deadline("GET", "/api/v1/namespaces", "watch=1&timeout=abc").longRunning);
    assert_true(deadline("GET", "/api/v1/watch/namespaces", "").longRunning);
    assert_true(deadline("GET", "/api/v1/namespaces/a/pods/p/log", "").longRunning);
    assert_true(deadline("POST", "/api/v1/namespaces/a/pods/p/exec", "").longRunning);
    assert_false(deadline("GET", "/api/v1/namespaces/a/pods/p/status", "").longRunning);

    kube::endpoints::HttpResponse r = kube::server::timeoutResponse();
    assert_int_equal(r.status, 504);
    assert_string_equal(r.contentType.c_str(), "text/plain; charset=utf-8");
    assert_string_equal(r.body.c_str(),
                        "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout: request "
                        "did not complete within the allotted timeout\",\"reason\":\"Timeout\","
                        "\"details\":{},\"code\":504}\n");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(go_durations_parse_as_go_parses_them),
        cmocka_unit_test(the_deadline_is_the_smaller_timeout),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
