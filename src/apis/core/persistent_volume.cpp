#include <chrono>
#include <string>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "apis/core/volume_claims.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"
#include "util/time.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;
using registry::TableContext;

// The volume sources a PersistentVolume may name (exactly one is required).
constexpr std::string_view volumeSources[] = {"hostPath",
                                              "gcePersistentDisk",
                                              "awsElasticBlockStore",
                                              "glusterfs",
                                              "nfs",
                                              "rbd",
                                              "quobyte",
                                              "cinder",
                                              "cephfs",
                                              "iscsi",
                                              "fc",
                                              "flocker",
                                              "flexVolume",
                                              "azureFile",
                                              "vsphereVolume",
                                              "azureDisk",
                                              "photonPersistentDisk",
                                              "portworxVolume",
                                              "scaleIO",
                                              "local",
                                              "storageos",
                                              "csi"};

// SetDefaults_PersistentVolume (and the hostPath type default).
void defaultVolume(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    defaulting::setString(spec, "persistentVolumeReclaimPolicy", "Retain", a);
    defaulting::setString(spec, "volumeMode", "Filesystem", a);
    if (json::Value* hp = json::member(spec, "hostPath"); hp && hp->IsObject()) {
        defaulting::setDefault(*hp, "type", json::stringValue("", a), a);
    }
    defaulting::setString(defaulting::ensureObject(obj, "status", a), "phase", "Pending", a);
}

// Mirrors persistentvolumeStrategy.PrepareForCreate: a new volume is Pending
// since now (lastPhaseTransitionTime, GA in 1.31).
void prepareVolume(json::Value& obj, json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    status.AddMember("phase", "Pending", a);
    status.AddMember(
        "lastPhaseTransitionTime",
        json::stringValue(util::time::formatRFC3339(std::chrono::system_clock::now()), a), a);
    json::setMember(obj, "status", std::move(status), a);
}

// Mirrors persistentvolumeStatusStrategy.PrepareForUpdate: a phase that
// stays keeps its transition time unless the request sets one; a phase
// that changes gets the time of the change unless the request sets a new one.
void prepareVolumeStatus(json::Value& obj, const json::Value& old,
                         const registry::StatusUpdateContext& ctx, json::Allocator& a) {
    json::Value* status = json::member(obj, "status");
    if (!status || !status->IsObject()) {
        json::setMember(obj, "status", json::Value(rapidjson::kObjectType), a);
        status = json::member(obj, "status");
    }
    const json::Value* oldTime = json::at(old, {"status", "lastPhaseTransitionTime"});
    const json::Value* newTime = json::member(*status, "lastPhaseTransitionTime");
    bool newUnset = !newTime || newTime->IsNull();
    if (cells::text(old, {"status", "phase"}) == cells::text(obj, {"status", "phase"})) {
        if (newUnset && oldTime) {
            json::setMember(*status, "lastPhaseTransitionTime", json::Value(*oldTime, a), a);
        }
        return;
    }
    if (newUnset || (oldTime && *newTime == *oldTime)) {
        json::setMember(*status, "lastPhaseTransitionTime",
                        json::stringValue(util::time::formatRFC3339(ctx.now), a), a);
    }
}

// The essentials of ValidatePersistentVolume.
field::Causes validateVolume(const json::Value& obj) {
    field::Causes out;
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* specp = json::member(obj, "spec");
    const json::Value& spec = specp && specp->IsObject() ? *specp : empty;
    const json::Value* modes = json::member(spec, "accessModes");
    if (cells::count(modes) == 0) {
        out.push_back(field::required("spec.accessModes"));
    }
    validateAccessModes(modes, "spec.accessModes", out);
    if (cells::count(json::member(spec, "capacity")) == 0) {
        out.push_back(field::required("spec.capacity"));
    }
    bool hasSource = false;
    for (std::string_view s : volumeSources) {
        const json::Value* v = json::member(spec, s);
        hasSource = hasSource || (v && !v->IsNull());
    }
    if (!hasSource) {
        out.push_back(field::required("spec", "must specify a volume type"));
    }
    field::validateEnum(json::member(spec, "persistentVolumeReclaimPolicy"),
                        "spec.persistentVolumeReclaimPolicy", {"Delete", "Recycle", "Retain"}, out);
    return out;
}

std::string volumePhase(const json::Value& obj) {
    if (!cells::text(obj, {"metadata", "deletionTimestamp"}).empty()) {
        return "Terminating";
    }
    return std::string(cells::text(obj, {"status", "phase"}));
}

std::string claimRef(const json::Value& obj) {
    const json::Value* ref = json::at(obj, {"spec", "claimRef"});
    if (!ref || !ref->IsObject()) {
        return "";
    }
    return std::string(json::stringMember(*ref, "namespace")) + "/" +
           std::string(json::stringMember(*ref, "name"));
}

cells::TextCell specText(std::string_view member) {
    return [member](const json::Value& obj, const TableContext&) {
        return std::string(cells::text(obj, {"spec", member}));
    };
}

}  // namespace

registry::KindInfo persistentVolumeKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "PersistentVolume";
    k.resource = "persistentvolumes";
    k.singular = "persistentvolume";
    k.namespaced = false;
    k.shortNames = {"pv"};
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn(
            "Capacity", "string", "The storage capacity of the volume.",
            [](const json::Value& obj, const TableContext&) {
                std::string_view q = cells::text(obj, {"spec", "capacity", "storage"});
                return q.empty() ? std::string("0") : std::string(q);
            }),
        cells::textColumn("Access Modes", "string", "The ways the volume can be mounted.",
                          [](const json::Value& obj, const TableContext&) {
                              return accessModes(json::at(obj, {"spec", "accessModes"}));
                          }),
        cells::textColumn("Reclaim Policy", "string", "What happens to the volume when released.",
                          specText("persistentVolumeReclaimPolicy")),
        cells::textColumn(
            "Status", "string", "The phase of the volume.",
            [](const json::Value& obj, const TableContext&) { return volumePhase(obj); }),
        cells::textColumn(
            "Claim", "string", "The claim bound to this volume.",
            [](const json::Value& obj, const TableContext&) { return claimRef(obj); }),
        cells::textColumn(
            "StorageClass", "string", "StorageClass of the pv",
            [](const json::Value& obj, const TableContext&) { return storageClass(obj); }),
        cells::textColumn("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv",
                          [](const json::Value& obj, const TableContext&) {
                              return textOrUnset(obj, {"spec", "volumeAttributesClassName"});
                          }),
        cells::textColumn("Reason", "string", "Why the volume is in its phase, if known.",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"status", "reason"}));
                          }),
        cells::ageColumn(),
        volumeModeColumn(),
    };
    k.defaults = defaultVolume;
    k.prepareForCreate = prepareVolume;
    k.prepareForStatusUpdate = prepareVolumeStatus;
    k.validate = validateVolume;
    return k;
}

}  // namespace kube::apis::core
