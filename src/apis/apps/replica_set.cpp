#include "apis/apps/kinds.hpp"
#include "apis/apps/workload.hpp"
#include "apis/core/defaulting.hpp"
#include "apis/core/pod_spec.hpp"
#include "registry/scale.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::apps {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;

// Mirrors SetDefaults_ReplicaSet: one replica.
void defaultReplicaSet(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    defaulting::setInt(spec, "replicas", 1, a);
    core::defaultPodTemplate(spec, a);
}

// Mirrors rsStrategy.PrepareForCreate: status reset (replicas is always
// serialized, the rest only when set).
void prepareReplicaSet(json::Value& obj, json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    status.AddMember("replicas", 0, a);
    json::setMember(obj, "status", std::move(status), a);
}

field::Causes validateReplicaSet(const json::Value& obj) {
    field::Causes out;
    // kube's ReplicaSet validation says "deployment" here too.
    validateWorkloadSpec(obj, {"deployment", "ReplicaSet", true, "invalid label selector"}, out);
    return out;
}

cells::CountCell statusCount(std::string_view member) {
    return [member](const json::Value& obj) { return cells::integer(obj, {"status", member}); };
}

// Mirrors ValidateReplicaSetStatusUpdate (the metadata checks are the store's).
field::Causes validateReplicaSetStatus(const json::Value& obj, const json::Value&) {
    field::Causes out;
    validateReplicaCounts(obj,
                          {"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas",
                           "observedGeneration"},
                          {"fullyLabeledReplicas", "readyReplicas", "availableReplicas"}, out);
    return out;
}

}  // namespace

registry::KindInfo replicaSetKind() {
    registry::KindInfo k;
    k.group = "apps";
    k.version = "v1";
    k.kind = "ReplicaSet";
    k.resource = "replicasets";
    k.singular = "replicaset";
    k.shortNames = {"rs"};
    k.categories = {"all"};
    k.tracksGeneration = true;
    k.subresources = {registry::scaleSubresource(), registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::countColumn("Desired", "integer", "The number of pods the ReplicaSet wants.",
                           [](const json::Value& obj) {
                               return cells::integer(obj, {"spec", "replicas"}, 1);
                           }),
        cells::countColumn("Current", "integer", "The number of pods the ReplicaSet has.",
                           statusCount("replicas")),
        cells::countColumn("Ready", "integer", "The number of its pods that are ready.",
                           statusCount("readyReplicas")),
        cells::ageColumn(),
        containersColumn(),
        imagesColumn(),
        selectorColumn(),
    };
    k.defaults = defaultReplicaSet;
    k.prepareForCreate = prepareReplicaSet;
    k.validate = validateReplicaSet;
    k.validateStatusUpdate = validateReplicaSetStatus;
    k.selectableFields = {{"metadata.name"}, {"metadata.namespace"}, {"status.replicas", "", "0"}};
    return k;
}

}  // namespace kube::apis::apps
