#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "apis/core/volume_claims.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"
#include "util/quantity.hpp"

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

// The storage request of a claim's spec, if it parses.
std::optional<util::Quantity> requestedStorage(const json::Value& obj) {
    std::string_view text = cells::text(obj, {"spec", "resources", "requests", "storage"});
    return text.empty() ? std::nullopt : util::Quantity::parse(text);
}

// Mirrors ValidatePersistentVolumeClaimUpdate after the claim's own
// validation: the spec is fixed, save volumeName once and, for a bound
// claim, a storage request that grows.
field::Causes validateClaimUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out = validateClaim(obj);
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* specp = json::member(obj, "spec");
    const json::Value* oldp = json::member(old, "spec");
    const json::Value& spec = specp && specp->IsObject() ? *specp : empty;
    const json::Value& oldSpec = oldp && oldp->IsObject() ? *oldp : empty;
    bool bound = cells::text(obj, {"status", "phase"}) == "Bound";
    std::optional<util::Quantity> size = requestedStorage(obj);
    std::optional<util::Quantity> oldSize = requestedStorage(old);
    std::vector<std::string> changed;
    for (const json::Value* side : {&spec, &oldSpec}) {
        for (const auto& m : side->GetObject()) {
            std::string k(json::view(m.name));
            if (field::sameMember(spec, oldSpec, k) ||
                std::find(changed.begin(), changed.end(), k) != changed.end()) {
                continue;
            }
            if (k == "volumeName" && json::stringMember(oldSpec, "volumeName").empty()) {
                continue;  // set once, by the volume binder
            }
            if (k == "resources") {
                // Semantic equality: quantities compare by amount; a bound
                // claim's storage request may change.
                json::Document a, b;
                a.CopyFrom(spec["resources"], a.GetAllocator());
                b.CopyFrom(oldSpec["resources"], b.GetAllocator());
                for (json::Document* d : {&a, &b}) {
                    if (json::Value* r = json::member(*d, "requests"); r && r->IsObject()) {
                        json::removeMember(*r, "storage");
                    }
                }
                bool sizesEqual = (!size && !oldSize) ||
                                  (size && oldSize && size->compare(*oldSize) == 0);
                if (a == b && (bound || sizesEqual)) {
                    continue;
                }
            }
            changed.push_back(k);
        }
    }
    if (!changed.empty()) {
        std::string diff;
        for (const std::string& k : changed) {
            const json::Value* before = json::member(oldSpec, k);
            const json::Value* after = json::member(spec, k);
            diff += "-\t" + k + ": " + (before ? json::serialize(*before) : "null") + "\n";
            diff += "+\t" + k + ": " + (after ? json::serialize(*after) : "null") + "\n";
        }
        out.push_back(field::forbidden(
            "spec",
            "spec is immutable after creation except resources.requests for bound claims\n" +
                diff));
    }
    if (size && oldSize && size->compare(*oldSize) < 0) {
        out.push_back(field::forbidden("spec.resources.requests.storage",
                                       "field can not be less than previous value"));
    }
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
    k.validateUpdate = validateClaimUpdate;
    return k;
}

}  // namespace kube::apis::core
