#include <string>

#include "apis/apps/workload.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/storage/kinds.hpp"
#include "registry/table_cells.hpp"
#include "util/quantity.hpp"

namespace kube::apis::storage {

namespace {

namespace cells = registry::cells;
namespace field = core::field;
namespace json = util::json;

// Mirrors ValidateCSIStorageCapacity (the metadata checks are the store's):
// the node topology is a valid selector, the class name a valid class name,
// the capacity not negative.
void validateCapacityFields(const json::Value& obj, bool allowInvalidLabelValues,
                            field::Causes& out) {
    field::validateLabelSelector(json::member(obj, "nodeTopology"), "nodeTopology",
                                 allowInvalidLabelValues, out);
    std::string_view className = cells::text(obj, {"storageClassName"});
    for (const std::string& msg : registry::validation::isDNS1123Subdomain(className)) {
        out.push_back(field::invalid("storageClassName", className, msg));
    }
    const json::Value* capacity = json::member(obj, "capacity");
    if (capacity && capacity->IsString()) {
        auto q = util::Quantity::parse(json::view(*capacity));
        if (q && q->compare(util::Quantity()) < 0) {
            out.push_back(
                field::invalid("capacity", q->string(), "must be greater than or equal to 0"));
        }
    }
}

// kube 1.26's strategy runs the object's checks twice on create, so every
// error is listed twice.
field::Causes validateCSIStorageCapacity(const json::Value& obj) {
    field::Causes out;
    validateCapacityFields(obj, false, out);
    validateCapacityFields(obj, false, out);
    return out;
}

// Mirrors the strategy's ValidateUpdate: the object's checks (label values
// the stored selector already had stay allowed), then the node topology and
// the class name may not change.
field::Causes validateCSIStorageCapacityUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out;
    validateCapacityFields(obj, true, out);
    if (!field::sameMember(obj, old, "nodeTopology")) {
        out.push_back(field::invalid(
            "nodeTopology",
            field::BadValue::raw(apps::selectorGoString(json::member(obj, "nodeTopology"))),
            "field is immutable"));
    }
    if (cells::text(obj, {"storageClassName"}) != cells::text(old, {"storageClassName"})) {
        out.push_back(field::invalid("storageClassName", cells::text(obj, {"storageClassName"}),
                                     "field is immutable"));
    }
    return out;
}

}  // namespace

registry::KindInfo csiStorageCapacityKind() {
    registry::KindInfo k;
    k.group = "storage.k8s.io";
    k.version = "v1";
    k.kind = "CSIStorageCapacity";
    k.resource = "csistoragecapacities";
    k.singular = "csistoragecapacity";
    // kube registers no printer for it: the default table.
    k.columns = cells::defaultColumns();
    k.validate = validateCSIStorageCapacity;
    k.validateUpdate = validateCSIStorageCapacityUpdate;
    return k;
}

}  // namespace kube::apis::storage
