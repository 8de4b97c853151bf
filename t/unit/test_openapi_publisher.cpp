// The OpenAPI documents are built off the loop: after the routes change the
// next request starts a build as a blocking job; requests wait for it
// and are answered with the documents of the routes current when they
// asked, whole; changes made during a build are built next, together; a
// publisher gone before its build ends is not touched by it.
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "builtin_scheme.hpp"
#include "endpoints/route_table.hpp"
#include "fake_loop.hpp"
#include "openapi/publisher.hpp"
#include "registry/scheme.hpp"
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

namespace {

namespace json = kube::util::json;
using kube::endpoints::RouteTable;
using kube::openapi::Publisher;
using kube::openapi::Request;
using kube::openapi::Response;
using kube::registry::KindInfo;
using kube::registry::Scheme;
using kube::testing::FakeLoop;

const std::chrono::system_clock::time_point kNow{std::chrono::seconds(1700000000)};

// The built-in kinds and, when `group` is set, a Widget kind of `group`/v1.
std::shared_ptr<const RouteTable> routesWith(const std::string& group) {
    Scheme scheme;
    kube::registry::addBuiltinKinds(scheme);
    if (!group.empty()) {
        KindInfo extra;
        extra.group = group;
        extra.version = "v1";
        extra.kind = "Widget";
        extra.resource = "widgets";
        extra.singular = "widget";
        scheme.add(extra);
    }
    return std::make_shared<const RouteTable>(scheme);
}

// Asks `path`; the answer lands in the returned slot when it is given.
std::shared_ptr<std::optional<Response>> ask(Publisher& p, std::string_view path) {
    auto slot = std::make_shared<std::optional<Response>>();
    p.serve(Request{path, "", "application/json", "", kNow},
            [slot](Response r) { *slot = std::move(r); });
    return slot;
}

// Whether the v3 index (a 200 JSON answer) lists `path`.
bool indexLists(const Response& r, const char* path) {
    assert_int_equal(r.status, 200);
    json::Document d;
    assert_false(json::parse(r.body, d).has_value());
    return json::at(d, {"paths", path}) != nullptr;
}

void requests_after_a_change_wait_for_one_build(void**) {
    FakeLoop loop;
    Publisher p(loop, "v1.32.0");
    p.setRoutes(routesWith(""));
    p.buildNow();
    assert_int_equal(loop.blockingJobs(), 0);
    auto before = ask(p, "/openapi/v3");
    assert_true(before->has_value());
    assert_false(indexLists(**before, "apis/a.example.com/v1"));

    // Nothing is built until asked for; then on a thread.
    p.setRoutes(routesWith("a.example.com"));
    assert_int_equal(loop.blockingJobs(), 0);
    assert_false(p.current());
    auto v3 = ask(p, "/openapi/v3");
    auto v2 = ask(p, "/openapi/v2");
    assert_false(v3->has_value());
    assert_false(v2->has_value());
    assert_int_equal(loop.blockingJobs(), 1);  // the build running serves both
    loop.run();
    assert_true(p.current());
    assert_true(v3->has_value());
    assert_true(indexLists(**v3, "apis/a.example.com/v1"));
    assert_true(v2->has_value());
    assert_int_equal((*v2)->status, 200);
    assert_non_null(strstr((*v2)->body.c_str(), "/apis/a.example.com/v1/widgets"));

    // Built: answered at once, nothing more built.
    auto again = ask(p, "/openapi/v3/apis/a.example.com/v1");
    assert_true(again->has_value());
    assert_int_equal((*again)->status, 200);
    auto missing = ask(p, "/openapi/v3/apis/nothing.example.com/v1");
    assert_true(missing->has_value());
    assert_int_equal((*missing)->status, 404);
    assert_int_equal(loop.blockingJobs(), 1);
}

void changes_during_a_build_are_built_next(void**) {
    FakeLoop loop;
    Publisher p(loop, "v1.32.0");
    p.setRoutes(routesWith(""));
    p.buildNow();
    p.setRoutes(routesWith("a.example.com"));
    auto early = ask(p, "/openapi/v3");
    // Two more changes while its build runs: one build follows it.
    p.setRoutes(routesWith("b.example.com"));
    p.setRoutes(routesWith("c.example.com"));
    assert_int_equal(loop.blockingJobs(), 1);
    auto late = ask(p, "/openapi/v3");
    loop.run();
    assert_int_equal(loop.blockingJobs(), 2);
    // Both answers describe the routes current when they were given: the
    // first build's documents (of routes since replaced) served no one.
    for (auto* r : {&early, &late}) {
        assert_true((*r)->has_value());
        assert_true(indexLists(***r, "apis/c.example.com/v1"));
        assert_false(indexLists(***r, "apis/a.example.com/v1"));
    }
}

void a_publisher_gone_before_its_build_ends_is_left_alone(void**) {
    FakeLoop loop;
    std::shared_ptr<std::optional<Response>> r;
    {
        Publisher p(loop, "v1.32.0");
        p.setRoutes(routesWith("a.example.com"));
        r = ask(p, "/openapi/v2");
    }
    loop.run();  // the build ends after the publisher: nothing is touched
    assert_int_equal(loop.blockingJobs(), 1);
    assert_false(r->has_value());
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(requests_after_a_change_wait_for_one_build),
        cmocka_unit_test(changes_during_a_build_are_built_next),
        cmocka_unit_test(a_publisher_gone_before_its_build_ends_is_left_alone),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
