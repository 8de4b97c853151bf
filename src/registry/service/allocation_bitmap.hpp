#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace kube::registry::service {

// Which offsets of a range are taken; mirrors allocator.AllocationBitmap.
// Offset i is bit i of one big integer, and snapshot() writes that integer
// as kube does (big.Int.Bytes: big-endian, no leading zero bytes), so a
// RangeAllocation written here reads the same in kube-apiserver.
//
// Random allocation mirrors kube's strategies: with an offset (the IP
// ranges' "static" band, ServiceIPStaticSubrange) it picks at random above
// the offset first and falls back to the band below it; without one
// (node ports in 1.26) anywhere in the range.
class AllocationBitmap {
  public:
    AllocationBitmap(int max, int offset = 0);

    int max() const { return max_; }
    int count() const { return count_; }
    bool has(int offset) const;
    // False when `offset` is outside the range or taken.
    bool allocate(int offset);
    // The offset taken at random, none when the range is full.
    std::optional<int> allocateNext(std::mt19937_64& random);
    void release(int offset);

    std::string snapshot() const;
    // Replaces the state with a snapshot's; bits beyond max are dropped.
    void restore(std::string_view bytes);

  private:
    int max_;
    int offset_;
    int count_ = 0;
    std::vector<uint64_t> words_;
};

// A contiguous IPv4 service range; mirrors ipallocator.Range for a
// single-stack IPv4 cluster: the network and broadcast addresses are never
// handed out, the rest are offsets 0..max-1 from network+1.
struct IpRange {
    uint32_t network = 0;
    int prefix = 0;
    std::string spec;  // "10.96.0.0/12", as kube prints the net
    int max = 0;
    int staticBand = 0;  // calculateRangeOffset

    // Null with `error` set when `cidr` is no IPv4 CIDR, or too small to
    // hold a service (a /31 or /32), or too large for a bitmap (below /8).
    static std::optional<IpRange> parse(std::string_view cidr, std::string* error);
    // The offset of `ip` in the range, none when outside it.
    std::optional<int> offsetOf(uint32_t ip) const;
    uint32_t ipAt(int offset) const { return network + 1 + static_cast<uint32_t>(offset); }
    // The first usable address (the `kubernetes` service's).
    uint32_t first() const { return network + 1; }
};

// A node port range "30000-32767"; mirrors net.PortRange.
struct PortRange {
    int base = 0;
    int size = 0;
    std::string spec;  // "30000-32767"

    static std::optional<PortRange> parse(std::string_view text, std::string* error);
    bool contains(int port) const { return port >= base && port < base + size; }
};

// Dotted-quad text of an IPv4 address and back; parseIPv4 refuses anything
// but four decimal parts (kube's ParseIPSloppy also reads leading zeros).
std::string formatIPv4(uint32_t ip);
std::optional<uint32_t> parseIPv4(std::string_view text);

}  // namespace kube::registry::service
