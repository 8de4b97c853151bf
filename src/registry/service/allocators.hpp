#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "registry/service/allocation_bitmap.hpp"
#include "registry/service/ip_address_allocation.hpp"
#include "registry/store.hpp"
#include "storage/interface.hpp"

namespace kube::registry::service {

// Where kube 1.26 keeps the ranges: one RangeAllocation each, its `range`
// the configured range and its `data` the bitmap (AllocationBitmap).
inline constexpr const char* kServiceIPsKey = "/registry/ranges/serviceips";
inline constexpr const char* kNodePortsKey = "/registry/ranges/servicenodeports";

// The ClusterIP and node port allocators of the Service REST; mirrors
// pkg/registry/core/service/storage/alloc.go (Allocators) for a single-stack
// IPv4 cluster, with the ranges kept as kube's ipallocator/portallocator
// etcd storage keeps them, and every ClusterIP also held by an IPAddress
// object as kube 1.33 holds it (its dual write: ip_address_allocation.hpp).
//
// It is the services store's write companion: for each service about to be
// created, updated or deleted it reads both ranges, defaults the dual-stack
// fields (initIPFamilyFields), allocates what the service asks for or needs
// (ClusterIP, node ports, health check node port) and releases what it no
// longer holds, and answers with compare-and-swap writes of the ranges and
// the IPAddresses that go in the service's own batch. Every worker and host
// therefore agrees: the store retries with fresh ranges when another write
// changed them first.
//
// Called on the loop; the callbacks run on the loop.
class ServiceAllocators {
  public:
    ServiceAllocators(storage::Interface& storage, IpRange ips, PortRange nodePorts);

    const IpRange& ips() const { return ips_; }
    const PortRange& nodePorts() const { return nodePorts_; }

    // Store::CompanionFn.
    void plan(const std::vector<Store::CompanionChange>& changes, bool dryRun,
              Store::CompanionDone done);

    // Mirrors the repair controllers (ipallocator/controller/repair.go,
    // portallocator/controller/repair.go): rebuilds both bitmaps from
    // `services` (every stored service, read after the ranges at
    // `ipsRevision`/`portsRevision`, 0 when absent) and writes them unless a
    // range changed in between (then the caller runs again later). Creates
    // the ranges when absent and replaces ones for another configured range.
    // `done` with false when the write failed.
    struct Snapshot {
        storage::Revision ipsRevision = 0;
        storage::Revision portsRevision = 0;
        std::string ipsValue;  // the stored RangeAllocations, "" when absent
        std::string portsValue;
    };
    void readRanges(std::function<void(const storage::Error&, Snapshot)> done);
    void repair(const Snapshot& snapshot, const std::vector<std::string>& services,
                std::function<void(bool written)> done);

  private:
    struct Ranges;
    std::optional<meta::Status> allocate(Ranges& ranges, json::Value& obj, const json::Value* old,
                                         json::Allocator& a);
    std::optional<meta::Status> allocateClusterIP(Ranges& ranges, std::string_view ns,
                                                  std::string_view name, json::Value& spec,
                                                  json::Allocator& a);
    std::optional<meta::Status> allocateNodePorts(Ranges& ranges, std::string_view name,
                                                  json::Value& spec, const json::Value* oldSpec,
                                                  json::Allocator& a);
    void releaseClusterIP(Ranges& ranges, const json::Value& old, const json::Value& spec);
    void releasePort(Ranges& ranges, int port);
    void release(Ranges& ranges, const json::Value& old);
    void finishPlan(std::shared_ptr<Ranges> ranges, bool dryRun, IPAddressPlan ipPlan,
                    const Store::CompanionDone& done);

    storage::Interface& storage_;
    IpRange ips_;
    PortRange nodePorts_;
    std::mt19937_64 random_;
};

// The RangeAllocation object kube stores (JSON here); `data` is the raw
// bitmap, base64 in the object.
std::string encodeRangeAllocation(std::string_view range, std::string_view data,
                                  std::string_view creationTimestamp);
// False when `bytes` is no RangeAllocation.
bool decodeRangeAllocation(std::string_view bytes, std::string& range, std::string& data);

}  // namespace kube::registry::service
