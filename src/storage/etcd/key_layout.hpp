#pragma once

#include <string>
#include <string_view>

namespace kube::storage::etcd {

// Where kube-apiserver keeps each resource in etcd, for the registry's keys
// ("/registry/<resource>/[<namespace>/]<name>", the layout every backend is
// given). kube names most resources' folders after the resource, but some
// after older names (its SpecialDefaultResourcePrefixes: services under
// services/specs, endpoints under services/endpoints, nodes under minions,
// replication controllers under controllers, ingresses under ingress), and
// the resources of its aggregator and apiextensions servers under
// <group>/<resource>.
class KeyLayout {
  public:
    // `prefix` replaces the registry's "/registry" (kube's --etcd-prefix).
    explicit KeyLayout(std::string prefix) : prefix_(std::move(prefix)) {}

    // The etcd key of a registry key; keys outside "/registry/" are kept.
    std::string etcdKey(std::string_view registryKey) const;
    // The registry key of an etcd key under the prefix; others are kept.
    std::string registryKey(std::string_view etcdKey) const;

    const std::string& prefix() const { return prefix_; }

  private:
    std::string prefix_;
};

}  // namespace kube::storage::etcd
