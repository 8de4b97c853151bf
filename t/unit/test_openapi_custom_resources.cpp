// OpenAPI v2 and v3 of custom resources (KindInfo::custom), built from their
// CRD version's schema as kube's apiextensions server builds them. The
// expectations are what kube-apiserver 1.26.5 serves for the same CRDs
// (/openapi/v2 definitions, /openapi/v3/apis/<group>/<version>): names,
// the schema keywords each version keeps or drops, the metadata and
// embedded-object properties added, and the operations kubectl reads
// (PATCH types for apply, fieldValidation for --validate=strict).
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>

#include "endpoints/route_table.hpp"
#include "openapi/custom_resource_schema.hpp"
#include "openapi/service.hpp"
#include "registry/scheme.hpp"
#include "util/json.hpp"
#include "util/yaml.hpp"

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
using kube::registry::CustomResourceDefinitionRef;
using kube::registry::KindInfo;
using kube::registry::Scheme;

const std::chrono::system_clock::time_point kNow{std::chrono::seconds(1700000000)};

const char* kCronTabs = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.crview.example.com}
spec:
  group: crview.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, listKind: CronTabList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema:
        type: object
        description: A CronTab runs things.
        required: [spec]
        properties:
          metadata:
            type: object
            properties:
              name: {type: string, maxLength: 10}
          spec:
            type: object
            required: [cronSpec, nick]
            x-kubernetes-validations:
            - {rule: "self.replicas >= 0", message: must be positive}
            properties:
              cronSpec: {type: string, description: The schedule., pattern: '^\d+$'}
              image: {type: string, default: busybox, maxLength: 100, example: x}
              replicas: {type: integer, format: int32, minimum: 0, maximum: 10,
                         exclusiveMinimum: false}
              mode: {type: string, enum: [A, B]}
              port: {x-kubernetes-int-or-string: true}
              port2:
                x-kubernetes-int-or-string: true
                anyOf: [{type: integer}, {type: string}]
              nick: {type: string, nullable: true}
              maybe:
                type: object
                nullable: true
                properties: {a: {type: string}}
              tags:
                type: array
                items: {type: string}
                x-kubernetes-list-type: set
              entries:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties: {name: {type: string}, value: {type: string}}
              labels:
                type: object
                additionalProperties: {type: string, nullable: true}
              anything:
                type: object
                x-kubernetes-preserve-unknown-fields: true
              list2:
                type: array
                items: {type: object, x-kubernetes-preserve-unknown-fields: true}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
              embedded2:
                type: object
                x-kubernetes-embedded-resource: true
                properties:
                  spec: {type: object, properties: {foo: {type: string}}}
              choice:
                type: object
                properties: {a: {type: string}, b: {type: string}}
                oneOf: [{required: [a]}, {required: [b]}]
              notField: {type: string, not: {enum: ["x"]}}
          status:
            type: object
            properties:
              replicas: {type: integer}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
)";

const char* kGizmos = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.other.example.org}
spec:
  group: other.example.org
  scope: Cluster
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoCollection}
  versions:
  - name: v1beta1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
)";

std::shared_ptr<const json::Document> crdOf(std::string_view yaml) {
    auto d = std::make_shared<json::Document>();
    assert_false(kube::util::yaml::toJson(yaml, *d).has_value());
    return d;
}

// The kind a CRD version is served as, as Server::addKind gets it.
KindInfo kindOf(const std::shared_ptr<const json::Document>& crd, rapidjson::SizeType version) {
    const json::Value& spec = (*crd)["spec"];
    const json::Value& v = spec["versions"][version];
    KindInfo k;
    k.group = json::view(spec["group"]);
    k.version = json::view(v["name"]);
    k.kind = json::view(spec["names"]["kind"]);
    k.resource = json::view(spec["names"]["plural"]);
    k.singular = json::view(spec["names"]["singular"]);
    k.namespaced = json::view(spec["scope"]) == "Namespaced";
    if (json::at(v, {"subresources", "status"})) {
        k.subresources.push_back({"status", "", "", "", {"get", "patch", "update"}});
    }
    if (json::at(v, {"subresources", "scale"})) {
        k.subresources.push_back({"scale",
                                  "autoscaling",
                                  "v1",
                                  "Scale",
                                  {"get", "patch", "update"},
                                  kube::registry::SubresourceStorage::Scale});
    }
    auto ref = std::make_shared<CustomResourceDefinitionRef>();
    ref->crd = crd;
    ref->version = &v;
    ref->openAPIV3Schema = json::at(v, {"schema", "openAPIV3Schema"});
    k.custom = ref;
    return k;
}

// The built-in kinds plus every version of `crds`.
Scheme schemeWith(std::initializer_list<std::shared_ptr<const json::Document>> crds) {
    Scheme s;
    kube::registry::addBuiltinKinds(s);
    for (const auto& crd : crds) {
        for (rapidjson::SizeType i = 0; i < (*crd)["spec"]["versions"].Size(); ++i) {
            s.add(kindOf(crd, i));
        }
    }
    return s;
}

Service serviceFor(const Scheme& scheme) {
    Service svc("v1.32.0");
    svc.setRoutes(std::make_shared<const kube::endpoints::RouteTable>(scheme));
    return svc;
}

json::Document document(Service& svc, std::string_view path) {
    Response r = svc.serve(Request{path, "", "application/json", "", kNow});
    assert_int_equal(r.status, 200);
    json::Document d;
    assert_false(json::parse(r.body, d).has_value());
    return d;
}

const json::Value& at(const json::Value& v, std::initializer_list<std::string_view> path) {
    const json::Value* found = json::at(v, path);
    if (!found) {
        std::string p;
        for (std::string_view s : path) {
            p += "/" + std::string(s);
        }
        fail_msg("no %s", p.c_str());
    }
    return *found;
}

std::string str(const json::Value& v, std::initializer_list<std::string_view> path) {
    return std::string(json::view(at(v, path)));
}

std::string compact(const json::Value& v) {
    return json::serialize(v);
}

// `v` is the JSON `want`, members in any order.
void assertJson(const json::Value& v, const std::string& want) {
    json::Document w;
    assert_false(json::parse(want, w).has_value());
    if (!(v == w)) {
        fail_msg("%s != %s", compact(v).c_str(), want.c_str());
    }
}

void definitions_are_named_as_kube_names_them(void**) {
    assert_string_equal(
        kube::openapi::customDefinitionName("crview.example.com", "v1", "CronTab").c_str(),
        "com.example.crview.v1.CronTab");
    assert_string_equal(kube::openapi::customDefinitionName("stable", "v1", "X").c_str(),
                        "stable.v1.X");
    Scheme scheme = schemeWith({crdOf(kCronTabs), crdOf(kGizmos)});
    Service svc = serviceFor(scheme);
    json::Document v2 = document(svc, "/openapi/v2");
    const json::Value& defs = at(v2, {"definitions"});
    for (const char* name :
         {"com.example.crview.v1.CronTab", "com.example.crview.v1.CronTabList",
          "com.example.crview.v2.CronTab", "com.example.crview.v2.CronTabList",
          "org.example.other.v1beta1.Gizmo", "org.example.other.v1beta1.GizmoCollection"}) {
        assert_non_null(json::member(defs, name));
    }
    // The v3 index lists each custom group-version, not the group itself.
    json::Document index = document(svc, "/openapi/v3");
    assert_non_null(json::at(index, {"paths", "apis/crview.example.com/v1"}));
    assert_non_null(json::at(index, {"paths", "apis/crview.example.com/v2"}));
    assert_non_null(json::at(index, {"paths", "apis/other.example.org/v1beta1"}));
    assert_null(json::at(index, {"paths", "apis/crview.example.com"}));
    assert_non_null(json::at(index, {"paths", "apis/apps"}));
}

void v3_keeps_the_crd_schema_and_adds_kube_metadata(void**) {
    Scheme scheme = schemeWith({crdOf(kCronTabs)});
    Service svc = serviceFor(scheme);
    json::Document d = document(svc, "/openapi/v3/apis/crview.example.com/v1");
    assert_string_equal(str(d, {"info", "title"}).c_str(), "Kubernetes CRD Swagger");
    const json::Value& schemas = at(d, {"components", "schemas"});
    for (const char* name :
         {"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
          "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
          "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
          "io.k8s.apimachinery.pkg.apis.meta.v1.Patch", "io.k8s.api.autoscaling.v1.Scale"}) {
        assert_non_null(json::member(schemas, name));
    }
    const json::Value& ct = at(schemas, {"com.example.crview.v1.CronTab"});
    assert_string_equal(str(ct, {"description"}).c_str(), "A CronTab runs things.");
    assertJson(at(ct, {"required"}), R"(["spec"])");
    assertJson(at(ct, {"x-kubernetes-group-version-kind"}),
               R"([{"group":"crview.example.com","kind":"CronTab","version":"v1"}])");
    // The CRD's own metadata schema gives way to ObjectMeta's.
    assertJson(
        at(ct, {"properties", "metadata", "allOf"}),
        R"([{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}])");
    assert_string_equal(str(ct, {"properties", "apiVersion", "type"}).c_str(), "string");
    assert_string_equal(str(ct, {"properties", "kind", "type"}).c_str(), "string");
    // Properties in name order.
    std::string order;
    for (const auto& m : at(ct, {"properties"}).GetObject()) {
        order += std::string(json::view(m.name)) + ",";
    }
    assert_string_equal(order.c_str(), "apiVersion,kind,metadata,spec,status,");

    const json::Value& spec = at(ct, {"properties", "spec", "properties"});
    assertJson(at(spec, {"image"}), R"({"type":"string","default":"busybox","maxLength":100})");
    assertJson(at(spec, {"replicas"}),
               R"({"type":"integer","format":"int32","maximum":10,"minimum":0})");
    assertJson(at(spec, {"nick"}), R"({"type":"string","nullable":true})");
    // Unfolded: x-kubernetes-int-or-string is also an anyOf.
    assertJson(
        at(spec, {"port"}),
        R"({"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]})");
    assertJson(
        at(spec, {"port2"}),
        R"({"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true})");
    assertJson(at(spec, {"choice", "oneOf"}), R"([{"required":["a"]},{"required":["b"]}])");
    assertJson(at(spec, {"notField", "not"}), R"({"enum":["x"]})");
    assertJson(at(spec, {"entries", "x-kubernetes-list-map-keys"}), R"(["name"])");
    assertJson(at(ct, {"properties", "spec", "x-kubernetes-validations"}),
               R"([{"message":"must be positive","rule":"self.replicas >= 0"}])");
    assertJson(at(ct, {"properties", "spec", "required"}), R"(["cronSpec","nick"])");
    // Embedded objects get apiVersion, kind and metadata, and require two.
    for (const char* field : {"template", "embedded2"}) {
        const json::Value& e = at(spec, {field});
        assertJson(at(e, {"required"}), R"(["kind","apiVersion"])");
        assert_non_null(json::at(e, {"properties", "metadata", "allOf"}));
        assert_string_equal(str(e, {"properties", "kind", "type"}).c_str(), "string");
    }

    const json::Value& list = at(schemas, {"com.example.crview.v1.CronTabList"});
    assertJson(at(list, {"properties", "items", "items"}),
               R"({"$ref":"#/components/schemas/com.example.crview.v1.CronTab"})");
    assertJson(at(list, {"required"}), R"(["items"])");
    assert_null(json::member(list, "type"));
    assert_string_equal(str(at(list, {"x-kubernetes-group-version-kind"})[0], {"kind"}).c_str(),
                        "CronTabList");

    // A version whose schema keeps unknown fields still documents its meta.
    json::Document d2 = document(svc, "/openapi/v3/apis/crview.example.com/v2");
    const json::Value& open = at(d2, {"components", "schemas", "com.example.crview.v2.CronTab"});
    assert_true(at(open, {"x-kubernetes-preserve-unknown-fields"}).GetBool());
    assert_non_null(json::at(open, {"properties", "metadata"}));
}

void v2_drops_what_kubectl_cannot_read(void**) {
    Scheme scheme = schemeWith({crdOf(kCronTabs)});
    Service svc = serviceFor(scheme);
    json::Document d = document(svc, "/openapi/v2");
    const json::Value& ct = at(d, {"definitions", "com.example.crview.v1.CronTab"});
    assertJson(at(ct, {"properties", "metadata"}),
               (R"({"$ref":"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",)"
                R"("description":"The object's metadata: its name and namespace, its labels and )"
                R"(annotations, and what the server records about it."})"));
    const json::Value& spec = at(ct, {"properties", "spec", "properties"});
    // No defaults, nullable, anyOf, oneOf or not.
    assertJson(at(spec, {"image"}), R"({"type":"string","maxLength":100})");
    assertJson(at(spec, {"nick"}), "{}");
    assertJson(at(spec, {"maybe"}), "{}");
    assertJson(at(spec, {"port"}), R"({"x-kubernetes-int-or-string":true})");
    assertJson(at(spec, {"port2"}), R"({"x-kubernetes-int-or-string":true})");
    assert_null(json::at(spec, {"choice", "oneOf"}));
    assert_null(json::at(spec, {"notField", "not"}));
    // A nullable property is not required; nullable values of a map are
    // untyped.
    assertJson(at(ct, {"properties", "spec", "required"}), R"(["cronSpec"])");
    assertJson(at(spec, {"labels", "additionalProperties"}), "{}");
    // Keeping unknown fields: no type, properties or items.
    assertJson(at(spec, {"anything"}), R"({"x-kubernetes-preserve-unknown-fields":true})");
    assertJson(at(spec, {"list2"}),
               R"({"type":"array","items":{"x-kubernetes-preserve-unknown-fields":true}})");
    assertJson(
        at(spec, {"template"}),
        R"({"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-embedded-resource":true})");
    assertJson(at(spec, {"embedded2", "required"}), R"(["kind","apiVersion"])");
    assert_string_equal(str(spec, {"embedded2", "properties", "metadata", "$ref"}).c_str(),
                        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    // A version whose root keeps unknown fields is a bare object in v2.
    assertJson(
        at(d, {"definitions", "com.example.crview.v2.CronTab"}),
        R"({"type":"object","x-kubernetes-group-version-kind":[{"group":"crview.example.com","kind":"CronTab","version":"v2"}]})");
    // The v2 document converts to protobuf (client-go asks for it).
    Response pb = svc.serve(Request{
        "/openapi/v2", "", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "", kNow});
    assert_int_equal(pb.status, 200);
    assert_true(pb.body.size() > 1000);
}

// The operations kubectl reads: apply picks the patch type from the PATCH
// operation's types (no strategic merge patch for custom resources), and
// --validate=strict looks for fieldValidation on it.
void operations_are_those_of_kubes_crd_builder(void**) {
    Scheme scheme = schemeWith({crdOf(kCronTabs)});
    Service svc = serviceFor(scheme);
    json::Document v3 = document(svc, "/openapi/v3/apis/crview.example.com/v1");
    const json::Value& paths = at(v3, {"paths"});
    std::string list;
    for (const auto& m : paths.GetObject()) {
        list += std::string(json::view(m.name)) + "\n";
    }
    assert_string_equal(
        list.c_str(),
        "/apis/crview.example.com/v1/crontabs\n"
        "/apis/crview.example.com/v1/namespaces/{namespace}/crontabs\n"
        "/apis/crview.example.com/v1/namespaces/{namespace}/crontabs/{name}\n"
        "/apis/crview.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale\n"
        "/apis/crview.example.com/v1/namespaces/{namespace}/crontabs/{name}/status\n");
    const json::Value& item =
        at(paths, {"/apis/crview.example.com/v1/namespaces/{namespace}/crontabs/{name}"});
    const json::Value& patch = at(item, {"patch"});
    assert_string_equal(str(patch, {"operationId"}).c_str(),
                        "patchCrviewExampleComV1NamespacedCronTab");
    std::string types;
    for (const auto& m : at(patch, {"requestBody", "content"}).GetObject()) {
        types += std::string(json::view(m.name)) + " ";
    }
    assert_string_equal(
        types.c_str(),
        "application/apply-patch+yaml application/json-patch+json application/merge-patch+json ");
    bool fieldValidation = false;
    for (const auto& p : at(patch, {"parameters"}).GetArray()) {
        fieldValidation = fieldValidation || json::stringMember(p, "name") == "fieldValidation";
    }
    assert_true(fieldValidation);
    assertJson(at(patch, {"x-kubernetes-group-version-kind"}),
               R"({"group":"crview.example.com","kind":"CronTab","version":"v1"})");
    std::string produces;
    for (const auto& m : at(item, {"get", "responses", "200", "content"}).GetObject()) {
        produces += std::string(json::view(m.name)) + " ";
    }
    assert_string_equal(produces.c_str(), "application/json application/yaml ");
    // /scale answers with a Scale, and kube still names the custom kind.
    const json::Value& scale =
        at(paths, {"/apis/crview.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale"});
    assert_string_equal(str(scale, {"get", "x-kubernetes-group-version-kind", "kind"}).c_str(),
                        "CronTab");
    assert_string_equal(
        str(scale, {"get", "responses", "200", "content", "application/json", "schema", "$ref"})
            .c_str(),
        "#/components/schemas/io.k8s.api.autoscaling.v1.Scale");

    json::Document v2 = document(svc, "/openapi/v2");
    const json::Value& v2patch = at(
        v2,
        {"paths", "/apis/crview.example.com/v1/namespaces/{namespace}/crontabs/{name}", "patch"});
    assertJson(
        at(v2patch, {"consumes"}),
        R"(["application/json-patch+json","application/merge-patch+json","application/apply-patch+yaml"])");
    assertJson(at(v2patch, {"produces"}), R"(["application/json","application/yaml"])");
    assert_null(json::at(v2, {"paths", "/apis/crview.example.com/v1/"}));
    assert_null(json::at(v2, {"paths", "/apis/crview.example.com/"}));
    assert_null(json::at(v2, {"paths", "/apis/crview.example.com/v1/watch/crontabs"}));
    // Built-in kinds keep strategic merge patch.
    const json::Value& cm =
        at(v2, {"paths", "/api/v1/namespaces/{namespace}/configmaps/{name}", "patch", "consumes"});
    assert_int_equal(cm.Size(), 4);
}

// A CRD schema nested thousands of levels deep is walked on a stack sized
// for it, in both documents.
void deep_schemas_convert(void**) {
    auto crd = std::make_shared<json::Document>();
    std::string jsonSchema = R"({"type":"string"})";
    for (int i = 0; i < 5000; ++i) {
        jsonSchema = R"({"type":"array","items":)" + jsonSchema + "}";
    }
    jsonSchema = R"({"type":"object","properties":{"spec":)" + jsonSchema + "}}";
    std::string text = R"({"spec":{"group":"deep.example.com","scope":"Cluster",)"
                       R"("names":{"plural":"deeps","singular":"deep","kind":"Deep"},)"
                       R"("versions":[{"name":"v1","served":true,"storage":true,)"
                       R"("schema":{"openAPIV3Schema":)" +
                       jsonSchema + "}}]}}";
    assert_false(json::parse(text, *crd).has_value());
    Scheme scheme = schemeWith({crd});
    Service svc = serviceFor(scheme);
    json::Document v3 = document(svc, "/openapi/v3/apis/deep.example.com/v1");
    const json::Value* s =
        json::at(v3, {"components", "schemas", "com.example.deep.v1.Deep", "properties", "spec"});
    assert_non_null(s);
    int depth = 0;
    while (s && json::member(*s, "items")) {
        s = json::member(*s, "items");
        ++depth;
    }
    assert_int_equal(depth, 5000);
    assert_int_equal(svc.serve(Request{"/openapi/v2", "", "application/json", "", kNow}).status,
                     200);
    // The protobuf form too (client-go's), which nests a message per level.
    Response pb = svc.serve(Request{
        "/openapi/v2", "", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "", kNow});
    assert_int_equal(pb.status, 200);
}

// The CPU time of this thread, in ms: what the event loop would spend,
// whatever else the machine runs.
double cpuMillis() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// A CRD of about 1 MiB of schema (prometheus-operator's prometheuses is
// this size): the documents are rebuilt when kinds are added, on the event
// loop; this measures what one build costs with and without it.
void a_one_mib_crd_rebuilds_the_documents_quickly(void**) {
    std::string props;
    int n = 0;
    while (props.size() < 1024 * 1024) {
        props +=
            (n ? "," : "") + std::string(R"("field)") + std::to_string(n) +
            R"(":{"type":"object","description":"Field )" + std::to_string(n) +
            R"( of the spec: a description of a few words, as generated CRDs carry for every field they have.","properties":{"name":{"type":"string","description":"The name."},"count":{"type":"integer","format":"int32","minimum":0},"items":{"type":"array","items":{"type":"string"}}}})";
        ++n;
    }
    std::string text = R"({"spec":{"group":"monitoring.example.com","scope":"Namespaced",)"
                       R"("names":{"plural":"proms","singular":"prom","kind":"Prom"},)"
                       R"("versions":[{"name":"v1","served":true,"storage":true,)"
                       R"("schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":)"
                       R"({"type":"object","properties":{)" +
                       props + "}}}}}}]}}";
    auto crd = std::make_shared<json::Document>();
    assert_false(json::parse(text, *crd).has_value());
    auto time = [](const Scheme& scheme) {
        Service svc = serviceFor(scheme);
        double start = cpuMillis();
        svc.build();
        return cpuMillis() - start;
    };
    Scheme builtin = schemeWith({});
    Scheme with = schemeWith({crd});
    double base = time(builtin);
    double big = time(with);
    // The conversion of the schema alone, for both documents.
    const json::Value* schema = json::at(*crd, {"spec", "versions"});
    schema = json::at((*schema)[0], {"schema", "openAPIV3Schema"});
    double start = cpuMillis();
    for (auto flavor : {kube::openapi::Flavor::V2, kube::openapi::Flavor::V3}) {
        json::Document out;
        kube::openapi::CustomSchemaParts parts;
        parts.flavor = flavor;
        parts.objectMeta = parts.apiVersion = parts.kind = [] { return json::Value(); };
        json::Value s = kube::openapi::customResourceSchema(schema, parts, out.GetAllocator());
        assert_true(s.IsObject());
    }
    double convert = cpuMillis() - start;
    std::printf(
        "openapi build, CPU time: built-in kinds %.1f ms; with a %zu KiB CRD (%d fields) %.1f ms, "
        "of which converting its schema for v2 and v3 %.1f ms\n",
        base, text.size() / 1024, n, big, convert);
    Service svc = serviceFor(with);
    svc.build();
    // The v2 document's protobuf form is made on the first request for it.
    start = cpuMillis();
    Response pb = svc.serve(Request{
        "/openapi/v2", "", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "", kNow});
    std::printf("openapi v2 protobuf form, CPU time: %.1f ms (%zu KiB)\n", cpuMillis() - start,
                pb.body.size() / 1024);
    json::Document d = document(svc, "/openapi/v3/apis/monitoring.example.com/v1");
    assert_int_equal(at(d, {"components", "schemas", "com.example.monitoring.v1.Prom", "properties",
                            "spec", "properties"})
                         .MemberCount(),
                     n);
    // About 60 ms of CPU here (23 ms without the CRD); generous enough for
    // sanitizers, tight enough to catch work that grows with the square of
    // the schema.
    assert_true(big < 1000);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(definitions_are_named_as_kube_names_them),
        cmocka_unit_test(v3_keeps_the_crd_schema_and_adds_kube_metadata),
        cmocka_unit_test(v2_drops_what_kubectl_cannot_read),
        cmocka_unit_test(operations_are_those_of_kubes_crd_builder),
        cmocka_unit_test(deep_schemas_convert),
        cmocka_unit_test(a_one_mib_crd_rebuilds_the_documents_quickly),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
