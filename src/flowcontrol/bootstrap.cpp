#include "flowcontrol/bootstrap.hpp"

#include <stdexcept>

namespace kube::flowcontrol {

namespace json = util::json;

namespace {

constexpr const char* kGroupVersion = "flowcontrol.apiserver.k8s.io/v1";

// kube 1.29's bootstrap objects, their specs as the v1 defaulting leaves them.
// "m" marks the mandatory ones.
const char* const kConfiguration = R"([
["m", "prioritylevelconfigurations", "exempt",
 {"type": "Exempt", "exempt": {"nominalConcurrencyShares": 0, "lendablePercent": 0}}],
["m", "prioritylevelconfigurations", "catch-all",
 {"type": "Limited", "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Reject"},
  "lendablePercent": 0}}],
["s", "prioritylevelconfigurations", "system",
 {"type": "Limited", "limited": {"nominalConcurrencyShares": 30, "limitResponse": {"type": "Queue",
  "queuing": {"queues": 64, "handSize": 6, "queueLengthLimit": 50}}, "lendablePercent": 33}}],
["s", "prioritylevelconfigurations", "node-high",
 {"type": "Limited", "limited": {"nominalConcurrencyShares": 40, "limitResponse": {"type": "Queue",
  "queuing": {"queues": 64, "handSize": 6, "queueLengthLimit": 50}}, "lendablePercent": 25}}],
["s", "prioritylevelconfigurations", "leader-election",
 {"type": "Limited", "limited": {"nominalConcurrencyShares": 10, "limitResponse": {"type": "Queue",
  "queuing": {"queues": 16, "handSize": 4, "queueLengthLimit": 50}}, "lendablePercent": 0}}],
["s", "prioritylevelconfigurations", "workload-high",
 {"type": "Limited", "limited": {"nominalConcurrencyShares": 40, "limitResponse": {"type": "Queue",
  "queuing": {"queues": 128, "handSize": 6, "queueLengthLimit": 50}}, "lendablePercent": 50}}],
["s", "prioritylevelconfigurations", "workload-low",
 {"type": "Limited", "limited": {"nominalConcurrencyShares": 100, "limitResponse": {"type": "Queue",
  "queuing": {"queues": 128, "handSize": 6, "queueLengthLimit": 50}}, "lendablePercent": 90}}],
["s", "prioritylevelconfigurations", "global-default",
 {"type": "Limited", "limited": {"nominalConcurrencyShares": 20, "limitResponse": {"type": "Queue",
  "queuing": {"queues": 128, "handSize": 6, "queueLengthLimit": 50}}, "lendablePercent": 50}}],
["m", "flowschemas", "exempt",
 {"priorityLevelConfiguration": {"name": "exempt"}, "matchingPrecedence": 1,
  "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:masters"}}],
   "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": true,
    "namespaces": ["*"]}],
   "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}],
["m", "flowschemas", "catch-all",
 {"priorityLevelConfiguration": {"name": "catch-all"}, "matchingPrecedence": 10000,
  "distinguisherMethod": {"type": "ByUser"},
  "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:unauthenticated"}},
                          {"kind": "Group", "group": {"name": "system:authenticated"}}],
   "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": true,
    "namespaces": ["*"]}],
   "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}],
["s", "flowschemas", "probes",
 {"priorityLevelConfiguration": {"name": "exempt"}, "matchingPrecedence": 2,
  "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:unauthenticated"}},
                          {"kind": "Group", "group": {"name": "system:authenticated"}}],
   "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/readyz", "/livez"]}]}]}],
["s", "flowschemas", "system-leader-election",
 {"priorityLevelConfiguration": {"name": "leader-election"}, "matchingPrecedence": 100,
  "distinguisherMethod": {"type": "ByUser"},
  "rules": [{"subjects": [{"kind": "User", "user": {"name": "system:kube-controller-manager"}},
                          {"kind": "User", "user": {"name": "system:kube-scheduler"}},
                          {"kind": "ServiceAccount",
                           "serviceAccount": {"namespace": "kube-system", "name": "*"}}],
   "resourceRules": [{"verbs": ["get", "create", "update"], "apiGroups": ["coordination.k8s.io"],
    "resources": ["leases"], "namespaces": ["*"]}]}]}],
["s", "flowschemas", "endpoint-controller",
 {"priorityLevelConfiguration": {"name": "workload-high"}, "matchingPrecedence": 150,
  "distinguisherMethod": {"type": "ByUser"},
  "rules": [{"subjects": [{"kind": "User", "user": {"name": "system:kube-controller-manager"}},
                          {"kind": "ServiceAccount", "serviceAccount": {"namespace": "kube-system",
                           "name": "endpoint-controller"}},
                          {"kind": "ServiceAccount", "serviceAccount": {"namespace": "kube-system",
                           "name": "endpointslicemirroring-controller"}}],
   "resourceRules": [{"verbs": ["get", "create", "update"], "apiGroups": [""],
    "resources": ["endpoints"], "namespaces": ["*"]}]}]}],
["s", "flowschemas", "workload-leader-election",
 {"priorityLevelConfiguration": {"name": "leader-election"}, "matchingPrecedence": 200,
  "distinguisherMethod": {"type": "ByUser"},
  "rules": [{"subjects": [{"kind": "ServiceAccount",
                           "serviceAccount": {"namespace": "kube-system", "name": "*"}}],
   "resourceRules": [{"verbs": ["get", "create", "update"], "apiGroups": [""],
     "resources": ["endpoints", "configmaps"], "namespaces": ["*"]},
    {"verbs": ["get", "create", "update"], "apiGroups": ["coordination.k8s.io"],
     "resources": ["leases"], "namespaces": ["*"]}]}]}],
["s", "flowschemas", "system-node-high",
 {"priorityLevelConfiguration": {"name": "node-high"}, "matchingPrecedence": 400,
  "distinguisherMethod": {"type": "ByUser"},
  "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:nodes"}}],
   "resourceRules": [{"verbs": ["*"], "apiGroups": [""], "resources": ["nodes", "nodes/status"],
     "clusterScope": true, "namespaces": ["*"]},
    {"verbs": ["*"], "apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
     "namespaces": ["*"]}]}]}],
["s", "flowschemas", "system-nodes",
 {"priorityLevelConfiguration": {"name": "system"}, "matchingPrecedence": 500,
  "distinguisherMethod": {"type": "ByUser"},
  "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:nodes"}}],
   "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": true,
    "namespaces": ["*"]}],
   "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}],
["s", "flowschemas", "kube-controller-manager",
 {"priorityLevelConfiguration": {"name": "workload-high"}, "matchingPrecedence": 800,
  "distinguisherMethod": {"type": "ByNamespace"},
  "rules": [{"subjects": [{"kind": "User", "user": {"name": "system:kube-controller-manager"}}],
   "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": true,
    "namespaces": ["*"]}],
   "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}],
["s", "flowschemas", "kube-scheduler",
 {"priorityLevelConfiguration": {"name": "workload-high"}, "matchingPrecedence": 800,
  "distinguisherMethod": {"type": "ByNamespace"},
  "rules": [{"subjects": [{"kind": "User", "user": {"name": "system:kube-scheduler"}}],
   "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": true,
    "namespaces": ["*"]}],
   "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}],
["s", "flowschemas", "kube-system-service-accounts",
 {"priorityLevelConfiguration": {"name": "workload-high"}, "matchingPrecedence": 900,
  "distinguisherMethod": {"type": "ByNamespace"},
  "rules": [{"subjects": [{"kind": "ServiceAccount",
                           "serviceAccount": {"namespace": "kube-system", "name": "*"}}],
   "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": true,
    "namespaces": ["*"]}],
   "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}],
["s", "flowschemas", "service-accounts",
 {"priorityLevelConfiguration": {"name": "workload-low"}, "matchingPrecedence": 9000,
  "distinguisherMethod": {"type": "ByUser"},
  "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:serviceaccounts"}}],
   "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": true,
    "namespaces": ["*"]}],
   "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}],
["s", "flowschemas", "global-default",
 {"priorityLevelConfiguration": {"name": "global-default"}, "matchingPrecedence": 9900,
  "distinguisherMethod": {"type": "ByUser"},
  "rules": [{"subjects": [{"kind": "Group", "group": {"name": "system:unauthenticated"}},
                          {"kind": "Group", "group": {"name": "system:authenticated"}}],
   "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "clusterScope": true,
    "namespaces": ["*"]}],
   "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]}]}]
])";

struct Parsed {
    std::vector<BootstrapObject> objects;
    std::vector<bool> mandatory;
};

const Parsed& parsed() {
    static const Parsed p = [] {
        json::Document all;
        if (json::parse(kConfiguration, all) || !all.IsArray()) {
            throw std::logic_error("flowcontrol bootstrap data is not JSON");
        }
        Parsed out;
        for (const json::Value& entry : all.GetArray()) {
            BootstrapObject o;
            o.resource = json::view(entry[1]);
            o.name = json::view(entry[2]);
            auto doc = std::make_shared<json::Document>(rapidjson::kObjectType);
            auto& a = doc->GetAllocator();
            doc->AddMember("kind",
                           rapidjson::StringRef(o.resource == "flowschemas"
                                                    ? "FlowSchema"
                                                    : "PriorityLevelConfiguration"),
                           a);
            doc->AddMember("apiVersion", rapidjson::StringRef(kGroupVersion), a);
            json::Value meta(rapidjson::kObjectType);
            meta.AddMember("name", json::stringValue(o.name, a), a);
            json::Value annotations(rapidjson::kObjectType);
            annotations.AddMember(rapidjson::StringRef(kAutoUpdateSpecAnnotation), "true", a);
            meta.AddMember("annotations", annotations, a);
            doc->AddMember("metadata", meta, a);
            doc->AddMember("spec", json::Value(entry[3], a), a);
            o.object = doc;
            out.mandatory.push_back(json::view(entry[0]) == "m");
            out.objects.push_back(std::move(o));
        }
        return out;
    }();
    return p;
}

bool isMandatory(const BootstrapObject& o) {
    const Parsed& p = parsed();
    return p.mandatory[static_cast<size_t>(&o - p.objects.data())];
}

// Mirrors shouldUpdateSpec: the annotation's boolean, or without a valid
// one, whether the object is still at generation 1.
bool shouldUpdateSpec(const json::Value& existing) {
    const json::Value* v =
        json::at(existing, {"metadata", "annotations", kAutoUpdateSpecAnnotation});
    std::string_view s = v && v->IsString() ? json::view(*v) : "";
    if (s == "true" || s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "True") {
        return true;
    }
    if (s == "false" || s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "False") {
        return false;
    }
    const json::Value* g = json::at(existing, {"metadata", "generation"});
    return g && g->IsInt64() && g->GetInt64() == 1;
}

// Mirrors specEqualish: the exempt level's spec.exempt is the operator's.
bool specEqualish(const BootstrapObject& o, const json::Value& existing) {
    const json::Value* have = json::member(existing, "spec");
    const json::Value& want = (*o.object)["spec"];
    if (!have) {
        return false;
    }
    if (o.resource == "prioritylevelconfigurations" && o.name == "exempt") {
        return json::stringMember(*have, "type") == json::stringMember(want, "type") &&
               json::member(*have, "limited") == nullptr;
    }
    return *have == want;
}

}  // namespace

const std::vector<BootstrapObject>& bootstrapConfiguration() {
    return parsed().objects;
}

const BootstrapObject* mandatoryObject(std::string_view resource, std::string_view name) {
    for (const BootstrapObject& o : bootstrapConfiguration()) {
        if (o.resource == resource && o.name == name && isMandatory(o)) {
            return &o;
        }
    }
    return nullptr;
}

authz::Reconciled reconcileObject(const BootstrapObject& o, const json::Value* existing) {
    authz::Reconciled r;
    if (existing == nullptr) {
        r.operation = authz::ReconcileOperation::Create;
        r.object = std::make_shared<json::Document>();
        r.object->CopyFrom(*o.object, r.object->GetAllocator());
        return r;
    }
    if (json::at(*existing, {"metadata", "deletionTimestamp"})) {
        return r;
    }
    bool autoUpdate = isMandatory(o) || shouldUpdateSpec(*existing);
    const json::Value* annotation =
        json::at(*existing, {"metadata", "annotations", kAutoUpdateSpecAnnotation});
    std::string_view want = autoUpdate ? "true" : "false";
    bool updateAnnotation = !annotation || !annotation->IsString() ||
                            json::view(*annotation) != want;
    bool specChanged = autoUpdate && !specEqualish(o, *existing);
    if (!updateAnnotation && !specChanged) {
        r.isProtected = !autoUpdate;
        return r;
    }
    auto doc = std::make_shared<json::Document>();
    auto& a = doc->GetAllocator();
    doc->CopyFrom(*existing, a);
    if (specChanged) {
        json::Value spec((*o.object)["spec"], a);
        if (o.name == "exempt" && o.resource == "prioritylevelconfigurations") {
            // The operator's shares stay.
            if (const json::Value* mine = json::at(*existing, {"spec", "exempt"})) {
                json::setMember(spec, "exempt", json::Value(*mine, a), a);
            }
        }
        json::setMember(*doc, "spec", std::move(spec), a);
    }
    if (updateAnnotation) {
        json::Value& meta = (*doc)["metadata"];
        json::Value* annotations = json::member(meta, "annotations");
        if (!annotations || !annotations->IsObject()) {
            json::setMember(meta, "annotations", json::Value(rapidjson::kObjectType), a);
            annotations = json::member(meta, "annotations");
        }
        json::setMember(*annotations, kAutoUpdateSpecAnnotation, json::stringValue(want, a), a);
    }
    r.operation = authz::ReconcileOperation::Update;
    r.object = doc;
    return r;
}

void ensureBootstrapConfiguration(authz::RbacStores stores,
                                  std::function<void(authz::BootstrapSummary)> done) {
    authz::reconcileObjects(std::move(stores), bootstrapConfiguration(), reconcileObject,
                            std::move(done));
}

}  // namespace kube::flowcontrol
