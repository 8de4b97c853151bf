// The dispatcher's panic recovery (mirrors WithPanicRecovery): an exception
// while handling a request is answered with a 500 InternalError Status, once,
// and the server keeps serving.

#include <stdexcept>
#include <string>

#include "fake_loop.hpp"
#include "server/server.hpp"
#include "storage/memory/memory_store.hpp"

extern "C" {
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
}

namespace {

using kube::endpoints::HttpRequest;
using kube::endpoints::HttpResponse;

// A storage whose reads throw, standing in for a bug anywhere below the handler.
class ThrowingStore : public kube::storage::memory::Store {
public:
    using Store::Store;
    bool throwing = false;

    void get(std::string_view key, GetCallback cb) override {
        if (throwing) {
            throw std::runtime_error("storage exploded");
        }
        Store::get(key, std::move(cb));
    }
};

struct Answer {
    int calls = 0;
    HttpResponse resp;
};

void serve(kube::server::Server& srv, kube::testing::FakeLoop& loop, std::string_view path,
           Answer& answer) {
    HttpRequest req;
    req.method = "GET";
    req.path = path;
    auto info = kube::endpoints::resolveRequestInfo(req.method, req.path, "");
    kube::authn::UserInfo user{"tester", "", {}, {}};
    req.info = &info;
    req.user = &user;
    srv.serve(req, [&answer](HttpResponse&& r) {
        answer.calls++;
        answer.resp = std::move(r);
    });
    loop.run();
}

void exception_in_handler_is_answered_with_internal_error(void**) {
    kube::testing::FakeLoop loop;
    ThrowingStore store(loop);
    kube::server::Server srv(loop, store);
    srv.start();
    loop.run();

    store.throwing = true;
    Answer answer;
    serve(srv, loop, "/api/v1/namespaces/default/configmaps/x", answer);
    assert_int_equal(answer.calls, 1);
    assert_int_equal(answer.resp.status, 500);
    assert_true(answer.resp.body.find("\"reason\":\"InternalError\"") != std::string::npos);
    assert_true(answer.resp.body.find("Internal error occurred: storage exploded") !=
                std::string::npos);
}

void server_keeps_serving_after_an_exception(void**) {
    kube::testing::FakeLoop loop;
    ThrowingStore store(loop);
    kube::server::Server srv(loop, store);
    srv.start();
    loop.run();

    store.throwing = true;
    Answer failed;
    serve(srv, loop, "/api/v1/namespaces/default", failed);
    assert_int_equal(failed.resp.status, 500);

    store.throwing = false;
    Answer ok;
    serve(srv, loop, "/api/v1/namespaces/default", ok);
    assert_int_equal(ok.calls, 1);
    assert_int_equal(ok.resp.status, 200);
    assert_true(ok.resp.body.find("\"name\":\"default\"") != std::string::npos);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exception_in_handler_is_answered_with_internal_error),
        cmocka_unit_test(server_keeps_serving_after_an_exception),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
