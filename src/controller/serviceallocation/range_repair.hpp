#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "registry/service/allocators.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"

// What kube's ClusterIP and node port repair controllers keep true
// (pkg/registry/core/service/ipallocator/controller/repair.go and
// portallocator/controller/repair.go): the ranges' bitmaps hold exactly what
// the stored services hold. Here every write of a service moves its range
// in the same batch, so a pass finds something to fix only after a range
// was created, the configured range changed, or a service was removed
// behind the store's back; a pass that finds nothing writes nothing.
//
// Runs on the owner worker: once at start (creating the ranges), then every
// kInterval. A pass whose write loses to a concurrent allocation runs again
// a second later. Loop thread only.
namespace kube::controller::serviceallocation {

class RangeRepair {
  public:
    static constexpr std::chrono::minutes kInterval{3};

    // `servicesPrefix` is the key prefix of every namespace's services.
    RangeRepair(util::EventLoop& loop, storage::Interface& storage,
                registry::service::ServiceAllocators& allocators, std::string servicesPrefix);
    ~RangeRepair();
    RangeRepair(const RangeRepair&) = delete;
    RangeRepair& operator=(const RangeRepair&) = delete;

    // Starts the passes; `firstDone` once the first one succeeded (the
    // ranges exist and match the services).
    void start(std::function<void()> firstDone);

  private:
    void pass();
    void again(std::chrono::milliseconds delay);

    util::EventLoop& loop_;
    storage::Interface& storage_;
    registry::service::ServiceAllocators& allocators_;
    std::string servicesPrefix_;
    std::function<void()> firstDone_;
    std::unique_ptr<util::EventLoop::Timer> timer_;
    // Cleared by the destructor: callbacks check it.
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::controller::serviceallocation
