#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "endpoints/request_info.hpp"
#include "fake_loop.hpp"
#include "server/health.hpp"
#include "server/server.hpp"
#include "storage/memory/memory_store.hpp"

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

using kube::server::HealthChecks;
using kube::endpoints::HttpRequest;
using kube::endpoints::HttpResponse;
using kube::testing::FakeLoop;

namespace {

std::string header(const HttpResponse& r, std::string_view name) {
    for (const auto& [k, v] : r.headers) {
        if (k == name) {
            return v;
        }
    }
    return "<absent>";
}

void expectText(const HttpResponse& r, int status, const char* body, bool nosniff) {
    if (r.status != status || r.body != body) {
        fail_msg("want %d \"%s\", got %d \"%s\"", status, body, r.status, r.body.c_str());
    }
    assert_string_equal(r.contentType.c_str(), "text/plain; charset=utf-8");
    assert_string_equal(header(r, "X-Content-Type-Options").c_str(),
                        nosniff ? "nosniff" : "<absent>");
}

HttpResponse get(const HealthChecks& h, std::string_view url) {
    size_t q = url.find('?');
    return h.serve(url.substr(0, q), q == std::string_view::npos ? "" : url.substr(q + 1));
}

// Checks run in the order they were added, with "shutdown" last on /readyz;
// /healthz and /livez leave out the readiness-only checks.
void endpoints_list_their_checks_as_kube_does(void** /*state*/) {
    HealthChecks h;
    h.add("ping", [] { return std::string(); });
    h.add("etcd", [] { return std::string(); });
    h.add("informer-sync", [] { return std::string(); }, kube::server::kReadyz);
    std::function<void()> done = h.addPostStartHook("rbac/bootstrap-roles");
    h.setShutdownSignal([] { return false; });

    expectText(get(h, "/healthz"), 500,
               "[+]ping ok\n[+]etcd ok\n[-]poststarthook/rbac/bootstrap-roles failed: reason "
               "withheld\nhealthz check failed\n",
               true);
    expectText(get(h, "/readyz"), 500,
               "[+]ping ok\n[+]etcd ok\n[+]informer-sync ok\n[-]poststarthook/rbac/"
               "bootstrap-roles failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n",
               true);
    expectText(get(h, "/readyz/poststarthook/rbac/bootstrap-roles"), 500,
               "internal server error: not finished\n", true);
    assert_false(h.ready());

    done();
    assert_true(h.ready());
    expectText(get(h, "/readyz"), 200, "ok", true);
    expectText(get(h, "/livez?verbose"), 200,
               "[+]ping ok\n[+]etcd ok\n[+]poststarthook/rbac/bootstrap-roles ok\nlivez check "
               "passed\n",
               true);
    expectText(get(h, "/readyz?verbose=false"), 200,
               "[+]ping ok\n[+]etcd ok\n[+]informer-sync ok\n[+]poststarthook/rbac/"
               "bootstrap-roles ok\n[+]shutdown ok\nreadyz check passed\n",
               true);
    expectText(get(h, "/readyz/poststarthook/rbac/bootstrap-roles"), 200, "ok", false);
    expectText(get(h, "/readyz/informer-sync"), 200, "ok", false);
    expectText(get(h, "/livez/informer-sync"), 404, "404 page not found\n", true);
    expectText(get(h, "/livez/shutdown"), 404, "404 page not found\n", true);
    expectText(get(h, "/readyz/"), 404, "404 page not found\n", true);
    expectText(get(h, "/readyz/nope"), 404, "404 page not found\n", true);
}

// ?exclude= skips a check (a failing one too); names matching none are
// warned about, sorted and quoted, whether or not verbose.
void exclude_skips_checks_and_warns_of_unknown_names(void** /*state*/) {
    HealthChecks h;
    h.add("ping", [] { return std::string(); });
    h.add("etcd", [] { return std::string("connection refused"); });
    bool stopping = false;
    h.setShutdownSignal([&stopping] { return stopping; });

    expectText(get(h, "/readyz?exclude=etcd"), 200, "ok", true);
    expectText(get(h, "/readyz?verbose&exclude=x2&exclude=etcd&exclude=nope"), 200,
               "[+]ping ok\n[+]etcd excluded: ok\n[+]shutdown ok\nwarn: some health checks "
               "cannot be excluded: no matches for \"nope\",\"x2\"\nreadyz check passed\n",
               true);
    expectText(get(h, "/livez?exclude=nope"), 500,
               "[+]ping ok\n[-]etcd failed: reason withheld\nwarn: some health checks cannot be "
               "excluded: no matches for \"nope\"\nlivez check failed\n",
               true);
    expectText(get(h, "/livez/etcd"), 500, "internal server error: connection refused\n", true);

    stopping = true;
    expectText(get(h, "/readyz/shutdown"), 500, "internal server error: process is shutting down\n",
               true);
    expectText(get(h, "/readyz?exclude=etcd"), 500,
               "[+]ping ok\n[+]etcd excluded: ok\n[-]shutdown failed: reason withheld\nreadyz "
               "check failed\n",
               true);
    expectText(get(h, "/livez?exclude=etcd"), 200, "ok", true);
}

struct Fixture {
    FakeLoop loop;
    kube::storage::memory::Store memory{loop};
    kube::server::Server server;

    explicit Fixture(kube::server::ServerOptions options = {})
        : server(loop, memory, options) {}

    HttpResponse send(const std::string& method, const std::string& url) {
        size_t mark = url.find('?');
        std::string path = url.substr(0, mark);
        std::string query = mark == std::string::npos ? "" : url.substr(mark + 1);
        kube::endpoints::RequestInfo info =
            kube::endpoints::resolveRequestInfo(method, path, query);
        HttpRequest req;
        req.method = method;
        req.path = path;
        req.query = query;
        req.accept = "application/json";
        req.info = &info;
        HttpResponse out;
        bool called = false;
        server.serve(req, [&](HttpResponse&& r) {
            called = true;
            out = std::move(r);
        });
        loop.run();
        if (!called) {
            fail_msg("%s %s: no response", method.c_str(), url.c_str());
        }
        return out;
    }
};

// The server's own checks: not ready before start() has filled its caches
// and created the default namespaces and the bootstrap policy.
void the_server_is_ready_once_started(void** /*state*/) {
    kube::server::ServerOptions options;
    options.rbacPolicyOwner = true;
    options.storageName = "memory";
    Fixture f(options);
    assert_false(f.server.ready());
    expectText(f.send("GET", "/readyz"), 500,
               "[+]ping ok\n[+]log ok\n[+]memory ok\n[-]informer-sync failed: reason withheld\n"
               "[-]poststarthook/bootstrap-controller failed: reason withheld\n"
               "[-]poststarthook/rbac/bootstrap-roles failed: reason withheld\n"
               "[-]poststarthook/priority-and-fairness-config-producer failed: reason withheld\n"
               "[+]shutdown ok\nreadyz check failed\n",
               true);
    expectText(f.send("GET", "/healthz/poststarthook/bootstrap-controller"), 500,
               "internal server error: not finished\n", true);

    f.server.start();
    f.loop.run();
    assert_true(f.server.ready());
    expectText(f.send("GET", "/readyz?verbose"), 200,
               "[+]ping ok\n[+]log ok\n[+]memory ok\n[+]informer-sync ok\n"
               "[+]poststarthook/bootstrap-controller ok\n"
               "[+]poststarthook/rbac/bootstrap-roles ok\n"
               "[+]poststarthook/priority-and-fairness-config-producer ok\n"
               "[+]shutdown ok\nreadyz check passed\n",
               true);
    expectText(f.send("GET", "/healthz"), 200, "ok", true);
    expectText(f.send("GET", "/livez/memory"), 200, "ok", false);
    expectText(f.send("GET", "/livez/ping/"), 404, "404 page not found\n", true);
}

// A worker that does not write the bootstrap (another worker of the host
// does) is ready only once its own caches hold what the owner wrote: until
// then its authorizer would refuse what the bootstrap policy allows.
void a_follower_worker_is_ready_once_its_caches_hold_the_bootstrap(void** /*state*/) {
    FakeLoop loop;
    kube::storage::memory::Store memory{loop};
    kube::server::ServerOptions followerOptions;
    followerOptions.storageName = "memory";
    kube::server::Server follower(loop, memory, followerOptions);
    follower.start();
    loop.run();
    assert_false(follower.ready());
    kube::server::ServerOptions ownerOptions = followerOptions;
    ownerOptions.rbacPolicyOwner = true;
    kube::server::Server owner(loop, memory, ownerOptions);
    owner.start();
    loop.run();
    assert_true(owner.ready());
    // The policy is stored; the follower has not read the store's log yet.
    assert_false(follower.ready());
    follower.pollChanges();  // as a worker woken by another's commit does
    loop.run();
    assert_true(follower.ready());
}

// A storage whose reads throw, as a bug deep in a handler would.
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

// WithPanicRecovery's role: an exception thrown while serving a request is a
// 500 InternalError Status, and the server goes on serving.
void an_exception_in_a_handler_is_a_500_and_the_server_goes_on(void** /*state*/) {
    FakeLoop loop;
    ThrowingStore store{loop};
    kube::server::ServerOptions options;
    options.watchCache = false;  // every read asks the store
    kube::server::Server server(loop, store, options);
    server.start();
    loop.run();

    auto get = [&](const std::string& path) {
        kube::endpoints::RequestInfo info = kube::endpoints::resolveRequestInfo("GET", path, "");
        HttpRequest req;
        req.method = "GET";
        req.path = path;
        req.accept = "application/json";
        req.info = &info;
        HttpResponse out;
        int calls = 0;
        server.serve(req, [&](HttpResponse&& r) {
            calls++;
            out = std::move(r);
        });
        loop.run();
        assert_int_equal(calls, 1);
        return out;
    };

    store.throwing = true;
    HttpResponse r = get("/api/v1/namespaces/default");
    assert_int_equal(r.status, 500);
    assert_string_equal(r.contentType.c_str(), "application/json");
    assert_non_null(strstr(r.body.c_str(), "\"reason\":\"InternalError\""));
    assert_non_null(
        strstr(r.body.c_str(), "\"message\":\"Internal error occurred: storage exploded\""));

    store.throwing = false;
    r = get("/api/v1/namespaces/default");
    assert_int_equal(r.status, 200);
    assert_non_null(strstr(r.body.c_str(), "\"name\":\"default\""));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(endpoints_list_their_checks_as_kube_does),
        cmocka_unit_test(exclude_skips_checks_and_warns_of_unknown_names),
        cmocka_unit_test(the_server_is_ready_once_started),
        cmocka_unit_test(a_follower_worker_is_ready_once_its_caches_hold_the_bootstrap),
        cmocka_unit_test(an_exception_in_a_handler_is_a_500_and_the_server_goes_on),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
