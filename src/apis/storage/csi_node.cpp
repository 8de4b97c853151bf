#include <set>
#include <string>

#include "apis/core/field_errors.hpp"
#include "apis/storage/csi_driver_name.hpp"
#include "apis/storage/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::storage {

namespace {

namespace cells = registry::cells;
namespace field = core::field;
namespace json = util::json;

// csiNodeIDMaxLength.
constexpr size_t kMaxNodeID = 192;

// Mirrors validateCSINodeDriver for drivers[i]: a driver name, a node ID,
// a non-negative allocatable count, no driver twice, and topology keys that
// are present, unique and qualified names (reported at the driver's path).
void validateDriver(const json::Value& driver, const std::string& path,
                    std::set<std::string>& names, field::Causes& out) {
    std::string name(cells::text(driver, {"name"}));
    validateCSIDriverName(name, field::child(path, "name"), out);
    std::string_view nodeID = cells::text(driver, {"nodeID"});
    std::string idPath = field::child(path, "nodeID");
    if (nodeID.empty()) {
        out.push_back(field::required(idPath));
    }
    if (nodeID.size() > kMaxNodeID) {
        out.push_back(field::invalid(idPath, nodeID, "must be 192 characters or less"));
    }
    field::validateNonnegative(json::at(driver, {"allocatable", "count"}),
                               field::child(field::child(path, "allocatable"), "count"), out);
    if (!names.insert(name).second) {
        out.push_back(field::duplicate(field::child(path, "name"), name));
    }
    const json::Value* keys = json::member(driver, "topologyKeys");
    if (!keys || !keys->IsArray()) {
        return;
    }
    std::set<std::string> seen;
    for (const json::Value& k : keys->GetArray()) {
        std::string key(k.IsString() ? json::view(k) : "");
        if (key.empty()) {
            out.push_back(field::required(path));
        }
        if (!seen.insert(key).second) {
            out.push_back(field::duplicate(path, key));
        }
        for (const std::string& msg : registry::validation::isQualifiedName(key)) {
            out.push_back(field::invalid(path, key, msg));
        }
    }
}

// Mirrors ValidateCSINode (the metadata checks are the store's).
field::Causes validateCSINode(const json::Value& obj) {
    field::Causes out;
    const json::Value* drivers = json::at(obj, {"spec", "drivers"});
    if (!drivers || !drivers->IsArray()) {
        return out;
    }
    std::set<std::string> names;
    for (size_t i = 0; i < drivers->Size(); i++) {
        validateDriver((*drivers)[static_cast<rapidjson::SizeType>(i)],
                       field::index("spec.drivers", i), names, out);
    }
    return out;
}

// Go's %#v of a storage.CSINodeDriver, the value kube's immutability error shows.
field::BadValue driverGoString(const json::Value& d) {
    using registry::validation::goQuote;
    std::string out = "storage.CSINodeDriver{Name:" + goQuote(cells::text(d, {"name"})) +
                      ", NodeID:" + goQuote(cells::text(d, {"nodeID"})) + ", TopologyKeys:";
    const json::Value* keys = json::member(d, "topologyKeys");
    if (!keys || !keys->IsArray()) {
        out += "[]string(nil)";
    } else {
        out += "[]string{";
        for (size_t i = 0; i < keys->Size(); i++) {
            const json::Value& k = (*keys)[static_cast<rapidjson::SizeType>(i)];
            out += (i ? ", " : "") + goQuote(k.IsString() ? json::view(k) : "");
        }
        out += "}";
    }
    // Allocatable is a pointer: Go prints its address, which no client can match.
    const json::Value* alloc = json::member(d, "allocatable");
    out += alloc && alloc->IsObject()
               ? ", Allocatable:(*storage.VolumeNodeResources)(0xc000000000)}"
               : ", Allocatable:(*storage.VolumeNodeResources)(nil)}";
    return field::BadValue::raw(out);
}

// Mirrors ValidateCSINodeUpdate as of kube 1.26: the object's checks, then a
// driver that stays may not change (reported at the path "CSINodeDriver").
field::Causes validateCSINodeUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out = validateCSINode(obj);
    const json::Value* drivers = json::at(obj, {"spec", "drivers"});
    const json::Value* oldDrivers = json::at(old, {"spec", "drivers"});
    if (!drivers || !drivers->IsArray() || !oldDrivers || !oldDrivers->IsArray()) {
        return out;
    }
    for (const json::Value& o : oldDrivers->GetArray()) {
        for (const json::Value& d : drivers->GetArray()) {
            if (cells::text(o, {"name"}) != cells::text(d, {"name"})) {
                continue;
            }
            bool same = true;
            for (std::string_view m : {"nodeID", "topologyKeys", "allocatable"}) {
                same = same && field::sameMember(d, o, m);
            }
            if (!same) {
                out.push_back(
                    field::invalid("CSINodeDriver", driverGoString(d), "field is immutable"));
            }
        }
    }
    return out;
}

}  // namespace

registry::KindInfo csiNodeKind() {
    registry::KindInfo k;
    k.group = "storage.k8s.io";
    k.version = "v1";
    k.kind = "CSINode";
    k.resource = "csinodes";
    k.singular = "csinode";
    k.namespaced = false;
    k.columns = {
        cells::nameColumn(),
        cells::countColumn("Drivers", "integer", "The number of CSI drivers on the node.",
                           [](const json::Value& obj) {
                               return cells::count(json::at(obj, {"spec", "drivers"}));
                           }),
        cells::ageColumn(),
    };
    k.validate = validateCSINode;
    k.validateUpdate = validateCSINodeUpdate;
    return k;
}

}  // namespace kube::apis::storage
