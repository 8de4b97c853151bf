#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "registry/encoding.hpp"
#include "storage/interface.hpp"

// The networking.k8s.io/v1 IPAddress objects kube 1.33's ClusterIP
// allocator keeps, one per allocated ClusterIP (MultiCIDRServiceAllocator
// on, with the bitmap still written beside them): named by the address,
// labelled with its family and the allocator, and pointing at the Service
// that holds it (ipallocator.go createIPAddress, serviceToRef).
namespace kube::registry::service {

// ipallocator.ControllerName, the value of the managed-by label.
inline constexpr const char* kIPAllocatorName = "ipallocator.k8s.io";
// networkingv1.LabelIPAddressFamily and LabelManagedBy.
inline constexpr const char* kIPFamilyLabel = "ipaddress.kubernetes.io/ip-family";
inline constexpr const char* kManagedByLabel = "ipaddress.kubernetes.io/managed-by";
// Where the ipaddresses store keeps its objects (a cluster-scoped built-in
// kind: /registry/<resource>/<name>).
inline constexpr const char* kIPAddressesPrefix = "/registry/ipaddresses/";

std::string ipAddressKey(std::string_view ip);

// "IPv4" or "IPv6", as the family label and the repair tell them apart.
std::string_view ipFamilyOf(std::string_view ip);

// The IPAddress the allocator creates for `ip` held by the Service
// `ns`/`name`, encoded as the ipaddresses store encodes a create: a new uid,
// creationTimestamp `now`, the resourceVersion slot for the commit, and the
// managedFields entry of kube-apiserver's own client.
EncodedObject encodeIPAddress(std::string_view ip, std::string_view ns, std::string_view name,
                              std::chrono::system_clock::time_point now);

// The write of that IPAddress for the Service `ns`/`name`: a create when
// `replacing` is 0 (only if absent), else an update of the object stored
// at that mod revision.
storage::WriteOp ipAddressWrite(std::string_view ip, std::string_view ns, std::string_view name,
                                std::chrono::system_clock::time_point now,
                                storage::Revision replacing = 0);

// The delete of the IPAddress of `ip` stored at mod revision `modRevision`.
storage::WriteOp ipAddressDelete(std::string_view ip, storage::Revision modRevision);

// What the allocator and its repair read of a stored IPAddress.
struct IPAddressRecord {
    std::string name;
    // The managed-by label names the allocator.
    bool managedByAllocator = false;
    // Both labels are the allocator's, the family the name's
    // (verifyIPAddressLabels).
    bool labelsMatch = false;
    std::string group;
    std::string resource;
    std::string ns;
    std::string parentName;

    bool refersToServices() const { return group.empty() && resource == "services"; }
    bool refersTo(std::string_view serviceNs, std::string_view serviceName) const {
        return refersToServices() && ns == serviceNs && parentName == serviceName;
    }
};

// None when `bytes` is no object.
std::optional<IPAddressRecord> decodeIPAddress(std::string_view bytes);

}  // namespace kube::registry::service
