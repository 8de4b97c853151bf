#include <string>

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
using registry::TableContext;

// Mirrors SetDefaults_Deployment: one replica, rolling updates of 25%/25%,
// ten old ReplicaSets kept, ten minutes to make progress.
void defaultDeployment(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    defaulting::setInt(spec, "replicas", 1, a);
    json::Value& strategy = defaulting::ensureObject(spec, "strategy", a);
    defaulting::setString(strategy, "type", "RollingUpdate", a);
    if (json::stringMember(strategy, "type") == "RollingUpdate") {
        json::Value& rolling = defaulting::ensureObject(strategy, "rollingUpdate", a);
        defaulting::setString(rolling, "maxUnavailable", "25%", a);
        defaulting::setString(rolling, "maxSurge", "25%", a);
    }
    defaulting::setInt(spec, "revisionHistoryLimit", 10, a);
    defaulting::setInt(spec, "progressDeadlineSeconds", 600, a);
    core::defaultPodTemplate(spec, a);
}

// Mirrors deploymentStrategy.PrepareForCreate: no status yet.
void prepareDeployment(json::Value& obj, json::Allocator& a) {
    json::setMember(obj, "status", json::Value(rapidjson::kObjectType), a);
}

field::Causes validateDeployment(const json::Value& obj) {
    field::Causes out;
    validateWorkloadSpec(obj, {"deployment", "ReplicaSet", true, "invalid label selector"}, out);
    std::string_view type = cells::text(obj, {"spec", "strategy", "type"});
    const json::Value* rolling = json::at(obj, {"spec", "strategy", "rollingUpdate"});
    if (type == "Recreate") {
        if (rolling && !rolling->IsNull()) {
            out.push_back(
                field::forbidden("spec.strategy.rollingUpdate",
                                 "may not be specified when strategy `type` is 'Recreate'"));
        }
    } else if (type != "RollingUpdate") {
        out.push_back(field::notSupported("spec.strategy", type, {"Recreate", "RollingUpdate"}));
    }
    field::validateNonnegative(json::at(obj, {"spec", "revisionHistoryLimit"}),
                               "spec.revisionHistoryLimit", out);
    const json::Value* deadline = json::at(obj, {"spec", "progressDeadlineSeconds"});
    if (deadline && deadline->IsInt64()) {
        field::validateNonnegative(deadline, "spec.progressDeadlineSeconds", out);
        if (deadline->GetInt64() <= cells::integer(obj, {"spec", "minReadySeconds"})) {
            out.push_back(field::invalid("spec.progressDeadlineSeconds", deadline->GetInt64(),
                                         "must be greater than minReadySeconds"));
        }
    }
    return out;
}

// Mirrors deploymentStatusStrategy.PrepareForUpdate: a status update keeps
// the stored labels as well as the spec.
void prepareDeploymentStatus(json::Value& obj, const json::Value& old,
                             const registry::StatusUpdateContext&, json::Allocator& a) {
    json::Value& metadata = obj["metadata"];
    if (const json::Value* labels = json::at(old, {"metadata", "labels"})) {
        json::setMember(metadata, "labels", json::Value(*labels, a), a);
    } else {
        json::removeMember(metadata, "labels");
    }
}

// Mirrors ValidateDeploymentStatusUpdate (the metadata checks are the store's).
field::Causes validateDeploymentStatus(const json::Value& obj, const json::Value& old) {
    field::Causes out;
    validateReplicaCounts(obj,
                          {"observedGeneration", "replicas", "updatedReplicas", "readyReplicas",
                           "availableReplicas", "unavailableReplicas", "collisionCount"},
                          {"updatedReplicas", "readyReplicas", "availableReplicas"}, out);
    // IsDecremented: a collisionCount may grow or appear, never shrink or go.
    const json::Value* before = json::at(old, {"status", "collisionCount"});
    const json::Value* after = json::at(obj, {"status", "collisionCount"});
    if (before && before->IsInt64() &&
        (!after || !after->IsInt64() || after->GetInt64() < before->GetInt64())) {
        int64_t value = after && after->IsInt64() ? after->GetInt64() : 0;
        out.push_back(field::invalid("status.collisionCount", value, "cannot be decremented"));
    }
    return out;
}

// Mirrors deploymentStrategy.ValidateUpdate at apps/v1: the new object's
// validation, then the selector may not change.
field::Causes validateDeploymentUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out = validateDeployment(obj);
    if (!field::sameMember(obj["spec"], old["spec"], "selector")) {
        out.push_back(field::invalid("spec.selector",
                                     field::BadValue::raw(selectorGoString(json::at(obj, {"spec", "selector"}))),
                                     "field is immutable"));
    }
    return out;
}

}  // namespace

registry::KindInfo deploymentKind() {
    registry::KindInfo k;
    k.group = "apps";
    k.version = "v1";
    k.kind = "Deployment";
    k.resource = "deployments";
    k.singular = "deployment";
    k.shortNames = {"deploy"};
    k.categories = {"all"};
    k.tracksGeneration = true;
    k.subresources = {registry::scaleSubresource(), registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        readyReplicasColumn(),
        cells::countColumn("Up-to-date", "string",
                           "Total number of pods targeted by this deployment that have the desired "
                           "template spec.",
                           [](const json::Value& obj) {
                               return cells::integer(obj, {"status", "updatedReplicas"});
                           }),
        cells::countColumn("Available", "string",
                           "Total number of pods targeted by this deployment that have been ready "
                           "for at least minReadySeconds.",
                           [](const json::Value& obj) {
                               return cells::integer(obj, {"status", "availableReplicas"});
                           }),
        cells::ageColumn(),
        containersColumn(),
        imagesColumn(),
        selectorColumn(true),
    };
    k.defaults = defaultDeployment;
    k.prepareForCreate = prepareDeployment;
    k.validate = validateDeployment;
    k.validateUpdate = validateDeploymentUpdate;
    k.prepareForStatusUpdate = prepareDeploymentStatus;
    k.validateStatusUpdate = validateDeploymentStatus;
    return k;
}

}  // namespace kube::apis::apps
