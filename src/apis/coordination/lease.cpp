#include <string>

#include "apis/coordination/kinds.hpp"
#include "apis/core/field_errors.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::coordination {

namespace {

namespace cells = registry::cells;
namespace field = core::field;
namespace json = util::json;

// Mirrors ValidateLeaseSpec's numeric checks.
field::Causes validateLease(const json::Value& obj) {
    field::Causes out;
    const json::Value* duration = json::at(obj, {"spec", "leaseDurationSeconds"});
    if (duration && duration->IsInt64() && duration->GetInt64() <= 0) {
        out.push_back(field::invalid("spec.leaseDurationSeconds", duration->GetInt64(),
                                     "must be greater than 0"));
    }
    field::validateNonnegative(json::at(obj, {"spec", "leaseTransitions"}), "spec.leaseTransitions",
                               out);
    return out;
}

}  // namespace

registry::KindInfo leaseKind() {
    registry::KindInfo k;
    k.group = "coordination.k8s.io";
    k.version = "v1";
    k.kind = "Lease";
    k.resource = "leases";
    k.singular = "lease";
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Holder", "string", "The identity of the current holder of the lease.",
                          [](const json::Value& obj, const registry::TableContext&) {
                              return std::string(cells::text(obj, {"spec", "holderIdentity"}));
                          }),
        cells::ageColumn(),
    };
    k.validate = validateLease;
    return k;
}

}  // namespace kube::apis::coordination
