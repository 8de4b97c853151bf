#include <openssl/sha.h>

#include <cctype>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "endpoints/request_info.hpp"
#include "fake_loop.hpp"
#include "server/server.hpp"
#include "storage/memory/memory_store.hpp"
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

#include "builtin_scheme.hpp"
#include "served_answers.hpp"

namespace json = kube::util::json;
using kube::endpoints::HttpRequest;
using kube::endpoints::HttpResponse;
using kube::testing::FakeLoop;

namespace {

// kubectl 1.32's Accept headers (spec/kube-api-wire.md §1).
const char* kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";
const char* kDiscoveryAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;"
    "g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const char* kKubectl = "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd";

struct Request {
    std::string method = "GET";
    std::string url;
    std::string body;
    std::string accept = "application/json";
    std::string contentType;
    std::string userAgent = kKubectl;
};

struct Response {
    bool called = false;
    HttpResponse r;

    std::string header(std::string_view name) const {
        for (const auto& [k, v] : r.headers) {
            if (k == name) {
                return v;
            }
        }
        return "<absent>";
    }
};

// The JSON readers every unit test shares.
auto& parse = kube::testing::parseJson;
auto& at = kube::testing::bodyAt;

// A started server on the memory backend with the fake loop.
struct Fixture {
    FakeLoop loop;
    kube::storage::memory::Store memory{loop};
    kube::server::Server server;

    explicit Fixture(bool start = true, kube::server::ServerOptions options = {})
        : server(loop, memory, options) {
        if (start) {
            server.start();
            loop.run();
        }
    }

    // Dispatches one request; `run` lets its writes complete before returning.
    std::shared_ptr<Response> send(const Request& q, bool run = true) {
        // Views into these stay valid while the loop runs the request.
        auto keep = std::make_shared<Request>(q);
        size_t mark = keep->url.find('?');
        std::string path = keep->url.substr(0, mark);
        std::string query = mark == std::string::npos ? "" : keep->url.substr(mark + 1);
        auto strings = std::make_shared<std::pair<std::string, std::string>>(path, query);
        auto info = std::make_shared<kube::endpoints::RequestInfo>(
            kube::endpoints::resolveRequestInfo(keep->method, strings->first, strings->second));
        HttpRequest req;
        req.method = keep->method;
        req.path = strings->first;
        req.query = strings->second;
        req.accept = keep->accept;
        req.contentType = keep->contentType;
        req.userAgent = keep->userAgent;
        req.host = "127.0.0.1:6443";
        req.body = keep->body;
        req.info = info.get();
        // nginx always hands the server the authenticated user.
        static const kube::authn::UserInfo admin{"admin", "", {"system:masters"}, {}};
        req.user = &admin;
        auto out = std::make_shared<Response>();
        server.serve(req, [out, keep, strings, info](HttpResponse&& r) {
            if (out->called) {
                fail_msg("responded twice");
            }
            out->called = true;
            out->r = std::move(r);
        });
        if (run) {
            loop.run();
            if (!out->called) {
                fail_msg("%s %s: no response", q.method.c_str(), q.url.c_str());
            }
        }
        return out;
    }

    HttpResponse get(const std::string& url, const std::string& accept = "application/json") {
        Request q;
        q.url = url;
        q.accept = accept;
        return send(q)->r;
    }

    HttpResponse write(const std::string& method, const std::string& url, const std::string& body,
                       const std::string& contentType = "application/json") {
        Request q;
        q.method = method;
        q.url = url;
        q.body = body;
        q.contentType = contentType;
        return send(q)->r;
    }
};

void expectStatus(const HttpResponse& r, int code, const char* reason, const char* message) {
    if (r.status != code) {
        fail_msg("want %d, got %d: %s", code, r.status, r.body.c_str());
    }
    assert_string_equal(r.contentType.c_str(), "application/json");
    assert_string_equal(at(r.body, {"kind"}).c_str(), "Status");
    assert_string_equal(at(r.body, {"reason"}).c_str(), reason);
    assert_string_equal(at(r.body, {"code"}).c_str(), std::to_string(code).c_str());
    if (message) {
        assert_string_equal(at(r.body, {"message"}).c_str(), message);
    }
}

void expectOk(const HttpResponse& r, int code) {
    if (r.status != code) {
        fail_msg("want %d, got %d: %s", code, r.status, r.body.c_str());
    }
}

const char* kConfigMapA =
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}})";

std::string sha512Hex(std::string_view s) {
    unsigned char md[SHA512_DIGEST_LENGTH];
    SHA512(reinterpret_cast<const unsigned char*>(s.data()), s.size(), md);
    std::string out;
    for (unsigned char c : md) {
        out += "0123456789ABCDEF"[c >> 4];
        out += "0123456789ABCDEF"[c & 15];
    }
    return out;
}

void legacy_core_discovery_is_api_versions(void**) {
    Fixture f;
    HttpResponse r = f.get("/api?timeout=32s", "application/json, */*");
    expectOk(r, 200);
    assert_string_equal(r.contentType.c_str(), "application/json");
    assert_string_equal(r.body.c_str(),
                        R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":)"
                        R"([{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:6443"}]})");
}

void legacy_group_list_names_every_group_with_its_preferred_version(void**) {
    Fixture f;
    HttpResponse r = f.get("/apis", "application/json");
    expectOk(r, 200);
    assert_string_equal(at(r.body, {"kind"}).c_str(), "APIGroupList");
    assert_string_equal(at(r.body, {"apiVersion"}).c_str(), "v1");
    json::Document d = parse(r.body);
    const json::Value& groups = d["groups"];
    assert_int_equal(groups.Size(), 19);
    assert_string_equal(json::serialize(groups[1]).c_str(),
                        R"({"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],)"
                        R"("preferredVersion":{"groupVersion":"apps/v1","version":"v1"}})");
    // kube-aggregator lists its own group first.
    const std::vector<std::string>& names = kube::testing::kubeGroupOrder();
    for (rapidjson::SizeType i = 0; i < groups.Size(); i++) {
        assert_string_equal(json::stringMember(groups[i], "name").data(), names[i + 1].c_str());
    }
    // /apis/<group> is that group alone.
    r = f.get("/apis/apps");
    expectOk(r, 200);
    assert_string_equal(r.body.c_str(),
                        R"({"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[)"
                        R"({"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":)"
                        R"({"groupVersion":"apps/v1","version":"v1"}})");
}

const json::Value* findResource(const json::Value& list, std::string_view member,
                                std::string_view name) {
    for (const auto& r : list.GetArray()) {
        if (json::stringMember(r, member) == name) {
            return &r;
        }
    }
    return nullptr;
}

void core_resource_list_describes_each_kind(void**) {
    Fixture f;
    HttpResponse r = f.get("/api/v1", "application/json, */*");
    expectOk(r, 200);
    assert_true(r.body.starts_with(R"({"kind":"APIResourceList","groupVersion":"v1",)"));
    json::Document d = parse(r.body);
    assert_null(json::member(d, "apiVersion"));
    const json::Value* cm = findResource(d["resources"], "name", "configmaps");
    assert_non_null(cm);
    std::string cmJson = json::serialize(*cm);
    assert_true(cmJson.starts_with(
        R"({"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap",)"
        R"("verbs":["create","delete","deletecollection","get","list",)"));
    assert_string_equal(at(cmJson, {"shortNames"}).c_str(), R"(["cm"])");
    assert_int_equal(at(cmJson, {"storageVersionHash"}).size(), 12);
    const json::Value* ns = findResource(d["resources"], "name", "namespaces");
    assert_non_null(ns);
    assert_false((*ns)["namespaced"].GetBool());
    assert_true(json::serialize((*ns)["verbs"]).find("deletecollection") == std::string::npos);
}

void group_resource_list_has_api_version_and_categories(void**) {
    Fixture f;
    HttpResponse r = f.get("/apis/apps/v1", "application/json, */*");
    expectOk(r, 200);
    assert_true(r.body.starts_with(
        R"({"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1",)"));
    json::Document d = parse(r.body);
    const json::Value* deploy = findResource(d["resources"], "name", "deployments");
    assert_non_null(deploy);
    assert_string_equal(json::serialize((*deploy)["shortNames"]).c_str(), R"(["deploy"])");
    assert_string_equal(json::serialize((*deploy)["categories"]).c_str(), R"(["all"])");
    assert_string_equal(json::stringMember(*deploy, "kind").data(), "Deployment");
}

void aggregated_discovery_v2_has_its_content_type_and_etag(void**) {
    Fixture f;
    HttpResponse r = f.get("/apis?timeout=32s", kDiscoveryAccept);
    expectOk(r, 200);
    assert_string_equal(r.contentType.c_str(),
                        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    Response wrapped{true, r};
    assert_string_equal(wrapped.header("ETag").c_str(), ("\"" + sha512Hex(r.body) + "\"").c_str());
    assert_string_equal(wrapped.header("Vary").c_str(), "Accept");
    assert_true(r.body.starts_with(
        R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2",)"
        R"("metadata":{},"items":[{"metadata":{"name":"apiregistration.k8s.io",)"
        R"("creationTimestamp":null},"versions":[{"version":"v1","resources":[)"));
    json::Document d = parse(r.body);
    const json::Value& apps = d["items"][1]["versions"][0];
    assert_string_equal(json::stringMember(apps, "freshness").data(), "Current");
    const json::Value* deploy = findResource(apps["resources"], "resource", "deployments");
    assert_non_null(deploy);
    assert_string_equal(json::stringMember(*deploy, "scope").data(), "Namespaced");
    assert_string_equal(json::stringMember(*deploy, "singularResource").data(), "deployment");
    assert_string_equal(json::serialize((*deploy)["shortNames"]).c_str(), R"(["deploy"])");
    assert_string_equal(json::serialize((*deploy)["categories"]).c_str(), R"(["all"])");
    // A resource's own responseKind leaves group and version empty (spec §2.1).
    assert_string_equal(json::serialize((*deploy)["responseKind"]).c_str(),
                        R"({"group":"","version":"","kind":"Deployment"})");
}

void aggregated_core_discovery_is_one_nameless_item(void**) {
    Fixture f;
    HttpResponse r = f.get("/api?timeout=32s", kDiscoveryAccept);
    expectOk(r, 200);
    assert_string_equal(r.contentType.c_str(),
                        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    json::Document d = parse(r.body);
    assert_int_equal(d["items"].Size(), 1);
    assert_string_equal(json::serialize(d["items"][0]["metadata"]).c_str(),
                        R"({"creationTimestamp":null})");
    const json::Value& v1 = d["items"][0]["versions"][0];
    assert_string_equal(json::stringMember(v1, "version").data(), "v1");
    const json::Value* cm = findResource(v1["resources"], "resource", "configmaps");
    assert_non_null(cm);
    assert_string_equal(json::stringMember(*cm, "scope").data(), "Namespaced");
    assert_string_equal(json::serialize((*cm)["shortNames"]).c_str(), R"(["cm"])");
    const json::Value* ns = findResource(v1["resources"], "resource", "namespaces");
    assert_non_null(ns);
    assert_string_equal(json::stringMember(*ns, "scope").data(), "Cluster");
    Response wrapped{true, r};
    assert_string_equal(wrapped.header("ETag").c_str(), ("\"" + sha512Hex(r.body) + "\"").c_str());
}

void aggregated_discovery_v2beta1_is_served_to_older_clients(void**) {
    Fixture f;
    HttpResponse r = f.get("/apis",
                           "application/json;g=apidiscovery.k8s.io;v=v2beta1;"
                           "as=APIGroupDiscoveryList,application/json");
    expectOk(r, 200);
    assert_string_equal(
        r.contentType.c_str(),
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList");
    assert_string_equal(at(r.body, {"apiVersion"}).c_str(), "apidiscovery.k8s.io/v2beta1");
    Response wrapped{true, r};
    assert_string_equal(wrapped.header("ETag").c_str(), ("\"" + sha512Hex(r.body) + "\"").c_str());
    // Unsatisfiable discovery Accept: 406.
    expectStatus(f.get("/apis", "application/xml"), 406, "NotAcceptable", nullptr);
}

void version_is_an_indented_version_info(void**) {
    Fixture f;
    HttpResponse r = f.get("/version?timeout=32s", "application/json, */*");
    expectOk(r, 200);
    assert_string_equal(r.contentType.c_str(), "application/json");
    assert_true(r.body.starts_with("{\n  \"major\": \"1\",\n  \"minor\": \""));
    assert_true(at(r.body, {"gitVersion"}).starts_with("v1."));
    assert_string_not_equal(at(r.body, {"platform"}).c_str(), "<absent>");
}

void readyz_turns_ok_once_started(void**) {
    // The worker that writes the bootstrap objects: a follower would wait for
    // another worker's.
    kube::server::ServerOptions owner;
    owner.rbacPolicyOwner = true;
    Fixture f(false, owner);
    HttpResponse r = f.get("/readyz");
    assert_int_equal(r.status, 500);
    assert_string_equal(r.contentType.c_str(), "text/plain; charset=utf-8");
    // Liveness waits for the PostStartHooks too, as kube's does without
    // --livez-grace-period.
    assert_int_equal(f.get("/livez").status, 500);
    f.server.start();
    f.loop.run();
    assert_true(f.server.ready());
    r = f.get("/readyz");
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body.c_str(), "ok");
    r = f.get("/readyz?verbose");
    assert_int_equal(r.status, 200);
    assert_true(r.body.find("[+]poststarthook/bootstrap-controller ok\n") != std::string::npos);
    assert_true(r.body.ends_with("readyz check passed\n"));
    assert_string_equal(f.get("/healthz").body.c_str(), "ok");
    // The default namespaces exist.
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
        expectOk(f.get(std::string("/api/v1/namespaces/") + ns), 200);
    }
}

void create_get_list_update_and_delete_over_http(void**) {
    Fixture f;
    HttpResponse created = f.write("POST",
                                   "/api/v1/namespaces/default/configmaps?"
                                   "fieldManager=kubectl-create&fieldValidation=Strict",
                                   kConfigMapA);
    expectOk(created, 201);
    assert_string_equal(created.contentType.c_str(), "application/json");
    assert_true(created.body.starts_with(
        R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default",)"
        R"("uid":")"));
    std::string rv = at(created.body, {"metadata", "resourceVersion"});
    assert_string_equal(rv.c_str(), std::to_string(f.memory.currentRevision()).c_str());

    HttpResponse got = f.get("/api/v1/namespaces/default/configmaps/a");
    expectOk(got, 200);
    assert_string_equal(got.body.c_str(), created.body.c_str());

    HttpResponse list = f.get("/api/v1/namespaces/default/configmaps?limit=500");
    expectOk(list, 200);
    std::string item = created.body;
    item.replace(0, std::string(R"({"kind":"ConfigMap","apiVersion":"v1",)").size(), "{");
    assert_string_equal(
        list.body.c_str(),
        (R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":)"
         R"({"resourceVersion":")" +
         std::to_string(f.memory.currentRevision()) + R"("},"items":[)" + item + "]}")
            .c_str());

    std::string replacement = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a",)"
                              R"("resourceVersion":")" +
                              rv + R"("},"data":{"k":"w"}})";
    HttpResponse updated = f.write(
        "PUT", "/api/v1/namespaces/default/configmaps/a?fieldManager=kubectl-replace", replacement);
    expectOk(updated, 200);
    assert_string_equal(at(updated.body, {"data", "k"}).c_str(), "w");
    assert_int_equal(std::stoull(at(updated.body, {"metadata", "resourceVersion"})),
                     std::stoull(rv) + 1);
    // The same body again now carries a stale resourceVersion.
    expectStatus(f.write("PUT", "/api/v1/namespaces/default/configmaps/a", replacement), 409,
                 "Conflict",
                 "Operation cannot be fulfilled on configmaps \"a\": the object has been "
                 "modified; please apply your changes to the latest version and try again");

    HttpResponse deleted = f.write("DELETE", "/api/v1/namespaces/default/configmaps/a",
                                   R"({"propagationPolicy":"Background"})");
    expectOk(deleted, 200);
    assert_string_equal(deleted.body.c_str(),
                        (R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",)"
                         R"("details":{"name":"a","kind":"configmaps","uid":")" +
                         at(created.body, {"metadata", "uid"}) + R"("}})")
                            .c_str());
    expectStatus(f.get("/api/v1/namespaces/default/configmaps/a"), 404, "NotFound",
                 "configmaps \"a\" not found");
}

void curl_gets_indented_json(void**) {
    Fixture f;
    f.write("POST", "/api/v1/namespaces/default/configmaps", kConfigMapA);
    Request q;
    q.url = "/api/v1/namespaces/default/configmaps/a";
    q.userAgent = "curl/8.5.0";
    HttpResponse r = f.send(q)->r;
    expectOk(r, 200);
    assert_true(r.body.starts_with("{\n  \"kind\": \"ConfigMap\",\n"));
    q.url += "?pretty=false";
    assert_true(f.send(q)->r.body.starts_with("{\"kind\":\"ConfigMap\","));
    // Errors too.
    q.url = "/api/v1/namespaces/default/configmaps/nosuch";
    r = f.send(q)->r;
    assert_true(r.body.starts_with("{\n  \"kind\": \"Status\",\n"));
}

void dry_run_create_over_http_stores_nothing(void**) {
    Fixture f;
    kube::storage::Revision before = f.memory.currentRevision();
    HttpResponse r = f.write("POST",
                             "/api/v1/namespaces/default/configmaps?dryRun=All"
                             "&fieldManager=kubectl-create",
                             kConfigMapA);
    expectOk(r, 201);
    assert_string_equal(at(r.body, {"metadata", "resourceVersion"}).c_str(), "<absent>");
    assert_string_not_equal(at(r.body, {"metadata", "uid"}).c_str(), "<absent>");
    assert_int_equal(f.memory.currentRevision(), before);
    expectStatus(f.get("/api/v1/namespaces/default/configmaps/a"), 404, "NotFound", nullptr);
    // ValidateCreateOptions: an unknown dryRun value makes the options invalid.
    HttpResponse bad =
        f.write("POST", "/api/v1/namespaces/default/configmaps?dryRun=Some", kConfigMapA);
    expectStatus(bad, 422, "Invalid",
                 "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: "
                 "[]string{\"Some\"}: supported values: \"All\"");
    assert_string_equal(at(bad.body, {"details", "causes"}).c_str(),
                        R"([{"reason":"FieldValueNotSupported","message":"Unsupported value: )"
                        R"([]string{\"Some\"}: supported values: \"All\"","field":"dryRun"}])");
}

void table_list_has_columns_typed_cells_and_partial_metadata(void**) {
    Fixture f;
    HttpResponse created = f.write("POST", "/api/v1/namespaces/default/configmaps", kConfigMapA);
    HttpResponse r = f.get("/api/v1/namespaces/default/configmaps?limit=500", kTableAccept);
    expectOk(r, 200);
    assert_true(r.body.starts_with(R"({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":)"
                                   R"({"resourceVersion":")" +
                                   std::to_string(f.memory.currentRevision()) +
                                   R"("},"columnDefinitions":[{"name":"Name","type":"string",)"
                                   R"("format":"name","description":"Name must be unique)"));
    json::Document t = parse(r.body);
    const json::Value& cols = t["columnDefinitions"];
    assert_int_equal(cols.Size(), 3);
    assert_string_equal(json::stringMember(cols[1], "name").data(), "Data");
    assert_string_equal(json::stringMember(cols[1], "format").data(), "");
    assert_string_equal(json::stringMember(cols[2], "name").data(), "Age");
    for (const auto& c : cols.GetArray()) {
        assert_int_equal(c["priority"].GetInt(), 0);
    }
    assert_int_equal(t["rows"].Size(), 1);
    const json::Value& row = t["rows"][0];
    assert_string_equal(json::serialize(row["cells"]).c_str(), R"(["a",1,"0s"])");
    assert_string_equal(json::stringMember(row["object"], "kind").data(), "PartialObjectMetadata");
    assert_string_equal(json::stringMember(row["object"], "apiVersion").data(), "meta.k8s.io/v1");
    assert_string_equal(json::serialize(row["object"]["metadata"]).c_str(),
                        at(created.body, {"metadata"}).c_str());
    assert_null(json::member(row["object"], "data"));

    f.loop.advance(std::chrono::seconds(9));
    r = f.get("/api/v1/namespaces/default/configmaps", kTableAccept);
    assert_string_equal(json::serialize(parse(r.body)["rows"][0]["cells"]).c_str(),
                        R"(["a",1,"9s"])");
}

void include_object_none_and_object_change_the_row_object(void**) {
    Fixture f;
    HttpResponse created = f.write("POST", "/api/v1/namespaces/default/configmaps", kConfigMapA);
    HttpResponse r =
        f.get("/api/v1/namespaces/default/configmaps?includeObject=None", kTableAccept);
    expectOk(r, 200);
    json::Document t = parse(r.body);
    assert_true(t["rows"][0]["object"].IsNull());
    assert_true(r.body.find(R"("object":null)") != std::string::npos);

    r = f.get("/api/v1/namespaces/default/configmaps?includeObject=Object", kTableAccept);
    t = parse(r.body);
    assert_string_equal(json::serialize(t["rows"][0]["object"]).c_str(), created.body.c_str());
}

void table_v1beta1_and_namespace_columns(void**) {
    Fixture f;
    HttpResponse r = f.get("/api/v1/namespaces",
                           "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json");
    expectOk(r, 200);
    json::Document t = parse(r.body);
    assert_string_equal(json::stringMember(t, "apiVersion").data(), "meta.k8s.io/v1beta1");
    std::vector<std::string> names;
    for (const auto& c : t["columnDefinitions"].GetArray()) {
        names.emplace_back(json::view(c["name"]));
    }
    assert_true(names == (std::vector<std::string>{"Name", "Status", "Age"}));
    assert_int_equal(t["rows"].Size(), 4);
    assert_string_equal(json::serialize(t["rows"][0]["cells"]).c_str(),
                        R"(["default","Active","0s"])");
    assert_string_equal(json::stringMember(t["rows"][0]["object"], "apiVersion").data(),
                        "meta.k8s.io/v1beta1");
}

void table_get_of_one_object_is_a_one_row_table(void**) {
    Fixture f;
    HttpResponse created = f.write("POST", "/api/v1/namespaces/default/configmaps", kConfigMapA);
    HttpResponse r = f.get("/api/v1/namespaces/default/configmaps/a", kTableAccept);
    expectOk(r, 200);
    json::Document t = parse(r.body);
    assert_string_equal(json::stringMember(t, "kind").data(), "Table");
    assert_int_equal(t["rows"].Size(), 1);
    assert_string_equal(json::serialize(t["rows"][0]["cells"]).c_str(), R"(["a",1,"0s"])");
    // Errors stay plain Status.
    expectStatus(f.get("/api/v1/namespaces/default/configmaps/nosuch", kTableAccept), 404,
                 "NotFound", "configmaps \"nosuch\" not found");
    // The table's metadata carries the object's resourceVersion, as kube's
    // table convertors do for a single object.
    assert_string_equal(
        json::serialize(t["metadata"]).c_str(),
        (R"({"resourceVersion":")" + at(created.body, {"metadata", "resourceVersion"}) + R"("})")
            .c_str());
}

void put_on_a_collection_is_405(void**) {
    Fixture f;
    HttpResponse r = f.write("PUT", "/api/v1/namespaces/default/configmaps", kConfigMapA);
    expectStatus(r, 405, "MethodNotAllowed",
                 "the server does not allow this method on the requested resource");
    assert_string_equal(at(r.body, {"details"}).c_str(), "{}");
}

void unknown_resources_are_404(void**) {
    Fixture f;
    for (const char* url : {"/api/v1/nosuch", "/api/v1/namespaces/default/nosuch",
                            "/apis/apps/v1/namespaces/default/nosuch/x"}) {
        HttpResponse r = f.get(url);
        expectStatus(r, 404, "NotFound", "the server could not find the requested resource");
        assert_string_equal(at(r.body, {"details"}).c_str(), "{}");
    }
}

// kube-apiserver answers an unknown group with a text/plain "404 page not
// found"; this server answers every error on an API path with a Status.
void unknown_group_is_a_not_found_status(void**) {
    Fixture f;
    HttpResponse r = f.get("/apis/nosuch.example.com/v1/things");
    expectStatus(r, 404, "NotFound", "the server could not find the requested resource");
    assert_string_equal(r.contentType.c_str(), "application/json");
}

void create_in_a_missing_namespace_is_404_for_the_namespace(void**) {
    Fixture f;
    HttpResponse r = f.write("POST", "/api/v1/namespaces/x/configmaps", kConfigMapA);
    expectStatus(r, 404, "NotFound", "namespaces \"x\" not found");
    assert_string_equal(at(r.body, {"details"}).c_str(), R"({"name":"x","kind":"namespaces"})");
    expectStatus(f.get("/api/v1/namespaces/x/configmaps/a"), 404, "NotFound",
                 "configmaps \"a\" not found");
}

void deleting_default_is_forbidden(void**) {
    Fixture f;
    HttpResponse r = f.write("DELETE", "/api/v1/namespaces/default", "");
    expectStatus(r, 403, "Forbidden",
                 "namespaces \"default\" is forbidden: this namespace may not be deleted");
    expectOk(f.get("/api/v1/namespaces/default"), 200);
}

void namespace_delete_answers_terminating_and_blocks_new_content(void**) {
    Fixture f;
    expectOk(f.write("POST", "/api/v1/namespaces", R"({"metadata":{"name":"raw"}})"), 201);
    expectOk(f.write("POST", "/api/v1/namespaces/raw/configmaps", kConfigMapA), 201);
    Request del;
    del.method = "DELETE";
    del.url = "/api/v1/namespaces/raw";
    // Without running the loop, the namespace is marked and its contents not yet gone.
    auto deleting = f.send(del, false);
    Request late;
    late.method = "POST";
    late.url = "/api/v1/namespaces/raw/configmaps";
    late.body = R"({"metadata":{"name":"late"}})";
    late.contentType = "application/json";
    auto refused = f.send(late, false);
    f.loop.run();
    assert_true(deleting->called && refused->called);
    expectOk(deleting->r, 200);
    assert_string_equal(at(deleting->r.body, {"kind"}).c_str(), "Namespace");
    assert_string_equal(at(deleting->r.body, {"status", "phase"}).c_str(), "Terminating");
    assert_string_not_equal(at(deleting->r.body, {"metadata", "deletionTimestamp"}).c_str(),
                            "<absent>");
    expectStatus(refused->r, 403, "Forbidden",
                 "configmaps \"late\" is forbidden: unable to create new content in namespace "
                 "raw because it is being terminated");
    assert_string_equal(at(refused->r.body, {"details", "causes"}).c_str(),
                        R"([{"reason":"NamespaceTerminating","message":"namespace raw is being )"
                        R"(terminated","field":"metadata.namespace"}])");
    expectStatus(f.get("/api/v1/namespaces/raw"), 404, "NotFound", "namespaces \"raw\" not found");
    expectStatus(f.get("/api/v1/namespaces/raw/configmaps/a"), 404, "NotFound", nullptr);
}

void bad_bodies_get_kubes_messages(void**) {
    Fixture f;
    expectStatus(f.write("POST", "/api/v1/namespaces/default/configmaps", R"({"apiVersion":"v1",)"),
                 400, "BadRequest",
                 "the object provided is unrecognized (must be of type ConfigMap): couldn't get "
                 "version/kind; json parse error: unexpected end of JSON input "
                 "({\"apiVersion\":\"v1\",)");
    expectStatus(f.write("POST", "/api/v1/namespaces/default/configmaps",
                         R"({"metadata":{"name":"a","namespace":"other"}})"),
                 400, "BadRequest",
                 "the namespace of the provided object does not match the namespace sent on "
                 "the request");
    HttpResponse r = f.write("POST", "/api/v1/namespaces/default/configmaps", "\x6b\x38\x73",
                             "application/vnd.kubernetes.protobuf");
    expectStatus(r, 400, "BadRequest",
                 "the object provided is unrecognized (must be of type ConfigMap): provided data "
                 "does not appear to be a protobuf message, expected prefix [107 56 115 0] "
                 "(6b3873)");
    r = f.write("POST", "/api/v1/namespaces/default/configmaps", "\xa1",
                "application/vnd.kubernetes.cbor");
    expectStatus(r, 415, "UnsupportedMediaType", nullptr);
    assert_string_equal(at(r.body, {"details"}).c_str(), "<absent>");
    r = f.write("POST", "/api/v1/namespaces/default/configmaps",
                R"({"metadata":{"name":"Bad_Name"}})");
    expectStatus(r, 422, "Invalid",
                 "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": "
                 "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                 "characters, '-' or '.', and must start and end with an alphanumeric character "
                 "(e.g. 'example.com', regex used for validation is "
                 "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    assert_string_equal(at(r.body, {"details", "kind"}).c_str(), "ConfigMap");
    expectStatus(f.get("/api/v1/namespaces/default/configmaps", "application/xml"), 406,
                 "NotAcceptable", nullptr);
}

void list_paging_and_name_selector_over_http(void**) {
    Fixture f;
    for (const char* name : {"a", "b", "c"}) {
        f.write("POST", "/api/v1/namespaces/default/configmaps",
                R"({"metadata":{"name":")" + std::string(name) + R"("}})");
    }
    HttpResponse r = f.get("/api/v1/namespaces/default/configmaps?limit=2");
    expectOk(r, 200);
    std::string token = at(r.body, {"metadata", "continue"});
    assert_string_not_equal(token.c_str(), "<absent>");
    assert_string_equal(at(r.body, {"metadata", "remainingItemCount"}).c_str(), "1");
    assert_int_equal(parse(r.body)["items"].Size(), 2);
    r = f.get("/api/v1/namespaces/default/configmaps?limit=2&continue=" + token);
    expectOk(r, 200);
    json::Document second = parse(r.body);
    assert_int_equal(second["items"].Size(), 1);
    assert_string_equal(json::stringMember(second["items"][0]["metadata"], "name").data(), "c");
    assert_string_equal(at(r.body, {"metadata", "continue"}).c_str(), "<absent>");

    r = f.get("/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Db");
    expectOk(r, 200);
    json::Document d = parse(r.body);
    assert_int_equal(d["items"].Size(), 1);
    assert_string_equal(json::stringMember(d["items"][0]["metadata"], "name").data(), "b");
    assert_null(json::member(d["items"][0], "kind"));
}

// A ConfigMap of about `bytes` of data, as a create body.
std::string configMapOf(const std::string& name, size_t bytes) {
    std::string data;
    for (size_t i = 0; data.size() < bytes; ++i) {
        data +=
            (i ? "," : "") + ("\"k" + std::to_string(i) + "\":\"" + std::string(100, 'v') + "\"");
    }
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
           R"("},"data":{)" + data + "}}";
}

void large_objects_are_rendered_off_the_loop_unless_sent_as_stored(void**) {
    Fixture f;
    expectOk(f.write("POST", "/api/v1/namespaces/default/configmaps", configMapOf("big", 300000)),
             201);
    expectOk(f.write("POST", "/api/v1/namespaces/default/configmaps", kConfigMapA), 201);
    const std::string big = "/api/v1/namespaces/default/configmaps/big";
    // As stored: the bytes are copied on the loop.
    size_t before = f.loop.blockingJobs();
    HttpResponse r = f.get(big);
    expectOk(r, 200);
    assert_string_equal(at(r.body, {"metadata", "name"}).c_str(), "big");
    assert_int_equal(f.loop.blockingJobs(), before);
    // Protobuf, a Table and indented JSON are encoded on a thread.
    r = f.get(big, "application/vnd.kubernetes.protobuf");
    expectOk(r, 200);
    assert_string_equal(r.contentType.c_str(), "application/vnd.kubernetes.protobuf");
    assert_true(r.body.size() > 300000);
    assert_int_equal(f.loop.blockingJobs(), before + 1);
    r = f.get(big, kTableAccept);
    expectOk(r, 200);
    assert_string_equal(at(r.body, {"kind"}).c_str(), "Table");
    assert_int_equal(f.loop.blockingJobs(), before + 2);
    r = f.get(big + "?pretty=true");
    expectOk(r, 200);
    assert_true(r.body.find("\n  \"data\": {") != std::string::npos);
    assert_int_equal(f.loop.blockingJobs(), before + 3);
    // A patch's answer too, with its warnings; a small object stays on the loop.
    Request q;
    q.method = "PATCH";
    q.url = big + "?pretty=true";
    q.body = R"({"data":{"k0":"w","k0":"x"}})";
    q.contentType = "application/merge-patch+json";
    auto patched = f.send(q);
    expectOk(patched->r, 200);
    assert_string_equal(at(patched->r.body, {"data", "k0"}).c_str(), "x");
    assert_string_equal(patched->header("Warning").c_str(),
                        "299 - \"duplicate field \\\"data.k0\\\"\"");
    // Built off the loop (the object is large), then rendered off it.
    assert_int_equal(f.loop.blockingJobs(), before + 5);
    r = f.get("/api/v1/namespaces/default/configmaps/a", "application/vnd.kubernetes.protobuf");
    expectOk(r, 200);
    assert_int_equal(f.loop.blockingJobs(), before + 5);
}

void large_creates_are_validated_off_the_loop(void**) {
    Fixture f;
    size_t before = f.loop.blockingJobs();
    expectOk(f.write("POST", "/api/v1/namespaces/default/configmaps", kConfigMapA), 201);
    assert_int_equal(f.loop.blockingJobs(), before);
    // A large body's object is validated on a thread, and stored when valid...
    expectOk(f.write("POST", "/api/v1/namespaces/default/configmaps", configMapOf("big", 300000)),
             201);
    assert_int_equal(f.loop.blockingJobs(), before + 1);
    // ...or refused with the kind's causes, the object's metadata's first.
    std::string bad = configMapOf("Bad_Name", 300000);
    bad.replace(bad.find("\"k0\""), 4, "\"k 0\"");
    HttpResponse r = f.write("POST", "/api/v1/namespaces/default/configmaps", bad);
    assert_int_equal(f.loop.blockingJobs(), before + 2);
    assert_int_equal(r.status, 422);
    json::Document d = parse(r.body);
    assert_string_equal(json::stringMember(d, "reason").data(), "Invalid");
    const json::Value& causes = d["details"]["causes"];
    assert_int_equal(causes.Size(), 2);
    assert_string_equal(json::stringMember(causes[0], "field").data(), "metadata.name");
    assert_string_equal(json::stringMember(causes[1], "field").data(), "data[k 0]");
    assert_int_equal(f.get("/api/v1/namespaces/default/configmaps/Bad_Name").status, 404);
}

void json_patches_that_copy_are_built_off_the_loop(void**) {
    Fixture f;
    expectOk(f.write("POST", "/api/v1/namespaces/default/configmaps", kConfigMapA), 201);
    const std::string a = "/api/v1/namespaces/default/configmaps/a";
    size_t before = f.loop.blockingJobs();
    // Small patches of a small object are built on the loop...
    HttpResponse r = f.write("PATCH", a, R"([{"op":"add","path":"/data/x","value":"y"}])",
                             "application/json-patch+json");
    expectOk(r, 200);
    r = f.write("PATCH", a, R"({"data":{"z":"1"}})", "application/merge-patch+json");
    expectOk(r, 200);
    assert_int_equal(f.loop.blockingJobs(), before);
    // ...but each copy may double the object: such a patch goes to a
    // thread, however its operation is spelled.
    r = f.write("PATCH", a, R"([{"op":"copy","from":"/data","path":"/metadata/labels"}])",
                "application/json-patch+json");
    expectOk(r, 200);
    assert_string_equal(at(r.body, {"metadata", "labels", "x"}).c_str(), "y");
    assert_int_equal(f.loop.blockingJobs(), before + 1);
    r = f.write("PATCH", a, R"([{"op":"c\u006fpy","from":"/data/x","path":"/data/w"}])",
                "application/json-patch+json");
    expectOk(r, 200);
    assert_string_equal(at(r.body, {"data", "w"}).c_str(), "y");
    assert_int_equal(f.loop.blockingJobs(), before + 2);
}

// A kind the CRD code would add: example.com/v1 Widget, namespaced.
kube::registry::KindInfo widgetKind() {
    kube::registry::KindInfo k;
    k.group = "example.com";
    k.version = "v1";
    k.kind = "Widget";
    k.resource = "widgets";
    k.singular = "widget";
    k.shortNames = {"wd"};
    return k;
}

const char* kWidget =
    R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"size":3})";

// Added at run time, a kind is routed, listed by discovery (legacy and
// aggregated) and documented by OpenAPI; removed, it is gone from all three.
void kinds_added_and_removed_at_run_time(void**) {
    Fixture f;
    const std::string widgets = "/apis/example.com/v1/namespaces/default/widgets";
    expectStatus(f.get(widgets), 404, "NotFound",
                 "the server could not find the requested resource");
    std::string v3Index = f.get("/openapi/v3").body;
    assert_non_null(f.server.addKind(widgetKind()));
    assert_null(f.server.addKind(widgetKind()));  // served already

    expectOk(f.write("POST", widgets, kWidget), 201);
    HttpResponse r = f.get(widgets + "/w");
    expectOk(r, 200);
    assert_string_equal(at(r.body, {"size"}).c_str(), "3");
    expectOk(f.get("/apis/example.com/v1/widgets"), 200);
    expectStatus(f.write("POST", "/apis/example.com/v1/widgets", kWidget), 405, "MethodNotAllowed",
                 nullptr);

    r = f.get("/apis");
    assert_true(r.body.find(R"("name":"example.com")") != std::string::npos);
    r = f.get("/apis/example.com/v1");
    expectOk(r, 200);
    json::Document list = parse(r.body);
    const json::Value* w = findResource(list["resources"], "name", "widgets");
    assert_non_null(w);
    assert_string_equal(
        json::serialize((*w)["verbs"]).c_str(),
        R"(["create","delete","deletecollection","get","list","patch","update","watch"])");
    r = f.get("/apis", kDiscoveryAccept);
    json::Document agg = parse(r.body);
    const json::Value& last = agg["items"][agg["items"].Size() - 1];
    assert_string_equal(json::stringMember(last["metadata"], "name").data(), "example.com");
    assert_non_null(findResource(last["versions"][0]["resources"], "resource", "widgets"));

    r = f.get("/openapi/v3");
    assert_string_not_equal(r.body.c_str(), v3Index.c_str());
    assert_true(r.body.find("apis/example.com/v1") != std::string::npos);
    r = f.get("/openapi/v3/apis/example.com/v1");
    expectOk(r, 200);
    json::Document v3 = parse(r.body);
    assert_non_null(json::at(
        v3, {"paths", "/apis/example.com/v1/namespaces/{namespace}/widgets/{name}", "get"}));
    r = f.get("/openapi/v2");
    assert_true(r.body.find(R"("/apis/example.com/v1/widgets")") != std::string::npos);

    // A request running when the kind goes still completes on its store.
    Request update;
    update.method = "PUT";
    update.url = widgets + "/w";
    update.body =
        R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"size":4})";
    update.contentType = "application/json";
    std::shared_ptr<Response> running = f.send(update, false);
    assert_false(running->called);
    assert_int_equal(f.server.removeKind("example.com", "widgets"), 1);
    f.loop.run();
    assert_true(running->called);
    expectOk(running->r, 200);
    assert_string_equal(at(running->r.body, {"size"}).c_str(), "4");

    expectStatus(f.get(widgets + "/w"), 404, "NotFound",
                 "the server could not find the requested resource");
    expectStatus(f.get("/apis/example.com/v1"), 404, "NotFound", nullptr);
    assert_true(f.get("/apis").body.find("example.com") == std::string::npos);
    assert_true(f.get("/apis", kDiscoveryAccept).body.find("example.com") == std::string::npos);
    assert_string_equal(f.get("/openapi/v3").body.c_str(), v3Index.c_str());
    expectOk(f.get("/openapi/v3/apis/example.com/v1"), 404);
    assert_int_equal(f.server.removeKind("example.com", "widgets"), 0);
    // Built-in kinds stay.
    assert_int_equal(f.server.removeKind("", "configmaps"), 0);
    expectOk(f.get("/api/v1/namespaces/default/configmaps"), 200);

    // Added again, it serves what was stored.
    assert_non_null(f.server.addKind(widgetKind()));
    r = f.get(widgets + "/w");
    expectOk(r, 200);
    assert_string_equal(at(r.body, {"size"}).c_str(), "4");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(legacy_core_discovery_is_api_versions),
        cmocka_unit_test(legacy_group_list_names_every_group_with_its_preferred_version),
        cmocka_unit_test(core_resource_list_describes_each_kind),
        cmocka_unit_test(group_resource_list_has_api_version_and_categories),
        cmocka_unit_test(aggregated_discovery_v2_has_its_content_type_and_etag),
        cmocka_unit_test(aggregated_core_discovery_is_one_nameless_item),
        cmocka_unit_test(aggregated_discovery_v2beta1_is_served_to_older_clients),
        cmocka_unit_test(version_is_an_indented_version_info),
        cmocka_unit_test(readyz_turns_ok_once_started),
        cmocka_unit_test(create_get_list_update_and_delete_over_http),
        cmocka_unit_test(curl_gets_indented_json),
        cmocka_unit_test(dry_run_create_over_http_stores_nothing),
        cmocka_unit_test(table_list_has_columns_typed_cells_and_partial_metadata),
        cmocka_unit_test(include_object_none_and_object_change_the_row_object),
        cmocka_unit_test(table_v1beta1_and_namespace_columns),
        cmocka_unit_test(table_get_of_one_object_is_a_one_row_table),
        cmocka_unit_test(put_on_a_collection_is_405),
        cmocka_unit_test(unknown_resources_are_404),
        cmocka_unit_test(unknown_group_is_a_not_found_status),
        cmocka_unit_test(create_in_a_missing_namespace_is_404_for_the_namespace),
        cmocka_unit_test(deleting_default_is_forbidden),
        cmocka_unit_test(namespace_delete_answers_terminating_and_blocks_new_content),
        cmocka_unit_test(bad_bodies_get_kubes_messages),
        cmocka_unit_test(list_paging_and_name_selector_over_http),
        cmocka_unit_test(large_objects_are_rendered_off_the_loop_unless_sent_as_stored),
        cmocka_unit_test(large_creates_are_validated_off_the_loop),
        cmocka_unit_test(json_patches_that_copy_are_built_off_the_loop),
        cmocka_unit_test(kinds_added_and_removed_at_run_time),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
