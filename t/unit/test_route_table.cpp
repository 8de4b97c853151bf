// The route table: each kind's verbs × subresources from its capabilities
// (the verbs it declares that its handlers implement), how a request's path
// and verb meet it (not found, not allowed, found), and its generation as
// kinds come and go.
#include <string>
#include <string_view>

#include "builtin_scheme.hpp"
#include "endpoints/request_info.hpp"
#include "endpoints/route_table.hpp"
#include "registry/scheme.hpp"

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

using kube::endpoints::Handlers;
using kube::endpoints::KindRoutes;
using kube::endpoints::ResourceRoute;
using kube::endpoints::RouteMatch;
using kube::endpoints::RouteTable;
using kube::registry::KindInfo;
using kube::registry::Scheme;
using kube::testing::builtinScheme;
using Outcome = RouteMatch::Outcome;

const RouteTable& builtinRoutes() {
    static const RouteTable routes(builtinScheme());
    return routes;
}

std::string verbs(const ResourceRoute& r) {
    std::string out;
    for (const std::string& v : r.verbs) {
        out += out.empty() ? v : "," + v;
    }
    return out;
}

RouteMatch match(const RouteTable& t, std::string_view method, std::string_view url) {
    size_t mark = url.find('?');
    std::string_view query = mark == std::string_view::npos ? "" : url.substr(mark + 1);
    return t.match(kube::endpoints::resolveRequestInfo(method, url.substr(0, mark), query));
}

void expectOutcome(const RouteMatch& m, Outcome want, const char* what) {
    if (m.outcome != want) {
        fail_msg("%s: want outcome %d, got %d", what, static_cast<int>(want),
                 static_cast<int>(m.outcome));
    }
}

KindInfo widget(std::string version = "v1") {
    KindInfo k;
    k.group = "example.com";
    k.version = std::move(version);
    k.kind = "Widget";
    k.resource = "widgets";
    k.singular = "widget";
    return k;
}

void verbs_are_the_declared_ones_the_handlers_implement(void**) {
    const RouteTable& t = builtinRoutes();
    const KindRoutes* cm = t.find("", "v1", "configmaps");
    assert_non_null(cm);
    assert_string_equal(verbs(cm->resource).c_str(),
                        "create,delete,deletecollection,get,list,patch,update,watch");
    assert_int_equal(static_cast<int>(cm->resource.handlers), static_cast<int>(Handlers::Object));
    assert_ptr_equal(cm->resource.responseKind, cm->kind.get());
    // Namespaces declare no deletecollection.
    assert_string_equal(verbs(t.find("", "v1", "namespaces")->resource).c_str(),
                        "create,delete,get,list,patch,update,watch");
    // A review is created and nothing else.
    const KindRoutes* sar = t.find("authorization.k8s.io", "v1", "subjectaccessreviews");
    assert_int_equal(static_cast<int>(sar->resource.handlers), static_cast<int>(Handlers::Review));
    assert_string_equal(verbs(sar->resource).c_str(), "create");
    // Subresources: their storage picks the handlers and the response kind.
    const KindRoutes* deploy = t.find("apps", "v1", "deployments");
    const ResourceRoute* scale = deploy->subresource("scale");
    assert_non_null(scale);
    assert_int_equal(static_cast<int>(scale->handlers), static_cast<int>(Handlers::Scale));
    assert_string_equal(scale->responseKind->kind.c_str(), "Scale");
    assert_string_equal(verbs(*scale).c_str(), "get,patch,update");
    const ResourceRoute* status = deploy->subresource("status");
    assert_int_equal(static_cast<int>(status->handlers), static_cast<int>(Handlers::Object));
    assert_ptr_equal(status->responseKind, deploy->kind.get());
    const ResourceRoute* token = t.find("", "v1", "serviceaccounts")->subresource("token");
    assert_int_equal(static_cast<int>(token->handlers), static_cast<int>(Handlers::TokenRequest));
    assert_string_equal(token->responseKind->kind.c_str(), "TokenRequest");
    assert_string_equal(verbs(*token).c_str(), "create");
    assert_null(deploy->subresource("token"));

    // Verbs no handler implements are not routed (nor advertised).
    Scheme s;
    KindInfo k = widget();
    k.verbs = {"get", "proxy", "list", "connect"};
    k.subresources = {{"status", "", "", "", {"get", "create", "update"}}};
    s.add(k);
    RouteTable own(s);
    const KindRoutes* w = own.find("example.com", "v1", "widgets");
    assert_string_equal(verbs(w->resource).c_str(), "get,list");
    assert_string_equal(verbs(*w->subresource("status")).c_str(), "get,update");
}

void paths_and_verbs_meet_the_table(void**) {
    const RouteTable& t = builtinRoutes();
    struct Case {
        const char* method;
        const char* url;
        Outcome want;
    } cases[] = {
        {"GET", "/api/v1/namespaces/default/configmaps/a", Outcome::Found},
        {"GET", "/api/v1/namespaces/default/configmaps", Outcome::Found},
        {"GET", "/api/v1/configmaps", Outcome::Found},
        {"GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Da", Outcome::Found},
        {"GET", "/api/v1/watch/namespaces/default/configmaps/a", Outcome::Found},
        {"POST", "/api/v1/namespaces/default/configmaps", Outcome::Found},
        {"DELETE", "/api/v1/namespaces/default/configmaps", Outcome::Found},
        // A namespaced item without its namespace; a cluster kind under one.
        {"GET", "/api/v1/configmaps/a", Outcome::NotFound},
        {"GET", "/api/v1/namespaces/default/nodes/n", Outcome::NotFound},
        {"GET", "/apis/nosuch.io/v1/things", Outcome::NotFound},
        {"GET", "/apis/apps/v2/deployments", Outcome::NotFound},
        {"GET", "/apis/apps/v1/namespaces/default/deployments/d/nosuch", Outcome::NotFound},
        // Create on an item or outside a namespace; verbs not served.
        {"POST", "/api/v1/namespaces/default/configmaps/a", Outcome::MethodNotAllowed},
        {"POST", "/api/v1/configmaps", Outcome::MethodNotAllowed},
        {"DELETE", "/api/v1/namespaces", Outcome::MethodNotAllowed},
        {"PUT", "/api/v1/namespaces/default/configmaps", Outcome::MethodNotAllowed},
        {"DELETE", "/apis/apps/v1/namespaces/default/deployments/d/scale",
         Outcome::MethodNotAllowed},
        {"GET", "/api/v1/namespaces/default/serviceaccounts/default/token",
         Outcome::MethodNotAllowed},
        {"POST", "/api/v1/namespaces/default/serviceaccounts/default/token", Outcome::Found},
        {"PATCH", "/apis/apps/v1/namespaces/default/deployments/d/scale", Outcome::Found},
        {"PUT", "/apis/apps/v1/namespaces/default/deployments/d/status", Outcome::Found},
        // Reviews: create on the collection, in a namespace when namespaced.
        {"POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", Outcome::Found},
        {"GET", "/apis/authorization.k8s.io/v1/subjectaccessreviews", Outcome::MethodNotAllowed},
        {"POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews/x", Outcome::MethodNotAllowed},
        {"POST", "/apis/authorization.k8s.io/v1/localsubjectaccessreviews",
         Outcome::MethodNotAllowed},
        {"POST", "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
         Outcome::Found},
    };
    for (const Case& c : cases) {
        std::string what = std::string(c.method) + " " + c.url;
        expectOutcome(match(t, c.method, c.url), c.want, what.c_str());
    }
}

// /api/v1/namespaces/<name> is the namespace object's own path: the request
// is not scoped to a namespace.
void a_namespace_path_names_the_namespace_itself(void**) {
    RouteMatch m = match(builtinRoutes(), "GET", "/api/v1/namespaces/kube-system");
    expectOutcome(m, Outcome::Found, "get namespace");
    assert_string_equal(m.kind->kind->kind.c_str(), "Namespace");
    assert_string_equal(m.namespace_.c_str(), "");
    m = match(builtinRoutes(), "PUT", "/api/v1/namespaces/kube-system/status");
    expectOutcome(m, Outcome::Found, "update namespace status");
    assert_string_equal(m.namespace_.c_str(), "");
    m = match(builtinRoutes(), "GET", "/api/v1/namespaces/kube-system/configmaps/a");
    assert_string_equal(m.namespace_.c_str(), "kube-system");
}

void kinds_come_and_go_with_the_generation(void**) {
    Scheme s;
    kube::registry::addBuiltinKinds(s);
    uint64_t builtin = s.generation();
    RouteTable before(s);
    expectOutcome(match(before, "GET", "/apis/example.com/v1/namespaces/a/widgets"),
                  Outcome::NotFound, "before");

    s.add(widget("v1"));
    s.add(widget("v2"));
    assert_int_equal(s.generation(), builtin + 2);
    RouteTable added(s);
    assert_int_equal(added.generation(), s.generation());
    expectOutcome(match(added, "GET", "/apis/example.com/v1/namespaces/a/widgets"), Outcome::Found,
                  "added v1");
    expectOutcome(match(added, "GET", "/apis/example.com/v2/namespaces/a/widgets/w"),
                  Outcome::Found, "added v2");
    assert_true(added.hasGroupVersion("example.com", "v2"));
    assert_string_equal(added.groups().back().name.c_str(), "example.com");
    assert_int_equal(added.kinds("example.com", "v1").size(), 1);
    // The old table is unchanged: tables are snapshots.
    expectOutcome(match(before, "GET", "/apis/example.com/v1/namespaces/a/widgets"),
                  Outcome::NotFound, "old table");

    // Removed: every version, and the group with them; a kind still held
    // stays alive.
    std::shared_ptr<const KindInfo> held = added.find("example.com", "v1", "widgets")->kind;
    assert_int_equal(s.remove("example.com", "widgets").size(), 2);
    assert_int_equal(s.generation(), builtin + 3);
    assert_int_equal(s.remove("example.com", "widgets").size(), 0);
    assert_int_equal(s.generation(), builtin + 3);
    RouteTable removed(s);
    expectOutcome(match(removed, "GET", "/apis/example.com/v1/namespaces/a/widgets"),
                  Outcome::NotFound, "removed");
    assert_false(removed.hasGroupVersion("example.com", "v1"));
    assert_int_equal(removed.groups().size(), before.groups().size());
    assert_string_equal(held->resource.c_str(), "widgets");
    // The built-in groups keep their order.
    for (size_t i = 0; i < before.groups().size(); i++) {
        assert_string_equal(removed.groups()[i].name.c_str(), before.groups()[i].name.c_str());
    }
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(verbs_are_the_declared_ones_the_handlers_implement),
        cmocka_unit_test(paths_and_verbs_meet_the_table),
        cmocka_unit_test(a_namespace_path_names_the_namespace_itself),
        cmocka_unit_test(kinds_come_and_go_with_the_generation),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
