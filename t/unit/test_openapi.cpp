// OpenAPI v2 and v3 generated from the schema (src/apis/proto) and the
// registry: definition names, types, references, required fields and the
// Kubernetes extensions; the operations kubectl looks for (PATCH with
// fieldValidation and the kind's GVK); hashes, ETags and the caching and
// redirect rules of kube-openapi's handlers.
#include <chrono>
#include <cstring>
#include <string>
#include <string_view>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include "builtin_scheme.hpp"
#include "endpoints/route_table.hpp"
#include "kapi/openapi_v2.pb.h"
#include "kapi/opts.pb.h"
#include "openapi/definitions.hpp"
#include "openapi/documents.hpp"
#include "openapi/paths.hpp"
#include "openapi/schema_pool.hpp"
#include "openapi/service.hpp"
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
using kube::openapi::Request;
using kube::openapi::Response;
using kube::openapi::Service;
using kube::registry::KindInfo;
using kube::registry::Scheme;
using kube::testing::builtinScheme;

const std::chrono::system_clock::time_point kNow{std::chrono::seconds(1700000000)};

// The OpenAPI service of `scheme`'s routes.
Service serviceFor(const Scheme& scheme) {
    Service svc("v1.32.0");
    svc.setRoutes(std::make_shared<const kube::endpoints::RouteTable>(scheme));
    return svc;
}

Response get(Service& svc, std::string_view path, std::string_view query = "",
             std::string_view accept = "application/json", std::string_view ifNoneMatch = "") {
    return svc.serve(Request{path, query, accept, ifNoneMatch, kNow});
}

std::string header(const Response& r, std::string_view name) {
    for (auto& [k, v] : r.headers) {
        if (k == name) {
            return v;
        }
    }
    return "";
}

// The parsed document at `path`; fails the test when it is not 200 JSON.
json::Document document(Service& svc, std::string_view path) {
    Response r = get(svc, path);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.contentType.c_str(), "application/json");
    json::Document d;
    assert_false(json::parse(r.body, d).has_value());
    return d;
}

const json::Value& at(const json::Value& v, std::initializer_list<std::string_view> path) {
    const json::Value* p = json::at(v, path);
    if (!p) {
        std::string where;
        for (std::string_view s : path) {
            where += "/" + std::string(s);
        }
        fail_msg("no %s", where.c_str());
    }
    return *p;
}

std::string str(const json::Value& v, std::initializer_list<std::string_view> path) {
    return std::string(json::view(at(v, path)));
}

bool contains(const json::Value& array, std::string_view s) {
    for (const auto& e : array.GetArray()) {
        if (json::view(e) == s) {
            return true;
        }
    }
    return false;
}

const json::Value& schemas(const json::Value& doc) {
    return at(doc, {"components", "schemas"});
}

// The one $ref of a v3 property: plain or wrapped in allOf.
std::string refOf(const json::Value& prop) {
    if (const json::Value* all = json::member(prop, "allOf")) {
        return std::string(json::stringMember((*all)[0], "$ref"));
    }
    return std::string(json::stringMember(prop, "$ref"));
}

// The query parameter `name` of an operation, written out in place.
const json::Value* param(const json::Value& op, std::string_view name) {
    const json::Value* params = json::member(op, "parameters");
    if (!params) {
        return nullptr;
    }
    for (const auto& p : params->GetArray()) {
        assert_null(json::member(p, "$ref"));
        if (json::stringMember(p, "name") == name) {
            return &p;
        }
    }
    return nullptr;
}

void definitions_are_named_as_kube_names_them(void**) {
    Service svc = serviceFor(builtinScheme());
    json::Document core = document(svc, "/openapi/v3/api/v1");
    const json::Value& s = schemas(core);
    for (const char* name : {"io.k8s.api.core.v1.ConfigMap", "io.k8s.api.core.v1.ConfigMapList",
                             "io.k8s.api.core.v1.Pod", "io.k8s.api.core.v1.Container",
                             "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
                             "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
                             "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
                             "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
                             "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
                             "io.k8s.apimachinery.pkg.api.resource.Quantity"}) {
        if (!json::member(s, name)) {
            fail_msg("api/v1 lacks %s", name);
        }
    }
    json::Document apps = document(svc, "/openapi/v3/apis/apps/v1");
    assert_non_null(json::member(schemas(apps), "io.k8s.api.apps.v1.Deployment"));
    assert_non_null(json::member(schemas(apps), "io.k8s.api.core.v1.PodTemplateSpec"));
    // A group-version's document holds only what its operations reach.
    assert_null(json::member(schemas(apps), "io.k8s.api.core.v1.ConfigMap"));
}

void configmap_schema_has_json_types_refs_and_its_gvk(void**) {
    Service svc = serviceFor(builtinScheme());
    json::Document d = document(svc, "/openapi/v3/api/v1");
    const json::Value& cm = at(schemas(d), {"io.k8s.api.core.v1.ConfigMap"});
    assert_string_equal(str(cm, {"type"}).c_str(), "object");
    assert_string_equal(str(cm, {"properties", "apiVersion", "type"}).c_str(), "string");
    assert_string_equal(str(cm, {"properties", "kind", "type"}).c_str(), "string");
    assert_string_equal(str(cm, {"properties", "data", "type"}).c_str(), "object");
    assert_string_equal(str(cm, {"properties", "data", "additionalProperties", "type"}).c_str(),
                        "string");
    assert_string_equal(
        str(cm, {"properties", "binaryData", "additionalProperties", "format"}).c_str(), "byte");
    assert_string_equal(str(cm, {"properties", "immutable", "type"}).c_str(), "boolean");
    const json::Value& meta = at(cm, {"properties", "metadata"});
    assert_string_equal(refOf(meta).c_str(),
                        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    assert_non_null(json::member(meta, "allOf"));
    assert_true(at(meta, {"default"}).IsObject());
    const json::Value& gvk = at(cm, {"x-kubernetes-group-version-kind"});
    assert_int_equal(gvk.Size(), 1);
    assert_string_equal(str(gvk[0], {"group"}).c_str(), "");
    assert_string_equal(str(gvk[0], {"kind"}).c_str(), "ConfigMap");
    assert_string_equal(str(gvk[0], {"version"}).c_str(), "v1");
    // Descriptions are the .proto comments.
    assert_true(json::stringMember(cm, "description").size() > 10);
    assert_true(json::stringMember(at(cm, {"properties", "data"}), "description").size() > 10);
    // ObjectMeta: int64, date-time by reference, maps of strings.
    const json::Value& om = at(schemas(d), {"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"});
    assert_string_equal(str(om, {"properties", "generation", "format"}).c_str(), "int64");
    assert_string_equal(refOf(at(om, {"properties", "creationTimestamp"})).c_str(),
                        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time");
    assert_string_equal(
        str(schemas(d), {"io.k8s.apimachinery.pkg.apis.meta.v1.Time", "format"}).c_str(),
        "date-time");
}

void pod_lists_carry_merge_keys_list_types_and_required_fields(void**) {
    Service svc = serviceFor(builtinScheme());
    json::Document d = document(svc, "/openapi/v3/api/v1");
    const json::Value& spec = at(schemas(d), {"io.k8s.api.core.v1.PodSpec"});
    const json::Value& containers = at(spec, {"properties", "containers"});
    assert_string_equal(str(containers, {"type"}).c_str(), "array");
    assert_string_equal(refOf(at(containers, {"items"})).c_str(),
                        "#/components/schemas/io.k8s.api.core.v1.Container");
    assert_true(at(containers, {"items", "default"}).IsObject());
    assert_string_equal(str(containers, {"x-kubernetes-patch-merge-key"}).c_str(), "name");
    assert_string_equal(str(containers, {"x-kubernetes-patch-strategy"}).c_str(), "merge");
    assert_string_equal(str(containers, {"x-kubernetes-list-type"}).c_str(), "map");
    assert_true(contains(at(containers, {"x-kubernetes-list-map-keys"}), "name"));
    assert_true(contains(at(spec, {"required"}), "containers"));
    const json::Value& container = at(schemas(d), {"io.k8s.api.core.v1.Container"});
    assert_true(contains(at(container, {"required"}), "name"));
    assert_false(contains(at(container, {"required"}), "image"));
    const json::Value& port = at(schemas(d), {"io.k8s.api.core.v1.ContainerPort"});
    assert_string_equal(str(port, {"properties", "containerPort", "format"}).c_str(), "int32");
    assert_true(contains(at(port, {"required"}), "containerPort"));
    // An embedded struct's fields are the volume's own (VolumeSource inline).
    const json::Value& volume = at(schemas(d), {"io.k8s.api.core.v1.Volume"});
    assert_non_null(json::at(volume, {"properties", "configMap"}));
    assert_null(json::at(volume, {"properties", "volumeSource"}));
}

void special_types_take_kube_forms_in_both_flavors(void**) {
    Service svc = serviceFor(builtinScheme());
    json::Document v3 = document(svc, "/openapi/v3/apis/apps/v1");
    const json::Value& ios = at(schemas(v3), {"io.k8s.apimachinery.pkg.util.intstr.IntOrString"});
    assert_string_equal(str(ios, {"format"}).c_str(), "int-or-string");
    assert_true(at(ios, {"x-kubernetes-int-or-string"}).GetBool());
    assert_null(json::member(ios, "type"));
    const json::Value& q = at(schemas(v3), {"io.k8s.apimachinery.pkg.api.resource.Quantity"});
    assert_int_equal(at(q, {"oneOf"}).Size(), 2);

    json::Document v2 = document(svc, "/openapi/v2");
    assert_string_equal(str(v2, {"swagger"}).c_str(), "2.0");
    const json::Value& defs = at(v2, {"definitions"});
    assert_string_equal(
        str(defs, {"io.k8s.apimachinery.pkg.util.intstr.IntOrString", "type"}).c_str(), "string");
    assert_string_equal(
        str(defs, {"io.k8s.apimachinery.pkg.util.intstr.IntOrString", "format"}).c_str(),
        "int-or-string");
    assert_string_equal(
        str(defs, {"io.k8s.apimachinery.pkg.api.resource.Quantity", "type"}).c_str(), "string");
    // v2 refers to #/definitions/ and keeps siblings next to $ref.
    const json::Value& meta = at(defs, {"io.k8s.api.apps.v1.Deployment", "properties", "metadata"});
    assert_string_equal(str(meta, {"$ref"}).c_str(),
                        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    assert_null(json::member(meta, "allOf"));
    const json::Value& strategy =
        at(defs, {"io.k8s.api.apps.v1.DeploymentSpec", "properties", "strategy"});
    assert_string_equal(str(strategy, {"x-kubernetes-patch-strategy"}).c_str(), "retainKeys");
}

void list_definitions_hold_items_and_the_list_gvk(void**) {
    Service svc = serviceFor(builtinScheme());
    json::Document d = document(svc, "/openapi/v3/apis/apps/v1");
    const json::Value& list = at(schemas(d), {"io.k8s.api.apps.v1.DeploymentList"});
    assert_true(contains(at(list, {"required"}), "items"));
    assert_string_equal(refOf(at(list, {"properties", "items", "items"})).c_str(),
                        "#/components/schemas/io.k8s.api.apps.v1.Deployment");
    assert_string_equal(refOf(at(list, {"properties", "metadata"})).c_str(),
                        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta");
    const json::Value& gvk = at(list, {"x-kubernetes-group-version-kind"})[0];
    assert_string_equal(str(gvk, {"group"}).c_str(), "apps");
    assert_string_equal(str(gvk, {"kind"}).c_str(), "DeploymentList");
}

void patch_operation_names_field_validation_and_the_kind(void**) {
    Service svc = serviceFor(builtinScheme());
    json::Document d = document(svc, "/openapi/v3/apis/apps/v1");
    const json::Value& item =
        at(d, {"paths", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"});
    const json::Value& patch = at(item, {"patch"});
    assert_string_equal(str(patch, {"operationId"}).c_str(), "patchAppsV1NamespacedDeployment");
    assert_string_equal(str(patch, {"x-kubernetes-action"}).c_str(), "patch");
    assert_string_equal(str(patch, {"x-kubernetes-group-version-kind", "group"}).c_str(), "apps");
    assert_string_equal(str(patch, {"x-kubernetes-group-version-kind", "kind"}).c_str(),
                        "Deployment");
    assert_string_equal(str(patch, {"x-kubernetes-group-version-kind", "version"}).c_str(), "v1");
    const json::Value* fv = param(patch, "fieldValidation");
    assert_non_null(fv);
    assert_string_equal(str(*fv, {"in"}).c_str(), "query");
    assert_non_null(param(patch, "fieldManager"));
    assert_non_null(param(patch, "force"));
    assert_non_null(
        json::at(patch, {"requestBody", "content", "application/strategic-merge-patch+json"}));
    // Path-level parameters: the path's own and pretty.
    assert_int_equal(at(item, {"parameters"}).Size(), 3);
    assert_string_equal(str(at(item, {"get"}), {"operationId"}).c_str(),
                        "readAppsV1NamespacedDeployment");
    assert_string_equal(str(at(item, {"put"}), {"operationId"}).c_str(),
                        "replaceAppsV1NamespacedDeployment");
    assert_non_null(param(at(item, {"put"}), "fieldValidation"));
    assert_string_equal(str(at(item, {"delete"}), {"operationId"}).c_str(),
                        "deleteAppsV1NamespacedDeployment");

    // v2: the same operation with its parameters inline.
    json::Document v2 = document(svc, "/openapi/v2");
    const json::Value& p2 =
        at(v2, {"paths", "/api/v1/namespaces/{namespace}/configmaps/{name}", "patch"});
    assert_string_equal(str(p2, {"x-kubernetes-group-version-kind", "kind"}).c_str(), "ConfigMap");
    assert_non_null(param(p2, "fieldValidation"));
    assert_true(contains(at(p2, {"consumes"}), "application/strategic-merge-patch+json"));
    // Server-side apply is served, last in kube's v2 list.
    const json::Value& consumes = at(p2, {"consumes"});
    assert_int_equal(consumes.Size(), 4);
    assert_string_equal(consumes[3].GetString(), "application/apply-patch+yaml");
}

void operations_are_named_and_placed_as_kube_does(void**) {
    Service svc = serviceFor(builtinScheme());
    json::Document core = document(svc, "/openapi/v3/api/v1");
    const json::Value& paths = at(core, {"paths"});
    assert_string_equal(
        str(paths, {"/api/v1/namespaces/{namespace}/configmaps", "get", "operationId"}).c_str(),
        "listCoreV1NamespacedConfigMap");
    assert_string_equal(
        str(paths, {"/api/v1/namespaces/{namespace}/configmaps", "post", "operationId"}).c_str(),
        "createCoreV1NamespacedConfigMap");
    assert_string_equal(
        str(paths, {"/api/v1/namespaces/{namespace}/configmaps", "delete", "operationId"}).c_str(),
        "deleteCoreV1CollectionNamespacedConfigMap");
    assert_string_equal(str(paths, {"/api/v1/configmaps", "get", "operationId"}).c_str(),
                        "listCoreV1ConfigMapForAllNamespaces");
    assert_string_equal(str(paths, {"/api/v1/watch/namespaces/{namespace}/configmaps/{name}", "get",
                                    "x-kubernetes-action"})
                            .c_str(),
                        "watch");
    assert_string_equal(str(paths, {"/api/v1/watch/configmaps", "get", "operationId"}).c_str(),
                        "watchCoreV1ConfigMapListForAllNamespaces");
    assert_string_equal(str(paths, {"/api/v1/", "get", "operationId"}).c_str(),
                        "getCoreV1APIResources");
    // Namespaces are cluster-scoped: no namespace in their paths, no
    // deletecollection (the kind does not declare it).
    assert_non_null(json::at(paths, {"/api/v1/namespaces/{name}", "patch"}));
    assert_null(json::at(paths, {"/api/v1/namespaces", "delete"}));
    // The list operation documents the list parameters and produces the list.
    const json::Value& list = at(paths, {"/api/v1/namespaces/{namespace}/configmaps", "get"});
    for (const char* p :
         {"labelSelector", "fieldSelector", "limit", "continue", "watch", "resourceVersion",
          "resourceVersionMatch", "allowWatchBookmarks", "sendInitialEvents", "timeoutSeconds"}) {
        if (!param(list, p)) {
            fail_msg("list lacks %s", p);
        }
    }
    assert_string_equal(
        refOf(at(list, {"responses", "200", "content", "application/json", "schema"})).c_str(),
        "#/components/schemas/io.k8s.api.core.v1.ConfigMapList");

    json::Document rbac = document(svc, "/openapi/v3/apis/rbac.authorization.k8s.io/v1");
    assert_string_equal(str(rbac, {"paths", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                                   "get", "operationId"})
                            .c_str(),
                        "listRbacAuthorizationV1ClusterRole");
    assert_string_equal(
        json::view(at(rbac, {"paths", "/apis/rbac.authorization.k8s.io/v1/", "get", "tags"})[0])
            .data(),
        "rbacAuthorization_v1");
}

void index_lists_every_group_version_and_discovery_path_with_its_hash(void**) {
    Service svc = serviceFor(builtinScheme());
    json::Document index = document(svc, "/openapi/v3");
    const json::Value& paths = at(index, {"paths"});
    for (const char* p : {"api", "api/v1", "apis", "apis/apps", "apis/apps/v1", "version",
                          "apis/rbac.authorization.k8s.io/v1"}) {
        const json::Value* e = json::member(paths, p);
        if (!e) {
            fail_msg("index lacks %s", p);
        }
        std::string url(json::stringMember(*e, "serverRelativeURL"));
        std::string want = "/openapi/v3/" + std::string(p) + "?hash=" + svc.v3Hash(p);
        assert_string_equal(url.c_str(), want.c_str());
        assert_int_equal(svc.v3Hash(p).size(), 128);
    }
    // The hash is the SHA-512 of what the URL serves, in upper-case hex.
    std::string hash = svc.v3Hash("api/v1");
    for (char c : hash) {
        assert_true((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'));
    }
}

void hashes_are_stable_and_change_with_the_document(void**) {
    Service a = serviceFor(builtinScheme());
    Service b = serviceFor(builtinScheme());
    assert_string_equal(a.v3Hash("apis/apps/v1").c_str(), b.v3Hash("apis/apps/v1").c_str());
    assert_string_equal(get(a, "/openapi/v2").body.c_str(), get(b, "/openapi/v2").body.c_str());

    // One more kind in apps/v1 changes that document's hash, not core's.
    Scheme more;
    kube::registry::addBuiltinKinds(more);
    KindInfo extra;
    extra.group = "apps";
    extra.version = "v1";
    extra.kind = "Widget";
    extra.resource = "widgets";
    extra.singular = "widget";
    more.add(extra);
    Service c = serviceFor(more);
    assert_string_not_equal(a.v3Hash("apis/apps/v1").c_str(), c.v3Hash("apis/apps/v1").c_str());
    assert_string_equal(a.v3Hash("api/v1").c_str(), c.v3Hash("api/v1").c_str());
    // A kind the schema has no message for is an open object.
    json::Document d = document(c, "/openapi/v3/apis/apps/v1");
    const json::Value& widget = at(schemas(d), {"io.k8s.api.apps.v1.Widget"});
    assert_true(at(widget, {"x-kubernetes-preserve-unknown-fields"}).GetBool());
    assert_string_equal(str(at(widget, {"x-kubernetes-group-version-kind"})[0], {"kind"}).c_str(),
                        "Widget");
    assert_non_null(
        json::at(d, {"paths", "/apis/apps/v1/namespaces/{namespace}/widgets/{name}", "patch"}));
}

// Subresources come from the kind's SubresourceInfo: status answers with the
// kind, scale and token with other kinds, and only the verbs declared are
// documented.
void subresources_get_their_own_operations(void**) {
    Scheme scheme;
    KindInfo deploy;
    deploy.group = "apps";
    deploy.version = "v1";
    deploy.kind = "Deployment";
    deploy.resource = "deployments";
    deploy.subresources = {{"status", "", "", "", {"get", "update", "patch"}},
                           {"scale", "autoscaling", "v1", "Scale", {"get", "update", "patch"}}};
    scheme.add(deploy);
    KindInfo sa;
    sa.version = "v1";
    sa.kind = "ServiceAccount";
    sa.resource = "serviceaccounts";
    sa.subresources = {{"token",
                        "authentication.k8s.io",
                        "v1",
                        "TokenRequest",
                        {"create"},
                        kube::registry::SubresourceStorage::TokenRequest}};
    scheme.add(sa);
    Service svc = serviceFor(scheme);
    json::Document apps = document(svc, "/openapi/v3/apis/apps/v1");
    const json::Value& status =
        at(apps, {"paths", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status"});
    assert_string_equal(str(status, {"get", "operationId"}).c_str(),
                        "readAppsV1NamespacedDeploymentStatus");
    assert_string_equal(str(status, {"patch", "operationId"}).c_str(),
                        "patchAppsV1NamespacedDeploymentStatus");
    assert_non_null(param(at(status, {"patch"}), "fieldValidation"));
    assert_string_equal(str(status, {"patch", "x-kubernetes-group-version-kind", "kind"}).c_str(),
                        "Deployment");
    assert_null(json::member(status, "post"));
    const json::Value& scale =
        at(apps, {"paths", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"});
    assert_string_equal(str(scale, {"put", "operationId"}).c_str(),
                        "replaceAppsV1NamespacedDeploymentScale");
    assert_string_equal(str(scale, {"get", "x-kubernetes-group-version-kind", "group"}).c_str(),
                        "autoscaling");
    assert_string_equal(str(scale, {"get", "x-kubernetes-group-version-kind", "kind"}).c_str(),
                        "Scale");

    json::Document core = document(svc, "/openapi/v3/api/v1");
    const json::Value& token =
        at(core, {"paths", "/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", "post"});
    assert_string_equal(str(token, {"operationId"}).c_str(),
                        "createCoreV1NamespacedServiceAccountToken");
    assert_string_equal(str(token, {"x-kubernetes-action"}).c_str(), "post");
    assert_string_equal(str(token, {"x-kubernetes-group-version-kind", "kind"}).c_str(),
                        "TokenRequest");
}

void etag_and_if_none_match_give_304(void**) {
    Service svc = serviceFor(builtinScheme());
    Response v2 = get(svc, "/openapi/v2");
    std::string etag;
    for (auto& [k, v] : v2.headers) {
        if (k == "ETag") {
            etag = v;
        }
    }
    assert_int_equal(etag.size(), 130);
    assert_int_equal(get(svc, "/openapi/v2", "", "application/json", etag).status, 304);
    assert_int_equal(get(svc, "/openapi/v2", "", "application/json", "W/" + etag).status, 304);
    assert_int_equal(get(svc, "/openapi/v2", "", "application/json", "\"other\"").status, 200);

    std::string hash = svc.v3Hash("apis/apps/v1");
    Response notModified =
        get(svc, "/openapi/v3/apis/apps/v1", "", "application/json", "\"" + hash + "\"");
    assert_int_equal(notModified.status, 304);
    assert_true(notModified.body.empty());

    Response index = get(svc, "/openapi/v3");
    for (auto& [k, v] : index.headers) {
        if (k == "ETag") {
            assert_int_equal(get(svc, "/openapi/v3", "", "", v).status, 304);
        }
    }
}

void hashed_url_is_immutable_and_a_stale_hash_redirects(void**) {
    Service svc = serviceFor(builtinScheme());
    std::string hash = svc.v3Hash("api/v1");
    Response r = get(svc, "/openapi/v3/api/v1", "hash=" + hash + "&timeout=32s");
    assert_int_equal(r.status, 200);
    assert_string_equal(header(r, "Cache-Control").c_str(), "public, immutable");
    assert_string_equal(header(r, "ETag").c_str(), ("\"" + hash + "\"").c_str());
    assert_string_equal(header(r, "Vary").c_str(), "Accept");
    // A year after 2023-11-14T22:13:20Z.
    assert_string_equal(header(r, "Expires").c_str(), "Thu, 14 Nov 2024 22:13:20 GMT");

    Response plain = get(svc, "/openapi/v3/api/v1");
    assert_int_equal(plain.status, 200);
    assert_string_equal(header(plain, "Cache-Control").c_str(), "");
    assert_string_equal(plain.body.c_str(), r.body.c_str());

    Response stale = get(svc, "/openapi/v3/api/v1", "hash=0123");
    assert_int_equal(stale.status, 301);
    assert_string_equal(header(stale, "Location").c_str(),
                        ("/openapi/v3/api/v1?hash=" + hash).c_str());
    assert_true(stale.body.empty());
}

void unknown_documents_and_protobuf_only_accepts_are_refused(void**) {
    Service svc = serviceFor(builtinScheme());
    Response nf = get(svc, "/openapi/v3/apis/nosuch.example.com/v1");
    assert_int_equal(nf.status, 404);
    assert_non_null(strstr(nf.body.c_str(), "\"reason\":\"NotFound\""));
    assert_int_equal(get(svc, "/openapi/v3/", "").status, 404);

    assert_int_equal(get(svc, "/openapi/v2", "", "text/html").status, 406);
    assert_int_equal(get(svc, "/openapi/v2", "", "").status, 200);
    assert_int_equal(get(svc, "/openapi/v3/api/v1", "",
                         "application/com.github.proto-openapi.spec.v3@v1.0+protobuf")
                         .status,
                     406);

    assert_true(Service::handles("/openapi/v2"));
    assert_true(Service::handles("/openapi/v3"));
    assert_true(Service::handles("/openapi/v3/apis/apps/v1"));
    assert_false(Service::handles("/openapi/v2/x"));
    assert_false(Service::handles("/openapi"));
}

// client-go reads /openapi/v2 only in gnostic's protobuf form: the document
// decodes as that message with the paths, operations, parameters and
// extensions of the JSON.
void v2_protobuf_is_gnostic_document_of_the_json(void**) {
    Service svc = serviceFor(builtinScheme());
    const char* pb2 = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
    Response r = get(svc, "/openapi/v2", "", pb2);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.contentType.c_str(),
                        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    assert_string_equal(header(r, "ETag").c_str(), header(get(svc, "/openapi/v2"), "ETag").c_str());
    gnostic::openapi::v2::Document doc;
    assert_true(doc.ParseFromString(r.body));
    assert_string_equal(doc.swagger().c_str(), "2.0");
    const gnostic::openapi::v2::PathItem* item = nullptr;
    for (const auto& p : doc.paths().path()) {
        if (p.name() == "/apis/apps/v1/namespaces/{namespace}/deployments/{name}") {
            item = &p.value();
        }
    }
    assert_non_null(item);
    const auto& patch = item->patch();
    assert_string_equal(patch.operation_id().c_str(), "patchAppsV1NamespacedDeployment");
    bool fieldValidation = false;
    for (const auto& p : patch.parameters()) {
        const auto& q = p.parameter().non_body_parameter().query_parameter_sub_schema();
        fieldValidation = fieldValidation || q.name() == "fieldValidation";
    }
    assert_true(fieldValidation);
    std::string gvk;
    for (const auto& e : patch.vendor_extension()) {
        if (e.name() == "x-kubernetes-group-version-kind") {
            gvk = e.value().yaml();
        }
    }
    assert_string_equal(gvk.c_str(),
                        "{\"group\":\"apps\",\"kind\":\"Deployment\",\"version\":\"v1\"}");
    bool configMap = false;
    for (const auto& d : doc.definitions().additional_properties()) {
        if (d.name() == "io.k8s.api.core.v1.ConfigMap") {
            configMap = d.value().type().value(0) == "object" &&
                        d.value().properties().additional_properties_size() >= 5;
        }
    }
    assert_true(configMap);
    // JSON first for a wildcard, as kube-openapi picks.
    assert_string_equal(get(svc, "/openapi/v2", "", "*/*").contentType.c_str(), "application/json");
    assert_int_equal(
        get(svc, "/openapi/v2", "", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
            .status,
        200);
}

// A schema file of one message "Thing" with one string field, in OpenAPI
// package io.k8s.test; `fallback` marks the file openapi_fallback.
void addThingFile(google::protobuf::FileDescriptorSet& set, const char* name, bool fallback,
                  const char* field, const char* comment) {
    google::protobuf::FileDescriptorProto* f = set.add_file();
    f->set_name(name);
    f->set_package(std::string("kapi.") + (fallback ? "fb" : "real"));
    f->add_dependency("kapi/opts.proto");
    f->mutable_options()->SetExtension(kapi::opt::openapi_package, "io.k8s.test");
    if (fallback) {
        f->mutable_options()->SetExtension(kapi::opt::openapi_fallback, true);
    }
    google::protobuf::DescriptorProto* m = f->add_message_type();
    m->set_name("Thing");
    google::protobuf::FieldDescriptorProto* fd = m->add_field();
    fd->set_name(field);
    fd->set_number(1);
    fd->set_label(google::protobuf::FieldDescriptorProto::LABEL_OPTIONAL);
    fd->set_type(google::protobuf::FieldDescriptorProto::TYPE_STRING);
    google::protobuf::SourceCodeInfo::Location* where =
        f->mutable_source_code_info()->add_location();
    where->add_path(4);  // message_type
    where->add_path(0);
    for (int span : {0, 0, 1}) {  // protobuf ignores a location without a span
        where->add_span(span);
    }
    where->set_leading_comments(comment);
}

void a_fallback_definition_yields_and_comments_become_descriptions(void**) {
    for (bool fallbackFirst : {true, false}) {
        google::protobuf::FileDescriptorSet set;
        google::protobuf::FileDescriptorProto::descriptor()->file()->CopyTo(set.add_file());
        kapi::opt::JsonForm_descriptor()->file()->CopyTo(set.add_file());
        const char* comment = " A thing, described\n over two lines.\n\n A second paragraph.\n";
        if (fallbackFirst) {
            addThingFile(set, "fb.proto", true, "a", comment);
            addThingFile(set, "real.proto", false, "b", comment);
        } else {
            addThingFile(set, "real.proto", false, "b", comment);
            addThingFile(set, "fb.proto", true, "a", comment);
        }
        kube::openapi::SchemaPool pool(set.SerializeAsString());
        const google::protobuf::Descriptor* thing = pool.forDefinition("io.k8s.test.Thing");
        assert_non_null(thing);
        assert_string_equal(thing->file()->name().c_str(), "real.proto");
        assert_string_equal(kube::openapi::SchemaPool::description(thing).c_str(),
                            "A thing, described over two lines.\n\nA second paragraph.");
        assert_null(pool.forDefinition("io.k8s.test.Other"));
    }
    // The embedded schema: kinds by apiVersion/kind, names as kube's.
    const kube::openapi::SchemaPool& pool = kube::openapi::SchemaPool::builtin();
    const google::protobuf::Descriptor* d = pool.forKind("apps/v1", "Deployment");
    assert_non_null(d);
    assert_string_equal(kube::openapi::SchemaPool::definitionName(d).c_str(),
                        "io.k8s.api.apps.v1.Deployment");
    assert_null(pool.forKind("apps/v1", "NoSuchKind"));
    const google::protobuf::Descriptor* meta =
        pool.forDefinition("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    assert_non_null(meta);
    assert_string_equal(
        kube::openapi::SchemaPool::description(meta->FindFieldByName("name")).c_str(),
        "The object's name, unique among the objects of its kind in its namespace. Required "
        "when creating, unless generateName is set; cannot be changed.");
}

void operation_groups_are_spelled_as_kube_spells_them(void**) {
    using kube::openapi::operationGroup;
    assert_string_equal(operationGroup("").c_str(), "Core");
    assert_string_equal(operationGroup("apps").c_str(), "Apps");
    assert_string_equal(operationGroup("rbac.authorization.k8s.io").c_str(), "RbacAuthorization");
    assert_string_equal(operationGroup("flowcontrol.apiserver.k8s.io").c_str(),
                        "FlowcontrolApiserver");
    assert_string_equal(operationGroup("stable.example.com").c_str(), "StableExampleCom");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(definitions_are_named_as_kube_names_them),
        cmocka_unit_test(configmap_schema_has_json_types_refs_and_its_gvk),
        cmocka_unit_test(pod_lists_carry_merge_keys_list_types_and_required_fields),
        cmocka_unit_test(special_types_take_kube_forms_in_both_flavors),
        cmocka_unit_test(list_definitions_hold_items_and_the_list_gvk),
        cmocka_unit_test(patch_operation_names_field_validation_and_the_kind),
        cmocka_unit_test(operations_are_named_and_placed_as_kube_does),
        cmocka_unit_test(index_lists_every_group_version_and_discovery_path_with_its_hash),
        cmocka_unit_test(hashes_are_stable_and_change_with_the_document),
        cmocka_unit_test(subresources_get_their_own_operations),
        cmocka_unit_test(etag_and_if_none_match_give_304),
        cmocka_unit_test(hashed_url_is_immutable_and_a_stale_hash_redirects),
        cmocka_unit_test(unknown_documents_and_protobuf_only_accepts_are_refused),
        cmocka_unit_test(v2_protobuf_is_gnostic_document_of_the_json),
        cmocka_unit_test(a_fallback_definition_yields_and_comments_become_descriptions),
        cmocka_unit_test(operation_groups_are_spelled_as_kube_spells_them),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
