#include <cstdio>
#include <string>
#include <vector>

#include "endpoints/request_info.hpp"

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

using kube::endpoints::RequestInfo;
using kube::endpoints::resolveRequestInfo;

namespace {

struct Case {
    const char* method;
    const char* url;  // path and optional "?query"
    const char* verb;
    const char* prefix;
    const char* group;
    const char* version;
    const char* ns;
    const char* resource;
    const char* subresource;
    const char* name;
    std::vector<std::string> parts;
};

RequestInfo resolve(const char* method, std::string url) {
    size_t q = url.find('?');
    std::string query = q == std::string::npos ? "" : url.substr(q + 1);
    return resolveRequestInfo(method, url.substr(0, q), query);
}

void expectEqual(const char* url, const char* what, const std::string& want,
                 const std::string& got) {
    if (want != got) {
        print_error("%s: %s: want \"%s\", got \"%s\"\n", url, what, want.c_str(), got.c_str());
        fail();
    }
}

// The success table of requestinfo_test.go, plus the namespace-object,
// percent-escaped and fieldSelector forms kubectl sends.
// clang-format off
const std::vector<Case> kResourceCases = {
    {"GET", "/api/v1/namespaces",
     "list", "api", "", "v1", "", "namespaces", "", "", {"namespaces"}},
    {"GET", "/api/v1/namespaces/other",
     "get", "api", "", "v1", "other", "namespaces", "", "other", {"namespaces", "other"}},
    {"GET", "/api/v1/namespaces/other/pods",
     "list", "api", "", "v1", "other", "pods", "", "", {"pods"}},
    {"GET", "/api/v1/namespaces/other/pods/foo",
     "get", "api", "", "v1", "other", "pods", "", "foo", {"pods", "foo"}},
    {"HEAD", "/api/v1/namespaces/other/pods/foo",
     "get", "api", "", "v1", "other", "pods", "", "foo", {"pods", "foo"}},
    {"GET", "/api/v1/pods",
     "list", "api", "", "v1", "", "pods", "", "", {"pods"}},
    {"HEAD", "/api/v1/pods",
     "list", "api", "", "v1", "", "pods", "", "", {"pods"}},
    {"PATCH", "/api/v1/namespaces/new-namespace",
     "patch", "api", "", "v1", "new-namespace", "namespaces", "", "new-namespace",
     {"namespaces", "new-namespace"}},
    {"GET", "/api/v1/proxy/namespaces/other/pods/foo",
     "proxy", "api", "", "v1", "other", "pods", "", "foo", {"pods", "foo"}},
    {"GET", "/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource",
     "proxy", "api", "", "v1", "other", "pods", "", "foo",
     {"pods", "foo", "subpath", "not", "a", "subresource"}},
    {"GET", "/api/v1/watch/pods",
     "watch", "api", "", "v1", "", "pods", "", "", {"pods"}},
    {"GET", "/api/v1/pods?watch=true",
     "watch", "api", "", "v1", "", "pods", "", "", {"pods"}},
    {"GET", "/api/v1/pods?watch=false",
     "list", "api", "", "v1", "", "pods", "", "", {"pods"}},
    {"GET", "/api/v1/watch/namespaces/other/pods",
     "watch", "api", "", "v1", "other", "pods", "", "", {"pods"}},
    {"GET", "/api/v1/namespaces/other/pods?watch=1",
     "watch", "api", "", "v1", "other", "pods", "", "", {"pods"}},
    {"GET", "/api/v1/namespaces/other/pods?watch=0",
     "list", "api", "", "v1", "other", "pods", "", "", {"pods"}},
    {"GET", "/api/v1/namespaces/other/pods?watch=FALSE",
     "list", "api", "", "v1", "other", "pods", "", "", {"pods"}},
    {"GET", "/api/v1/namespaces/other/pods?watch=",
     "watch", "api", "", "v1", "other", "pods", "", "", {"pods"}},
    {"GET", "/api/v1/namespaces/other/pods/foo/status",
     "get", "api", "", "v1", "other", "pods", "status", "foo", {"pods", "foo", "status"}},
    {"GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath",
     "get", "api", "", "v1", "other", "pods", "proxy", "foo", {"pods", "foo", "proxy", "subpath"}},
    {"PUT", "/api/v1/namespaces/other/finalize",
     "update", "api", "", "v1", "other", "namespaces", "finalize", "other",
     {"namespaces", "other", "finalize"}},
    {"PUT", "/api/v1/namespaces/other/status",
     "update", "api", "", "v1", "other", "namespaces", "status", "other",
     {"namespaces", "other", "status"}},
    {"PATCH", "/api/v1/namespaces/other/pods/foo",
     "patch", "api", "", "v1", "other", "pods", "", "foo", {"pods", "foo"}},
    {"DELETE", "/api/v1/namespaces/other/pods/foo",
     "delete", "api", "", "v1", "other", "pods", "", "foo", {"pods", "foo"}},
    {"POST", "/api/v1/namespaces/other/pods",
     "create", "api", "", "v1", "other", "pods", "", "", {"pods"}},
    {"DELETE", "/api/v1/nodes",
     "deletecollection", "api", "", "v1", "", "nodes", "", "", {"nodes"}},
    {"DELETE", "/api/v1/namespaces",
     "deletecollection", "api", "", "v1", "", "namespaces", "", "", {"namespaces"}},
    {"DELETE", "/api/v1/namespaces/other/pods",
     "deletecollection", "api", "", "v1", "other", "pods", "", "", {"pods"}},
    {"DELETE", "/apis/extensions/v1/namespaces/other/pods",
     "deletecollection", "apis", "extensions", "v1", "other", "pods", "", "", {"pods"}},
    {"POST", "/apis/extensions/v1/namespaces/other/pods",
     "create", "apis", "extensions", "v1", "other", "pods", "", "", {"pods"}},
    {"POST", "/apis/extensions/v1beta3/namespaces/other/pods",
     "create", "apis", "extensions", "v1beta3", "other", "pods", "", "", {"pods"}},
    {"GET", "/apis/apps/v1/namespaces/wire/deployments/web/scale",
     "get", "apis", "apps", "v1", "wire", "deployments", "scale", "web",
     {"deployments", "web", "scale"}},
    {"GET", "/apis/batch/v1/job/foo/scale",
     "get", "apis", "batch", "v1", "", "job", "scale", "foo", {"job", "foo", "scale"}},
    {"OPTIONS", "/api/v1/pods",
     "", "api", "", "v1", "", "pods", "", "", {"pods"}},
    // kubectl delete/wait pin one object of a watch with an escaped fieldSelector.
    {"GET", "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Da&watch=true",
     "watch", "api", "", "v1", "ns", "configmaps", "", "a", {"configmaps"}},
    {"GET", "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3D%3Da",
     "list", "api", "", "v1", "ns", "configmaps", "", "a", {"configmaps"}},
    // A fieldSelector never names the object of a DELETE: it stays a collection delete.
    {"DELETE", "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Da",
     "deletecollection", "api", "", "v1", "ns", "configmaps", "", "", {"configmaps"}},
    {"GET", "//api/v1//pods/",
     "get", "api", "", "v1", "", "", "", "pods", {"", "pods"}},
};
// clang-format on

void resolves_resource_paths_like_kube_apiserver(void** /*state*/) {
    for (const Case& c : kResourceCases) {
        RequestInfo info = resolve(c.method, c.url);
        if (!info.isResourceRequest) {
            print_error("%s: expected a resource request\n", c.url);
            fail();
        }
        expectEqual(c.url, "verb", c.verb, info.verb);
        expectEqual(c.url, "apiPrefix", c.prefix, info.apiPrefix);
        expectEqual(c.url, "apiGroup", c.group, info.apiGroup);
        expectEqual(c.url, "apiVersion", c.version, info.apiVersion);
        expectEqual(c.url, "namespace", c.ns, info.namespace_);
        expectEqual(c.url, "resource", c.resource, info.resource);
        expectEqual(c.url, "subresource", c.subresource, info.subresource);
        expectEqual(c.url, "name", c.name, info.name);
        if (info.parts != c.parts) {
            print_error("%s: unexpected parts (%zu)\n", c.url, info.parts.size());
            fail();
        }
    }
}

void non_resource_paths_keep_the_lowercased_method(void** /*state*/) {
    // clang-format off
    const char* paths[] = {"/", "", "/healthz", "/api", "/api/v1", "/apis", "/apis/apps",
                           "/apis/apps/v1", "/apis/apps/v1/", "/api/version/",
                           "/badprefix/version/resource", "/apis/version/resource",
                           "/openapi/v3/apis/apps/v1", "/version"};
    // clang-format on
    for (const char* path : paths) {
        RequestInfo info = resolveRequestInfo("GET", path, "");
        if (info.isResourceRequest) {
            print_error("%s: expected a non-resource request\n", path);
            fail();
        }
        assert_string_equal(info.verb.c_str(), "get");
        assert_string_equal(info.path.c_str(), path);
    }
    RequestInfo post = resolveRequestInfo("POST", "/apis/apps", "");
    assert_string_equal(post.verb.c_str(), "post");
}

void short_group_paths_are_resources_only_with_four_segments(void** /*state*/) {
    assert_true(resolveRequestInfo("GET", "/api/version/resource", "").isResourceRequest);
    assert_true(resolveRequestInfo("GET", "/apis/group/version/resource", "").isResourceRequest);
    assert_false(resolveRequestInfo("GET", "/apis/group/version", "").isResourceRequest);
}

struct SelectorCase {
    const char* url;
    const char* name;
    const char* verb;
};

void field_selector_on_metadata_name_sets_the_name(void** /*state*/) {
    // TestFieldSelectorParsing of requestinfo_test.go plus escaping and
    // list-option decoding failures.
    const SelectorCase cases[] = {
        {"/apis/group/version/resource", "", "list"},
        {"/apis/group/version/resource?fieldSelector=metadata.name=name1", "name1", "list"},
        {"/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1", "name1",
         "watch"},
        {"/apis/group/version/resource?fieldSelector=foo=bar", "", "list"},
        {"/apis/group/version/resource?fieldSelector=metadata.name=name1,foo", "", "list"},
        {"/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true", "",
         "watch"},
        {"/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false", "",
         "list"},
        {"/apis/group/version/resource?fieldSelector=metadata.name!=name1", "", "list"},
        {"/apis/group/version/resource?fieldSelector=a=b,metadata.name==n2", "n2", "list"},
        {"/apis/group/version/resource?fieldSelector=metadata.name=a%5C%2Cb", "a,b", "list"},
        {"/apis/group/version/resource?fieldSelector=metadata.name=a%2Fb", "", "list"},
        {"/apis/group/version/resource?fieldSelector=metadata.name=..", "", "list"},
        {"/apis/group/version/resource?fieldSelector=metadata.name=x&limit=abc", "", "list"},
        {"/apis/group/version/resource?fieldSelector=metadata.name=x&limit=500", "x", "list"},
        {"/apis/group/version/resource?fieldSelector=metadata.name=x&timeoutSeconds=1.5&watch=1",
         "", "watch"},
        {"/apis/group/version/resource?fieldSelector=metadata.name=x&fieldSelector=metadata.name=y",
         "x", "list"},
    };
    for (const SelectorCase& c : cases) {
        RequestInfo info = resolve("GET", c.url);
        expectEqual(c.url, "name", c.name, info.name);
        expectEqual(c.url, "verb", c.verb, info.verb);
    }
}

void watch_prefix_without_resource_is_a_resource_request_without_resource(void** /*state*/) {
    RequestInfo info = resolveRequestInfo("GET", "/api/v1/watch", "");
    assert_true(info.isResourceRequest);
    assert_string_equal(info.resource.c_str(), "");
    assert_string_equal(info.apiVersion.c_str(), "v1");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolves_resource_paths_like_kube_apiserver),
        cmocka_unit_test(non_resource_paths_keep_the_lowercased_method),
        cmocka_unit_test(short_group_paths_are_resources_only_with_four_segments),
        cmocka_unit_test(field_selector_on_metadata_name_sets_the_name),
        cmocka_unit_test(watch_prefix_without_resource_is_a_resource_request_without_resource),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
