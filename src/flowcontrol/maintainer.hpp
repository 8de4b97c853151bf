#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "authz/bootstrap.hpp"
#include "flowcontrol/controller.hpp"
#include "util/event_loop.hpp"

namespace kube::flowcontrol {

// What one worker per host does for APF's objects, as kube-apiserver's
// PostStartHook "priority-and-fairness-config-producer" and its config
// controller do: creates and updates the bootstrap objects at start and
// again every minute, and writes each FlowSchema's Dangling condition when
// the PriorityLevelConfiguration it names appears or goes. Loop thread only.
class Maintainer {
public:
    // `stores` gives the v1 store of "flowschemas" and
    // "prioritylevelconfigurations"; `controller` reports the conditions to
    // write. Both outlive the maintainer.
    Maintainer(util::EventLoop& loop, authz::RbacStores stores, Controller& controller);
    ~Maintainer();

    // Ensures the bootstrap objects; `done` after the first run.
    void start(std::function<void(authz::BootstrapSummary)> done);

private:
    void ensure(std::function<void(authz::BootstrapSummary)> done);
    void writeConditions(const std::vector<DanglingChange>& changes);

    util::EventLoop& loop_;
    authz::RbacStores stores_;
    Controller& controller_;
    std::unique_ptr<util::EventLoop::Timer> timer_;
    // FlowSchemas whose condition is being written.
    std::set<std::string> writing_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::flowcontrol
