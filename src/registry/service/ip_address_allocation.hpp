#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "storage/interface.hpp"

// The IPAddress half of kube 1.33's dual-write ClusterIP allocation
// (cidrallocator.go MetaAllocator with DisableAllocatorDualWrite off): the
// bitmap has chosen the ClusterIPs a Service write takes and gives back;
// here each taken one gets its IPAddress object and each given back loses
// it, as writes that go in the Service's own batch.
namespace kube::registry::service {

// A ClusterIP a Service write takes.
struct ClusterIPClaim {
    std::string ip;
    std::string ns;  // the Service's
    std::string name;
    // Asked for by the Service; otherwise picked at random, and moved to
    // another address when this one has an IPAddress already.
    bool requested = false;
};

// A ClusterIP a Service write gives back.
struct ClusterIPRelease {
    std::string ip;
    std::string ns;
    std::string name;
};

struct IPAddressPlan {
    // The claim whose requested address has an IPAddress (kube's
    // ErrAllocated); nothing is written then.
    std::optional<size_t> taken;
    // A random claim found no address without an IPAddress (ErrFull).
    bool full = false;
    // The IPAddress creates and deletes.
    std::vector<storage::WriteOp> ops;
};

// Another random address for a claim whose address is held by an
// IPAddress; none when the range has no other.
using PickAnotherFn = std::function<std::optional<std::string>()>;

// Reads the IPAddress of every claim and release and answers with the
// writes: a create (only if absent: a concurrent create fails the batch,
// and the store plans again) for each claim; a delete, conditioned on the
// revision read, for each release whose IPAddress names the releasing
// Service (another's, or a user's, is left alone). Random claims are moved
// in place (`claims` then holds the addresses finally taken).
//
// Called on the loop; `done` runs on the loop, once, possibly inline.
void planIPAddresses(storage::Interface& storage,
                     std::shared_ptr<std::vector<ClusterIPClaim>> claims,
                     std::vector<ClusterIPRelease> releases, PickAnotherFn pickAnother,
                     std::chrono::system_clock::time_point now,
                     std::function<void(const storage::Error&, IPAddressPlan)> done);

}  // namespace kube::registry::service
