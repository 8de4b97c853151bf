#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "registry/store.hpp"
#include "storage/cacher/watch_cache.hpp"
#include "util/json.hpp"

// ClusterRole aggregation; mirrors kube-controller-manager's
// clusterroleaggregation controller, run inside the server.
namespace kube::authz {

// True when metav1 LabelSelector `selector` (matchLabels, matchExpressions)
// selects an object with `labels` (a metadata.labels object or null). An
// empty selector selects everything.
bool labelSelectorMatches(const util::json::Value& selector, const util::json::Value* labels);

// The rules aggregated ClusterRole `role` must hold given every ClusterRole
// in `all`: for each selector in turn, the rules of the matching roles other
// than itself, by name, each rule once. nullopt when `role` aggregates
// nothing, or already holds exactly those rules.
std::optional<util::json::Document> aggregatedRules(
    const util::json::Value& role, const std::vector<const util::json::Value*>& all);

// Keeps the rules of aggregated ClusterRoles current: every change to a
// ClusterRole (from the worker's watch cache) schedules one pass over all of
// them, which writes the roles whose rules differ, each guarded by the
// revision it read. Runs in one worker per host, so workers do not race; two
// hosts computing from the same state write the same rules, and a write that
// changes nothing is not made. Loop thread only.
class ClusterRoleAggregator : private storage::cacher::CacheWatcher {
  public:
    explicit ClusterRoleAggregator(registry::Store& clusterRoles);
    ~ClusterRoleAggregator() override;
    ClusterRoleAggregator(const ClusterRoleAggregator&) = delete;
    ClusterRoleAggregator& operator=(const ClusterRoleAggregator&) = delete;

    // Watches the cluster roles and runs a first pass; false when the watch
    // cache cannot be read.
    bool start();

    // Passes run so far and roles written (for tests and metrics).
    int passes() const { return passes_; }
    int writes() const { return writes_; }

  private:
    void onEvent(const storage::cacher::EventRef& event) override;
    void onReset() override;
    void schedule();
    void pass();

    registry::Store& store_;
    storage::cacher::WatchCache* cache_ = nullptr;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
    bool scheduled_ = false;
    int passes_ = 0;
    int writes_ = 0;
};

}  // namespace kube::authz
