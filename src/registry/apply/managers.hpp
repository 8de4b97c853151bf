#pragma once

#include <map>
#include <string>
#include <vector>

#include "registry/apply/field_set.hpp"

namespace kube::registry::apply {

inline constexpr std::string_view kOperationApply = "Apply";
inline constexpr std::string_view kOperationUpdate = "Update";

// Who manages a set of fields: the parts of a managedFields entry that tell
// managers apart. Mirrors BuildManagerIdentifier: an appliers' identity has
// no apiVersion, so one applier is one entry whatever version it used.
struct ManagerId {
    std::string manager;
    std::string operation;  // "Apply" or "Update"
    std::string apiVersion;
    std::string subresource;

    // The identifier kube keys managers by: the entry's JSON without time
    // and fields ({"manager":"m","operation":"Update","apiVersion":"v1"}).
    // Its order is the order conflict messages list managers in.
    std::string identifier() const;
    // printManager: `"m"`, `"m" with subresource "status"`, and for updaters
    // ` using apps/v1`.
    std::string describe() const;
};

// One manager's fields (fieldpath.VersionedSet) and when it last changed
// something (RFC 3339, empty when unknown).
struct ManagedSet {
    ManagerId id;
    FieldSet set;
    // The version the set's paths are in.
    std::string apiVersion;
    bool applied = false;
    std::string time;
};

// All managers of an object by identifier (fieldpath.ManagedFields plus the
// times kube keeps beside it).
using Managers = std::map<std::string, ManagedSet>;

// A field another manager owns that an apply would change (merge.Conflict).
struct Conflict {
    ManagerId manager;
    Path path;
};

}  // namespace kube::registry::apply
