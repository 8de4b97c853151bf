#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "registry/service/allocation_bitmap.hpp"
#include "registry/service/ip_address_objects.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"

// What kube's RepairIPAddress controller keeps true
// (pkg/registry/core/service/ipallocator/controller/repairip.go): every
// ClusterIP a Service holds has its IPAddress, pointing at that Service
// with the allocator's labels, and no IPAddress the allocator manages
// outlives its Service's hold on the address. Here the Service writes move
// the IPAddresses in their own batch, so a pass finds something to fix
// only for Services stored before the IPAddresses were kept, or for
// IPAddresses changed or removed by hand.
//
// Runs on the owner worker, once at start then every kInterval, reading
// through the asynchronous storage and writing its fixes as one batch;
// a batch that loses to a concurrent write runs again a second later.
// Loop thread only.
namespace kube::controller::serviceallocation {

// A stored IPAddress as the repair sees it.
struct StoredIPAddress {
    registry::service::IPAddressRecord record;
    storage::Revision modRevision = 0;
};

// A stored Service's ClusterIPs (none for an ExternalName or headless one).
struct ServiceClusterIPs {
    std::string ns;
    std::string name;
    std::vector<std::string> ips;
};
ServiceClusterIPs serviceClusterIPs(std::string_view stored);

// The pass's fixes, mirroring syncService and syncIPAddress:
// - a ClusterIP in `range` without an IPAddress gets one;
// - one whose IPAddress points at no Service, at a Service that does not
//   hold the address, or carries other labels gets it rewritten for its
//   holder (kube deletes and creates it; here one update);
// - an address two Services hold stays the first's (kube's "assigned to
//   multiple services");
// - an IPAddress the allocator manages that points elsewhere than a
//   Service, or at a Service that does not hold its address, is deleted.
// Writes are conditioned on what was read. Addresses outside `range`, and
// IPv6 ones, are left alone (this cluster allocates from one IPv4 range).
//
// Unlike kube, a Service-less IPAddress is deleted without waiting 60 s:
// kube creates the IPAddress before the Service, here both are one batch,
// and the IPAddresses are read before the Services, so an IPAddress whose
// Service is being written is either unseen or seen with it.
std::vector<storage::WriteOp> planIPAddressRepair(const registry::service::IpRange& range,
                                                  const std::vector<StoredIPAddress>& ipAddresses,
                                                  const std::vector<ServiceClusterIPs>& services,
                                                  std::chrono::system_clock::time_point now);

class IPAddressRepair {
  public:
    static constexpr std::chrono::minutes kInterval{3};

    // `servicesPrefix` is the key prefix of every namespace's services.
    IPAddressRepair(util::EventLoop& loop, storage::Interface& storage,
                    registry::service::IpRange range, std::string servicesPrefix);
    ~IPAddressRepair();
    IPAddressRepair(const IPAddressRepair&) = delete;
    IPAddressRepair& operator=(const IPAddressRepair&) = delete;

    // Starts the passes; `passDone` after each pass, with whether its
    // fixes (if any) were written.
    void start(std::function<void(bool written)> passDone = nullptr);

  private:
    void pass();
    void listFor(std::string prefix, std::function<void(const storage::ListResult&)> next);
    void again(std::chrono::milliseconds delay);
    void finished(bool written);

    util::EventLoop& loop_;
    storage::Interface& storage_;
    registry::service::IpRange range_;
    std::string servicesPrefix_;
    std::function<void(bool)> passDone_;
    std::unique_ptr<util::EventLoop::Timer> timer_;
    // Cleared by the destructor: callbacks check it.
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::controller::serviceallocation
