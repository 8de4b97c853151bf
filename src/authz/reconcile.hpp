#pragma once

#include <memory>

#include "util/json.hpp"

// What bringing a stored RBAC object in line with its bootstrap version
// takes; mirrors pkg/registry/rbac/reconciliation (computeReconciledRole,
// computeReconciledRoleBinding) in the union mode kube's PostStartHook uses:
// missing rules, aggregation selectors, subjects, labels and annotations are
// added, nothing is removed.
namespace kube::authz {

enum class ReconcileOperation {
    None,      // up to date, or protected
    Create,    // missing
    Update,    // `object` replaces the stored one (its resourceVersion kept: a CAS)
    Recreate,  // a binding whose roleRef changed: delete, then create `object`
};

struct Reconciled {
    ReconcileOperation operation = ReconcileOperation::None;
    // The stored object carries rbac.authorization.kubernetes.io/autoupdate:
    // "false": it is left alone, whatever it lacks.
    bool isProtected = false;
    // What to create or write (null for None and for protected objects).
    std::shared_ptr<util::json::Document> object;
};

// A Role or ClusterRole: `expected` is the bootstrap version, `existing` the
// stored one (null when there is none).
Reconciled reconcileRole(const util::json::Value& expected, const util::json::Value* existing);

// A RoleBinding or ClusterRoleBinding.
Reconciled reconcileBinding(const util::json::Value& expected, const util::json::Value* existing);

}  // namespace kube::authz
