#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "authz/bootstrap_policy.hpp"
#include "authz/reconcile.hpp"
#include "registry/store.hpp"

// Creates the bootstrap RBAC policy at start and brings the stored objects
// that still have autoupdate "true" up to it; mirrors kube-apiserver's
// PostStartHook "rbac/bootstrap-roles" (ensureRBACPolicy with the
// reconciliation package in union mode).
namespace kube::authz {

// What one run did, for the log and tests.
struct BootstrapSummary {
    int created = 0;
    int updated = 0;
    int recreated = 0;
    int unchanged = 0;
    int protectedObjects = 0;
    // One line per object that could not be reconciled (kube logs and goes on).
    std::vector<std::string> errors;
};

// The store of "clusterroles", "clusterrolebindings", "roles" or "rolebindings"
// (or of whatever resources the objects of reconcileObjects are).
using RbacStores = std::function<registry::Store&(std::string_view resource)>;

// How one bootstrap object compares with its stored version (null when
// there is none): what to write, if anything.
using ReconcileFn = std::function<Reconciled(const BootstrapObject& o, const util::json::Value* existing)>;

// Reconciles each of `objects` through `stores` with `reconcile`, all at
// once (their writes share group commits); `done` once each has settled.
// `objects` must outlive the run. The machinery of
// reconcileBootstrapPolicy, for other kinds' bootstrap objects (APF's).
void reconcileObjects(RbacStores stores, const std::vector<BootstrapObject>& objects,
                      ReconcileFn reconcile, std::function<void(BootstrapSummary)> done);

// Reconciles every object of bootstrapPolicy() through `stores`, all at once
// (their writes share group commits); `done` once each has settled. Reads and
// writes go through the stores' callbacks: nothing blocks the loop. Writes
// are guarded by the stored revision, and an object created or changed by
// someone else meanwhile is looked at again, so several servers (or workers)
// running it at once end in the same state.
void reconcileBootstrapPolicy(RbacStores stores, std::function<void(BootstrapSummary)> done);

}  // namespace kube::authz
