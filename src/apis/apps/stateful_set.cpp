#include <string>

#include "apis/apps/kinds.hpp"
#include "apis/apps/workload.hpp"
#include "apis/core/defaulting.hpp"
#include "apis/core/pod_spec.hpp"
#include "apis/core/volume_claims.hpp"
#include "registry/scale.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::apps {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
using registry::TableContext;

// Mirrors SetDefaults_StatefulSet (StatefulSetAutoDeletePVC is GA), plus
// the claim defaults of each volumeClaimTemplate.
void defaultStatefulSet(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    defaulting::setString(spec, "podManagementPolicy", "OrderedReady", a);
    json::Value& strategy = defaulting::ensureObject(spec, "updateStrategy", a);
    if (strategy.IsObject() && json::stringMember(strategy, "type").empty()) {
        defaulting::setString(strategy, "type", "RollingUpdate", a);
        defaulting::ensureObject(strategy, "rollingUpdate", a);
    }
    json::Value* rolling = json::member(strategy, "rollingUpdate");
    if (json::stringMember(strategy, "type") == "RollingUpdate" && rolling && rolling->IsObject()) {
        defaulting::setInt(*rolling, "partition", 0, a);
    }
    json::Value& retention =
        defaulting::ensureObject(spec, "persistentVolumeClaimRetentionPolicy", a);
    defaulting::setString(retention, "whenDeleted", "Retain", a);
    defaulting::setString(retention, "whenScaled", "Retain", a);
    defaulting::setInt(spec, "replicas", 1, a);
    defaulting::setInt(spec, "revisionHistoryLimit", 10, a);
    core::defaultPodTemplate(spec, a);
    defaulting::forEachElement(spec, "volumeClaimTemplates", [&](json::Value& claim) {
        core::defaultClaimSpecAndStatus(claim, a);
    });
}

// Mirrors statefulSetStrategy.PrepareForCreate: status reset (replicas and
// availableReplicas are always serialized).
void prepareStatefulSet(json::Value& obj, json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    status.AddMember("replicas", 0, a);
    status.AddMember("availableReplicas", 0, a);
    json::setMember(obj, "status", std::move(status), a);
}

field::Causes validateStatefulSet(const json::Value& obj) {
    field::Causes out;
    std::string_view policy = cells::text(obj, {"spec", "podManagementPolicy"});
    if (policy.empty()) {
        out.push_back(field::required("spec.podManagementPolicy"));
    } else if (policy != "OrderedReady" && policy != "Parallel") {
        out.push_back(field::invalid("spec.podManagementPolicy", policy,
                                     "must be 'OrderedReady' or 'Parallel'"));
    }
    std::string_view type = cells::text(obj, {"spec", "updateStrategy", "type"});
    if (type.empty()) {
        out.push_back(field::required("spec.updateStrategy"));
    } else if (type != "RollingUpdate" && type != "OnDelete") {
        out.push_back(
            field::invalid("spec.updateStrategy", type, "must be 'RollingUpdate' or 'OnDelete'"));
    }
    validateWorkloadSpec(obj, {"statefulset", "StatefulSet", true, ""}, out);
    return out;
}

// Mirrors ValidateStatefulSetUpdate after ValidateStatefulSet: beyond the
// fields listed in the message, the spec may not change.
field::Causes validateStatefulSetUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out = validateStatefulSet(obj);
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* spec = json::member(obj, "spec");
    const json::Value* oldSpec = json::member(old, "spec");
    const json::Value& a = spec && spec->IsObject() ? *spec : empty;
    const json::Value& b = oldSpec && oldSpec->IsObject() ? *oldSpec : empty;
    auto mutableField = [](std::string_view k) {
        return k == "replicas" || k == "template" || k == "updateStrategy" ||
               k == "minReadySeconds" || k == "ordinals" ||
               k == "persistentVolumeClaimRetentionPolicy";
    };
    bool changed = false;
    for (const json::Value* side : {&a, &b}) {
        for (const auto& m : side->GetObject()) {
            std::string_view k = json::view(m.name);
            if (!mutableField(k) && !field::sameMember(a, b, k)) {
                changed = true;
            }
        }
    }
    if (changed) {
        out.push_back(field::forbidden(
            "spec",
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
            "'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
            "'minReadySeconds' are forbidden"));
    }
    return out;
}

}  // namespace

registry::KindInfo statefulSetKind() {
    registry::KindInfo k;
    k.group = "apps";
    k.version = "v1";
    k.kind = "StatefulSet";
    k.resource = "statefulsets";
    k.singular = "statefulset";
    k.shortNames = {"sts"};
    k.categories = {"all"};
    k.tracksGeneration = true;
    k.subresources = {registry::scaleSubresource(), registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        readyReplicasColumn(),
        cells::ageColumn(),
        containersColumn(),
        imagesColumn(),
    };
    k.defaults = defaultStatefulSet;
    k.prepareForCreate = prepareStatefulSet;
    k.validate = validateStatefulSet;
    k.validateUpdate = validateStatefulSetUpdate;
    return k;
}

}  // namespace kube::apis::apps
