#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "endpoints/request_info.hpp"
#include "fake_loop.hpp"
#include "registry/kind.hpp"
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

#include "json_reading.hpp"
#include "served_server.hpp"

// One generic suite run against every built-in kind, like apiserver's
// rest/resttest: each kind's minimal object goes through the REST verbs over
// Server::serve, and each must behave the same way.

namespace json = kube::util::json;
using kube::endpoints::HttpRequest;
using kube::endpoints::HttpResponse;
using kube::registry::KindInfo;
using kube::testing::FakeLoop;

namespace {

const char* kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";
const char* kNamespace = "conf";
const char* kName = "conf-obj";
// A CustomResourceDefinition's name is <spec.names.plural>.<spec.group>.
const char* kCrdName = "confobjs.conf.example.com";
// An APIService's is <spec.version>.<spec.group>.
const char* kApiServiceName = "v1.conf.example.com";
// An IPAddress's is the address.
const char* kIpAddressName = "192.0.2.10";

#define POD_TEMPLATE(restart)                                              \
    R"("template":{"metadata":{"labels":{"app":"conf"}},"spec":{)" restart \
    R"("containers":[{"name":"c","image":"nginx:1.25"}]}})"

// clang-format off
// The smallest valid body of each built-in kind, besides metadata.name.
const std::map<std::string, std::string> kMinimalBodies = {
    {"/configmaps", "{}"},
    {"/endpoints", "{}"},
    {"/events", R"({"involvedObject":{"kind":"Pod","name":"p","namespace":"conf"}})"},
    {"/limitranges", R"({"spec":{"limits":[{"type":"Container","max":{"cpu":"1"}}]}})"},
    {"/namespaces", "{}"},
    {"/nodes", "{}"},
    {"/persistentvolumeclaims",
     R"({"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})"},
    {"/persistentvolumes",
     R"({"spec":{"accessModes":["ReadWriteOnce"],"capacity":{"storage":"1Gi"},)"
     R"("hostPath":{"path":"/srv/pv"}}})"},
    {"/pods", R"({"spec":{"containers":[{"name":"c","image":"nginx:1.25"}]}})"},
    {"/podtemplates", R"({)" POD_TEMPLATE("") "}"},
    {"/replicationcontrollers", R"({"spec":{"selector":{"app":"conf"},)" POD_TEMPLATE("") "}}"},
    {"/resourcequotas", R"({"spec":{"hard":{"pods":"2"}}})"},
    {"/secrets", "{}"},
    {"/serviceaccounts", "{}"},
    {"/services", R"({"spec":{"ports":[{"port":80}]}})"},
    {"apps/controllerrevisions", R"({"data":{"a":1},"revision":1})"},
    {"apps/daemonsets",
     R"({"spec":{"selector":{"matchLabels":{"app":"conf"}},)" POD_TEMPLATE("") "}}"},
    {"apps/deployments",
     R"({"spec":{"selector":{"matchLabels":{"app":"conf"}},)" POD_TEMPLATE("") "}}"},
    {"apps/replicasets",
     R"({"spec":{"selector":{"matchLabels":{"app":"conf"}},)" POD_TEMPLATE("") "}}"},
    {"apps/statefulsets",
     R"({"spec":{"selector":{"matchLabels":{"app":"conf"}},)" POD_TEMPLATE("") "}}"},
    {"autoscaling/horizontalpodautoscalers",
     R"({"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":3}})"},
    {"batch/cronjobs",
     R"({"spec":{"schedule":"*/5 * * * *","jobTemplate":{"spec":{)"
     POD_TEMPLATE(R"("restartPolicy":"OnFailure",)") "}}}}"},
    {"batch/jobs", R"({"spec":{)" POD_TEMPLATE(R"("restartPolicy":"Never",)") "}}"},
    {"certificates.k8s.io/certificatesigningrequests",
     R"({"spec":{"signerName":"example.com/conf","usages":["client auth"],"request":")"
     "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIV01IOENBUUF3SFRFTU1Bb0dBMVVFQXd3RFltOWlNUTB3Q3dZRFZRUUtEQVJrWlhaek1Ga3dFd1lIS29aSQp6ajBDQVFZSUtvWkl6ajBEQVFjRFFnQUVYOVdwTzhGLzByMUxIREt6UFpoTUNxa3ZrQUdmQ0RsczV2M0Q5aXd5CmNsaFpaeTRaYUdCU1RaVzJwaFdPZExPR3BSaTdsNjF1am9HbGVTZ054eXFLQUtBQU1Bb0dDQ3FHU000OUJBTUMKQTBjQU1FUUNJQzV1TzhGQlpPZ2hEc2lEWGYybnRHQk4xYitKYTRYb2JZOWc3Q3MxTnFwckFpQnNlUFJmd0tPNAoxU2k3d25OUlZTcGFxWWdZWkh1NDJVZUNnTFpPQnhCMmFBPT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg=="
     R"("}})"},
    {"events.k8s.io/events",
     R"({"eventTime":"2024-01-01T00:00:00.000000Z","reportingController":"conf","reportingInstance":"c-1",)"
     R"("action":"Conform","reason":"Conformance","type":"Normal","regarding":{"namespace":"conf"}})"},
    {"networking.k8s.io/ingressclasses", R"({"spec":{"controller":"example.com/ingress"}})"},
    {"networking.k8s.io/servicecidrs", R"({"spec":{"cidrs":["10.96.0.0/16"]}})"},
    {"networking.k8s.io/ipaddresses",
     R"({"spec":{"parentRef":{"resource":"services","namespace":"conf","name":"web"}}})"},
    {"networking.k8s.io/ingresses",
     R"({"spec":{"defaultBackend":{"service":{"name":"web","port":{"number":80}}}}})"},
    {"networking.k8s.io/networkpolicies", R"({"spec":{"podSelector":{}}})"},
    {"node.k8s.io/runtimeclasses", R"({"handler":"runc"})"},
    {"policy/poddisruptionbudgets", R"({"spec":{"minAvailable":1}})"},
    {"rbac.authorization.k8s.io/clusterrolebindings",
     R"({"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"}})"},
    {"rbac.authorization.k8s.io/clusterroles", "{}"},
    {"rbac.authorization.k8s.io/rolebindings",
     R"({"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}})"},
    {"rbac.authorization.k8s.io/roles", "{}"},
    {"scheduling.k8s.io/priorityclasses", R"({"value":1000})"},
    {"storage.k8s.io/csidrivers", "{}"},
    {"storage.k8s.io/csinodes", R"({"spec":{"drivers":[{"name":"csi.example.com","nodeID":"n1"}]}})"},
    {"storage.k8s.io/csistoragecapacities", R"({"storageClassName":"fast"})"},
    {"storage.k8s.io/storageclasses", R"({"provisioner":"csi.example.com"})"},
    {"storage.k8s.io/volumeattachments",
     R"({"spec":{"attacher":"csi.example.com","nodeName":"n1",)"
     R"("source":{"persistentVolumeName":"pv1"}}})"},
    {"admissionregistration.k8s.io/mutatingwebhookconfigurations", "{}"},
    {"admissionregistration.k8s.io/validatingwebhookconfigurations", "{}"},
    {"admissionregistration.k8s.io/validatingadmissionpolicies",
     R"({"spec":{"matchConstraints":{"resourceRules":[{"operations":["CREATE"],)"
     R"("apiGroups":["apps"],"apiVersions":["v1"],"resources":["deployments"]}]},)"
     R"("validations":[{"expression":"true"}]}})"},
    {"admissionregistration.k8s.io/validatingadmissionpolicybindings",
     R"({"spec":{"policyName":"p","validationActions":["Deny"]}})"},
    {"apiregistration.k8s.io/apiservices",
     R"({"spec":{"group":"conf.example.com","version":"v1","groupPriorityMinimum":100,)"
     R"("versionPriority":10,"service":{"namespace":"conf","name":"svc"}}})"},
    {"apiextensions.k8s.io/customresourcedefinitions",
     R"({"spec":{"group":"conf.example.com","names":{"plural":"confobjs","kind":"ConfObj"},)"
     R"("scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,)"
     R"("schema":{"openAPIV3Schema":{"type":"object"}}}]}})"},
    {"coordination.k8s.io/leases", "{}"},
    {"discovery.k8s.io/endpointslices", R"({"addressType":"IPv4","endpoints":[]})"},
    {"flowcontrol.apiserver.k8s.io/flowschemas",
     R"({"spec":{"priorityLevelConfiguration":{"name":"x"},"rules":[]}})"},
    {"flowcontrol.apiserver.k8s.io/prioritylevelconfigurations",
     R"({"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Reject"}}}})"},
};
// clang-format on

// The JSON readers every unit test shares.
auto& parse = kube::testing::parseJson;
auto& at = kube::testing::valueAt;

struct Fixture : kube::testing::ServedServer {
    Fixture() {
        userAgent = "conformance/1.0";
        HttpResponse r = send("POST", "/api/v1/namespaces",
                              std::string(R"({"metadata":{"name":")") + kNamespace + "\"}}");
        assert_int_equal(r.status, 201);
    }

    HttpResponse send(const std::string& method, const std::string& url,
                      const std::string& body = "",
                      const std::string& accept = "application/json") {
        return ServedServer::send(method, url, body, body.empty() ? "" : "application/json",
                                  accept);
    }
};

std::string collectionUrl(const KindInfo& k) {
    std::string url = k.group.empty() ? "/api/" + k.version : "/apis/" + k.group + "/" + k.version;
    if (k.namespaced) {
        url += std::string("/namespaces/") + kNamespace;
    }
    return url + "/" + k.resource;
}

// Reviews (KindInfo::review: create-only, answered and never stored) and
// read-only kinds (componentstatuses: computed, never stored) are not in
// this suite.
bool inSuite(const KindInfo& k) {
    return k.stored() && std::find(k.verbs.begin(), k.verbs.end(), "create") != k.verbs.end();
}

// The minimal body of `k` named `name`.
std::string bodyFor(const KindInfo& k, std::string_view name) {
    auto it = kMinimalBodies.find(k.group + "/" + k.resource);
    if (it == kMinimalBodies.end()) {
        fail_msg("no minimal body for %s/%s: add one to kMinimalBodies", k.group.c_str(),
                 k.resource.c_str());
    }
    json::Document d = parse(it->second);
    auto& a = d.GetAllocator();
    json::Value meta(rapidjson::kObjectType);
    meta.AddMember("name", json::stringValue(name, a), a);
    d.AddMember("metadata", meta, a);
    return json::serialize(d);
}

// "configmaps" or "deployments.apps", as kube's messages name a resource.
std::string qualified(const KindInfo& k) {
    return k.group.empty() ? k.resource : k.resource + "." + k.group;
}

void expectCode(const KindInfo& k, const char* step, const HttpResponse& r, int code) {
    if (r.status != code) {
        fail_msg("%s %s: want %d, got %d: %s", k.kind.c_str(), step, code, r.status,
                 r.body.c_str());
    }
}

void expectEqual(const KindInfo& k, const char* what, const std::string& got,
                 const std::string& want) {
    if (got != want) {
        fail_msg("%s: %s: want %s, got %s", k.kind.c_str(), what, want.c_str(), got.c_str());
    }
}

// Checks a Table against the kind's columns; returns the row of `name`.
const json::Value* checkTable(const KindInfo& k, const json::Value& table, std::string_view name) {
    expectEqual(k, "table kind", at(table, {"kind"}), "Table");
    const json::Value& cols = table["columnDefinitions"];
    expectEqual(k, "column count", std::to_string(cols.Size()), std::to_string(k.columns.size()));
    size_t nameColumn = cols.Size();
    for (size_t i = 0; i < cols.Size(); i++) {
        // The first: kube's VolumeAttachment printer marks its Attacher a name too.
        if (json::stringMember(cols[i], "format") == "name" && nameColumn == cols.Size()) {
            nameColumn = i;
        }
    }
    if (nameColumn == cols.Size()) {
        fail_msg("%s: no Name column", k.kind.c_str());
    }
    const json::Value* found = nullptr;
    for (const auto& row : table["rows"].GetArray()) {
        const json::Value& cells = row["cells"];
        expectEqual(k, "cells per row", std::to_string(cells.Size()), std::to_string(cols.Size()));
        if (cells[nameColumn].IsNull()) {
            fail_msg("%s: null Name cell", k.kind.c_str());
        }
        if (json::view(cells[nameColumn]) == name) {
            found = &row;
        }
    }
    return found;
}

void runConformance(Fixture& f, const KindInfo& k) {
    const std::string collection = collectionUrl(k);
    const std::string name = k.kind == "CustomResourceDefinition" ? kCrdName
                             : k.kind == "APIService"             ? kApiServiceName
                             : k.kind == "IPAddress"              ? kIpAddressName
                                                                  : kName;
    const std::string item = collection + "/" + name;

    // create: 201 with the server's fields, the namespace from the path.
    HttpResponse created = f.send("POST", collection, bodyFor(k, name));
    expectCode(k, "create", created, 201);
    json::Document obj = parse(created.body);
    expectEqual(k, "kind", at(obj, {"kind"}), k.kind);
    expectEqual(k, "apiVersion", at(obj, {"apiVersion"}), k.apiVersion());
    expectEqual(k, "name", at(obj, {"metadata", "name"}), name);
    expectEqual(k, "namespace", at(obj, {"metadata", "namespace"}),
                k.namespaced ? kNamespace : "<absent>");
    expectEqual(k, "uid length", std::to_string(at(obj, {"metadata", "uid"}).size()), "36");
    expectEqual(k, "creationTimestamp", at(obj, {"metadata", "creationTimestamp"}),
                "2026-09-21T14:13:20Z");
    std::string rv = at(obj, {"metadata", "resourceVersion"});
    expectEqual(k, "resourceVersion", rv, std::to_string(f.memory.currentRevision()));
    expectEqual(k, "generation", at(obj, {"metadata", "generation"}),
                k.tracksGeneration ? "1" : "<absent>");
    assert_true(created.body.starts_with("{\"kind\":\"" + k.kind + "\",\"apiVersion\":\"" +
                                         k.apiVersion() + "\",\"metadata\":{\"name\":"));
    expectCode(k, "create again", f.send("POST", collection, bodyFor(k, name)), 409);

    // get: the same bytes.
    HttpResponse got = f.send("GET", item);
    expectCode(k, "get", got, 200);
    expectEqual(k, "get body", got.body, created.body);

    // list: contains it, items without kind/apiVersion.
    HttpResponse list = f.send("GET", collection + "?limit=500");
    expectCode(k, "list", list, 200);
    json::Document l = parse(list.body);
    expectEqual(k, "list kind", at(l, {"kind"}), k.kind + "List");
    expectEqual(k, "list apiVersion", at(l, {"apiVersion"}), k.apiVersion());
    bool listed = false;
    for (const auto& it : l["items"].GetArray()) {
        if (json::member(it, "kind") || json::member(it, "apiVersion")) {
            fail_msg("%s: list item carries kind/apiVersion", k.kind.c_str());
        }
        if (at(it, {"metadata", "uid"}) == at(obj, {"metadata", "uid"})) {
            listed = true;
            std::string back = "{\"kind\":\"" + k.kind + "\",\"apiVersion\":\"" + k.apiVersion() +
                               "\"," + json::serialize(it).substr(1);
            expectEqual(k, "list item", back, created.body);
        }
    }
    if (!listed) {
        fail_msg("%s: the list lacks the object", k.kind.c_str());
    }

    // update: a label change bumps the resourceVersion, not the generation.
    json::Document next = parse(created.body);
    auto& a = next.GetAllocator();
    json::Value& meta = next["metadata"];
    if (!json::member(meta, "labels")) {
        meta.AddMember("labels", json::Value(rapidjson::kObjectType), a);
    }
    meta["labels"].AddMember("conformance", "yes", a);
    HttpResponse updated = f.send("PUT", item, json::serialize(next));
    expectCode(k, "update", updated, 200);
    json::Document u = parse(updated.body);
    if (std::stoull(at(u, {"metadata", "resourceVersion"})) <= std::stoull(rv)) {
        fail_msg("%s: update did not bump the resourceVersion", k.kind.c_str());
    }
    expectEqual(k, "updated label", at(u, {"metadata", "labels", "conformance"}), "yes");
    expectEqual(k, "updated uid", at(u, {"metadata", "uid"}), at(obj, {"metadata", "uid"}));
    expectEqual(k, "updated generation", at(u, {"metadata", "generation"}),
                at(obj, {"metadata", "generation"}));
    // The old resourceVersion is now stale.
    expectCode(k, "stale update", f.send("PUT", item, json::serialize(next)), 409);

    // Table: one cell per column and a Name, for the list and the object.
    HttpResponse table = f.send("GET", collection, "", kTableAccept);
    expectCode(k, "table list", table, 200);
    json::Document t = parse(table.body);
    const json::Value* row = checkTable(k, t, name);
    if (!row) {
        fail_msg("%s: the table lacks the object's row", k.kind.c_str());
    }
    expectEqual(k, "row object kind", at(*row, {"object", "kind"}), "PartialObjectMetadata");
    HttpResponse one = f.send("GET", item, "", kTableAccept);
    expectCode(k, "table get", one, 200);
    json::Document t1 = parse(one.body);
    expectEqual(k, "one row", std::to_string(t1["rows"].Size()), "1");
    assert_non_null(checkTable(k, t1, name));

    // delete: gone afterwards.
    HttpResponse deleted = f.send("DELETE", item);
    expectCode(k, "delete", deleted, 200);
    json::Document d = parse(deleted.body);
    if (k.kind == "Namespace") {
        expectEqual(k, "deleted namespace phase", at(d, {"status", "phase"}), "Terminating");
    } else if (k.beginTerminating) {
        // A definition answers marked, with its cleanup finalizer; its
        // controller deletes it once its custom resources are gone (t/049).
        expectEqual(k, "deleted object kind", at(d, {"kind"}), k.kind);
        expectEqual(k, "deleted object finalizers", at(d, {"metadata", "finalizers"}),
                    R"(["customresourcecleanup.apiextensions.k8s.io"])");
        return;
    } else if (k.returnDeletedObject) {
        // kube answers a pod's deletion with the pod (deleted at once when unscheduled)
        expectEqual(k, "deleted object kind", at(d, {"kind"}), k.kind);
        expectEqual(k, "deleted object uid", at(d, {"metadata", "uid"}),
                    at(obj, {"metadata", "uid"}));
    } else {
        expectEqual(k, "delete status", at(d, {"status"}), "Success");
        expectEqual(k, "delete details", at(d, {"details"}),
                    json::serialize(parse(
                        "{\"name\":\"" + name + "\"" +
                        (k.group.empty() ? "" : ",\"group\":\"" + k.group + "\"") + ",\"kind\":\"" +
                        k.resource + "\",\"uid\":\"" + at(obj, {"metadata", "uid"}) + "\"}")));
    }
    HttpResponse gone = f.send("GET", item);
    expectCode(k, "get after delete", gone, 404);
    expectEqual(k, "not found message", at(parse(gone.body), {"message"}),
                qualified(k) + " \"" + name + "\" not found");
    expectCode(k, "delete again", f.send("DELETE", item), 404);
}

void every_kind_passes_the_rest_conformance_suite(void**) {
    Fixture f;
    // Every version of a kind runs the suite; the bodies are per resource.
    std::set<std::string> resources;
    for (const auto& k : f.server.scheme().all()) {
        if (!inSuite(*k)) {
            continue;
        }
        runConformance(f, *k);
        resources.insert(k->group + "/" + k->resource);
    }
    assert_int_equal(resources.size(), kMinimalBodies.size());
}

void an_invalid_name_is_422_for_every_kind(void**) {
    Fixture f;
    for (const auto& kp : f.server.scheme().all()) {
        const KindInfo& k = *kp;
        if (!inSuite(k)) {
            continue;
        }
        // Invalid under every name rule, path segments included.
        HttpResponse r = f.send("POST", collectionUrl(k), bodyFor(k, "bad/name"));
        expectCode(k, "invalid name", r, 422);
        json::Document s = parse(r.body);
        expectEqual(k, "reason", at(s, {"reason"}), "Invalid");
        expectEqual(k, "details kind", at(s, {"details", "kind"}), k.kind);
        // A kind stored as another's is named as that one (events.k8s.io's
        // Events as core's), as kube validates the stored kind.
        bool coreGroup = k.group.empty() || (k.storedAs && k.storedAs->apiVersion == "v1");
        expectEqual(k, "details group", at(s, {"details", "group"}),
                    coreGroup ? "<absent>" : k.group);
        const json::Value* causes = json::at(s, {"details", "causes"});
        if (!causes || !causes->IsArray() || causes->Empty()) {
            fail_msg("%s: no causes: %s", k.kind.c_str(), r.body.c_str());
        }
        expectEqual(k, "cause field", at((*causes)[0], {"field"}), "metadata.name");
        // Namespaces also fail their name label (SetDefaults_Namespace copies the name).
        std::string message = at(s, {"message"});
        std::string prefix =
            (coreGroup ? k.kind : k.kind + "." + k.group) + " \"bad/name\" is invalid: ";
        if (!message.starts_with(prefix) ||
            message.find("metadata.name: Invalid value: \"bad/name\": ") == std::string::npos) {
            fail_msg("%s: message %s", k.kind.c_str(), at(s, {"message"}).c_str());
        }
        expectEqual(k, "nothing listed",
                    std::to_string(parse(f.send("GET", collectionUrl(k)).body)["items"].Size()),
                    // the namespaces kube makes; the namespace's default
                    // ServiceAccount (the serviceaccounts controller's)
                    k.resource == "namespaces"        ? "5"
                    : k.resource == "serviceaccounts" ? "1"
                                                      : "0");
    }
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind_passes_the_rest_conformance_suite),
        cmocka_unit_test(an_invalid_name_is_422_for_every_kind),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
