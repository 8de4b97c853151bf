#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "audit/event.hpp"
#include "audit/log_writer.hpp"
#include "audit/objects.hpp"

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

namespace a = kube::audit;
namespace json = kube::util::json;
using std::chrono::microseconds;

namespace {

// 2026-11-25T23:10:04.016782Z
const a::MicroTime kReceived{microseconds(1795648204016782LL)};

a::Event createEvent() {
    kube::authz::Attributes at;
    at.user.name = "admin";
    at.user.uid = "1";
    at.user.groups = {"system:masters", "system:authenticated"};
    at.verb = "create";
    at.isResourceRequest = true;
    at.namespace_ = "h-audit-req";
    at.apiVersion = "v1";
    at.resource = "configmaps";

    a::RequestFacts facts;
    facts.auditID = "e49571c7-b7df-4688-8250-08e828ae6ab8";
    facts.requestURI = "/api/v1/namespaces/h-audit-req/configmaps";
    facts.userAgent = "audit-probe/1.0";
    facts.sourceIPs = a::sourceIPs("10.1.2.3, 10.4.5.6", "", "127.0.0.1");
    facts.received = kReceived;
    return a::newEventFromRequest(facts, a::Level::Request, at);
}

// What kube-apiserver 1.26 wrote for the same request (its audit log, with
// a Request-level policy), RequestReceived then ResponseComplete.
void events_are_kube_lines(void**) {
    a::Event ev = createEvent();
    assert_string_equal(
        a::serialize(ev).c_str(),
        R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"e49571c7-b7df-4688-8250-08e828ae6ab8","stage":"RequestReceived","requestURI":"/api/v1/namespaces/h-audit-req/configmaps","verb":"create","user":{"username":"admin","uid":"1","groups":["system:masters","system:authenticated"]},"sourceIPs":["10.1.2.3","10.4.5.6","127.0.0.1"],"userAgent":"audit-probe/1.0","objectRef":{"resource":"configmaps","namespace":"h-audit-req","apiVersion":"v1"},"requestReceivedTimestamp":"2026-11-25T23:10:04.016782Z","stageTimestamp":"2026-11-25T23:10:04.016782Z"})"
        "\n");

    json::Document body;
    assert_true(a::decodeBody(
        "application/json",
        "{\n  \"metadata\": {\"name\": \"cm1\"},\n  \"data\": {\"a\": \"b\"}\n}", body));
    a::fillObjectRef(*ev.objectRef, body);
    ev.requestObject = a::eventObject(body, false);
    ev.stage = a::Stage::ResponseComplete;
    ev.stageTimestamp = a::MicroTime(microseconds(1795648204019505LL));
    ev.responseStatus = a::responseStatusOf(201, nullptr);
    ev.annotations[a::kReasonAnnotation] = "";
    ev.annotations[a::kDecisionAnnotation] = a::kDecisionAllow;
    assert_string_equal(
        a::serialize(ev).c_str(),
        R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"e49571c7-b7df-4688-8250-08e828ae6ab8","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/h-audit-req/configmaps","verb":"create","user":{"username":"admin","uid":"1","groups":["system:masters","system:authenticated"]},"sourceIPs":["10.1.2.3","10.4.5.6","127.0.0.1"],"userAgent":"audit-probe/1.0","objectRef":{"resource":"configmaps","namespace":"h-audit-req","name":"cm1","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201},"requestObject":{"metadata":{"name":"cm1"},"data":{"a":"b"}},"requestReceivedTimestamp":"2026-11-25T23:10:04.016782Z","stageTimestamp":"2026-11-25T23:10:04.019505Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}})"
        "\n");
}

void error_status_and_impersonated_user_as_kube_shows_them(void**) {
    a::Event ev = createEvent();
    ev.level = a::Level::Metadata;
    ev.stage = a::Stage::ResponseComplete;
    ev.user.uid.clear();
    ev.user.extra["scopes.example.com"] = {"a", "b"};
    kube::authn::UserInfo nobody;
    nobody.name = "nobody";
    nobody.groups = {"g1", "system:authenticated"};
    ev.impersonatedUser = nobody;
    ev.sourceIPs = {"127.0.0.1"};

    json::Document status;
    assert_true(a::decodeBody(
        "",
        R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps is forbidden: User \"nobody\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"h\"","reason":"Forbidden","details":{"kind":"configmaps"},"code":403})",
        status));
    ev.responseStatus = a::responseStatusOf(403, &status);

    std::string line = a::serialize(ev);
    assert_non_null(strstr(
        line.c_str(),
        R"("user":{"username":"admin","groups":["system:masters","system:authenticated"],"extra":{"scopes.example.com":["a","b"]}},"impersonatedUser":{"username":"nobody","groups":["g1","system:authenticated"]},"sourceIPs":["127.0.0.1"])"));
    assert_non_null(strstr(
        line.c_str(),
        R"("responseStatus":{"metadata":{},"status":"Failure","message":"configmaps is forbidden: User \"nobody\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"h\"","reason":"Forbidden","details":{"kind":"configmaps"},"code":403})"));
}

void strings_are_escaped_as_go_escapes_them(void**) {
    a::Event ev = createEvent();
    ev.requestURI = "/api/v1/namespaces/x/configmaps?watch=1&labelSelector=a<b>";
    ev.userAgent = std::string("tab\there \x01 \xff \xe2\x80\xa8 \"q\"");
    std::string line = a::serialize(ev);
    assert_non_null(strstr(
        line.c_str(),
        R"("requestURI":"/api/v1/namespaces/x/configmaps?watch=1\u0026labelSelector=a\u003cb\u003e")"));
    assert_non_null(strstr(line.c_str(), R"("userAgent":"tab\there \u0001 \ufffd \u2028 \"q\"")"));

    json::Document obj;
    assert_true(a::decodeBody("application/json", R"({"data":{"k":"<&>"}})", obj));
    assert_string_equal(a::eventObject(obj, false).c_str(),
                        R"({"data":{"k":"\u003c\u0026\u003e"}})");
}

void long_user_agents_are_truncated(void**) {
    kube::authz::Attributes at;
    at.verb = "get";
    a::RequestFacts facts;
    std::string ua(2000, 'x');
    facts.userAgent = ua;
    a::Event ev = a::newEventFromRequest(facts, a::Level::Metadata, at);
    assert_int_equal(ev.userAgent.size(), 1024 + 12);
    assert_true(ev.userAgent.ends_with("x...TRUNCATED"));
    assert_false(ev.objectRef.has_value());
}

void timestamps_have_six_fractional_digits(void**) {
    assert_string_equal(a::formatMicroTime(a::MicroTime(microseconds(0))).c_str(),
                        "1970-01-01T00:00:00.000000Z");
    assert_string_equal(a::formatMicroTime(a::MicroTime(microseconds(1795648204000001LL))).c_str(),
                        "2026-11-25T23:10:04.000001Z");
}

void source_ips_follow_utilnet(void**) {
    auto ips = a::sourceIPs(" 10.0.0.1 ,bogus, 10.0.0.2", "10.0.0.9", "127.0.0.1");
    std::vector<std::string> want = {"10.0.0.1", "10.0.0.2", "10.0.0.9", "127.0.0.1"};
    assert_true(ips == want);
    // X-Real-Ip already in the chain, and the peer repeating the last address
    ips = a::sourceIPs("10.0.0.1, 127.0.0.1", "10.0.0.1", "127.0.0.1");
    want = {"10.0.0.1", "127.0.0.1"};
    assert_true(ips == want);
    // canonical forms
    ips = a::sourceIPs("::ffff:10.1.1.1, 2001:DB8:0:0::1", "", "::1");
    want = {"10.1.1.1", "2001:db8::1", "::1"};
    assert_true(ips == want);
}

void omit_managed_fields_drops_them_from_objects_and_items(void**) {
    json::Document obj;
    assert_true(a::decodeBody(
        "application/json",
        R"({"kind":"ConfigMapList","items":[{"metadata":{"name":"a","managedFields":[{"manager":"m"}]}}],"metadata":{}})",
        obj));
    assert_string_equal(
        a::eventObject(obj, true).c_str(),
        R"({"kind":"ConfigMapList","items":[{"metadata":{"name":"a"}}],"metadata":{}})");
    json::Document yaml;
    assert_true(a::decodeBody("application/apply-patch+yaml", "metadata:\n  name: x\n", yaml));
    assert_string_equal(a::eventObject(yaml, true).c_str(), R"({"metadata":{"name":"x"}})");
    json::Document bad;
    assert_false(a::decodeBody("application/json", "{not json", bad));
}

std::string slurp(const std::string& path) {
    std::string out;
    FILE* f = fopen(path.c_str(), "r");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        out.append(buf, n);
    }
    fclose(f);
    return out;
}

void the_writer_writes_every_line_and_moves_to_a_reopened_file(void**) {
    char dir[] = "/tmp/test_audit_XXXXXX";
    assert_non_null(mkdtemp(dir));
    std::string first = std::string(dir) + "/audit.log";
    std::string rotated = std::string(dir) + "/audit.log.1";
    int fd = open(first.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    assert_true(fd >= 0);

    a::LogWriter w(fd, 1 << 20);
    for (int i = 0; i < 1000; ++i) {
        assert_true(w.write("line " + std::to_string(i) + "\n"));
    }
    // logrotate's rename, then nginx's reopen: a new file at the old name
    assert_int_equal(rename(first.c_str(), rotated.c_str()), 0);
    int fd2 = open(first.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    w.reopen(fd2);
    close(fd);  // as ngx_reopen_files does: the writer has its own copy
    close(fd2);
    for (int i = 1000; i < 1500; ++i) {
        assert_true(w.write("line " + std::to_string(i) + "\n"));
    }
    w.close();

    std::string before, after;
    for (int i = 0; i < 1000; ++i) {
        before += "line " + std::to_string(i) + "\n";
    }
    for (int i = 1000; i < 1500; ++i) {
        after += "line " + std::to_string(i) + "\n";
    }
    assert_true(slurp(rotated) == before);
    assert_true(slurp(first) == after);
    assert_int_equal(w.written(), 1500);
    assert_int_equal(w.dropped(), 0);
    assert_int_equal(w.failed(), 0);
    unlink(first.c_str());
    unlink(rotated.c_str());
    rmdir(dir);
}

void a_full_queue_drops_and_counts(void**) {
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    {
        // nobody reads the pipe: the thread blocks on its first batch once
        // the pipe's buffer is full, and the queue fills behind it
        a::LogWriter w(pipefd[1], 4096);
        std::string line(1000, 'x');
        line += '\n';
        int dropped = 0;
        for (int i = 0; i < 200; ++i) {
            if (!w.write(line)) {
                ++dropped;
            }
        }
        assert_true(dropped > 0);
        assert_int_equal(w.dropped(), static_cast<uint64_t>(dropped));
        close(pipefd[1]);
        // drain so that close() can finish
        fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
        std::thread reader([&] {
            char buf[65536];
            for (;;) {
                ssize_t n = read(pipefd[0], buf, sizeof buf);
                if (n == 0) {
                    return;
                }
                if (n < 0) {
                    usleep(1000);
                }
            }
        });
        w.close();
        reader.join();
        assert_int_equal(w.written() + w.dropped(), 200);
    }
    close(pipefd[0]);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(events_are_kube_lines),
        cmocka_unit_test(error_status_and_impersonated_user_as_kube_shows_them),
        cmocka_unit_test(strings_are_escaped_as_go_escapes_them),
        cmocka_unit_test(long_user_agents_are_truncated),
        cmocka_unit_test(timestamps_have_six_fractional_digits),
        cmocka_unit_test(source_ips_follow_utilnet),
        cmocka_unit_test(omit_managed_fields_drops_them_from_objects_and_items),
        cmocka_unit_test(the_writer_writes_every_line_and_moves_to_a_reopened_file),
        cmocka_unit_test(a_full_queue_drops_and_counts),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
