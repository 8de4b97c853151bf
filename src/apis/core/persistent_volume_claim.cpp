#include <string>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "apis/core/volume_claims.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;
using registry::TableContext;

void defaultClaim(json::Value& obj, json::Allocator& a) {
    defaultClaimSpecAndStatus(obj, a);
}

// Mirrors persistentvolumeclaimStrategy.PrepareForCreate with the status
// default that kube applies when the object is read back: Pending.
void prepareClaim(json::Value& obj, json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    status.AddMember("phase", "Pending", a);
    json::setMember(obj, "status", std::move(status), a);
}

field::Causes validateClaim(const json::Value& obj) {
    field::Causes out;
    validateClaimSpec(json::member(obj, "spec"), "spec", out);
    return out;
}

std::string claimPhase(const json::Value& obj) {
    if (!cells::text(obj, {"metadata", "deletionTimestamp"}).empty()) {
        return "Terminating";
    }
    return std::string(cells::text(obj, {"status", "phase"}));
}

// Capacity and access modes show once the claim is bound to a volume.
std::string boundOnly(const json::Value& obj, std::string value) {
    return cells::text(obj, {"spec", "volumeName"}).empty() ? std::string() : value;
}

}  // namespace

registry::KindInfo persistentVolumeClaimKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "PersistentVolumeClaim";
    k.resource = "persistentvolumeclaims";
    k.singular = "persistentvolumeclaim";
    k.shortNames = {"pvc"};
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn(
            "Status", "string", "The phase of the claim (Pending, Bound, Lost).",
            [](const json::Value& obj, const TableContext&) { return claimPhase(obj); }),
        cells::textColumn("Volume", "string", "The volume bound to this claim.",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"spec", "volumeName"}));
                          }),
        cells::textColumn("Capacity", "string", "The storage capacity of the bound volume.",
                          [](const json::Value& obj, const TableContext&) {
                              return boundOnly(obj, std::string(cells::text(
                                                        obj, {"status", "capacity", "storage"})));
                          }),
        cells::textColumn(
            "Access Modes", "string", "The access modes of the bound volume.",
            [](const json::Value& obj, const TableContext&) {
                return boundOnly(obj, accessModes(json::at(obj, {"status", "accessModes"})));
            }),
        cells::textColumn(
            "StorageClass", "string", "StorageClass of the pvc",
            [](const json::Value& obj, const TableContext&) { return storageClass(obj); }),
        cells::textColumn("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc",
                          [](const json::Value& obj, const TableContext&) {
                              return textOrUnset(obj, {"spec", "volumeAttributesClassName"});
                          }),
        cells::ageColumn(),
        volumeModeColumn(),
    };
    k.defaults = defaultClaim;
    k.prepareForCreate = prepareClaim;
    k.validate = validateClaim;
    return k;
}

}  // namespace kube::apis::core
