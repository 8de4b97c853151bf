#include "storage/etcd/key_layout.hpp"

#include <array>
#include <utility>

namespace kube::storage::etcd {

namespace {

constexpr std::string_view kRegistryRoot = "/registry/";

// The resource's folder in the registry, and in kube-apiserver's etcd (kube
// 1.26: pkg/kubeapiserver's SpecialDefaultResourcePrefixes, and the
// <group>/<resource> of the servers built on SimpleRestOptionsFactory).
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kFolders = {{
    {"services/", "services/specs/"},
    {"endpoints/", "services/endpoints/"},
    {"nodes/", "minions/"},
    {"replicationcontrollers/", "controllers/"},
    {"ingresses/", "ingress/"},
    {"podsecuritypolicies/", "podsecuritypolicy/"},
    {"customresourcedefinitions/", "apiextensions.k8s.io/customresourcedefinitions/"},
    {"apiservices/", "apiregistration.k8s.io/apiservices/"},
}};

}  // namespace

std::string KeyLayout::etcdKey(std::string_view key) const {
    if (!key.starts_with(kRegistryRoot)) {
        return std::string(key);
    }
    std::string_view rest = key.substr(kRegistryRoot.size());
    std::string out = prefix_ + "/";
    for (const auto& [registry, etcd] : kFolders) {
        if (rest.starts_with(registry)) {
            out += etcd;
            out += rest.substr(registry.size());
            return out;
        }
    }
    out += rest;
    return out;
}

std::string KeyLayout::registryKey(std::string_view key) const {
    if (!key.starts_with(prefix_) || key.size() == prefix_.size() || key[prefix_.size()] != '/') {
        return std::string(key);
    }
    std::string_view rest = key.substr(prefix_.size() + 1);
    std::string out(kRegistryRoot);
    for (const auto& [registry, etcd] : kFolders) {
        if (rest.starts_with(etcd)) {
            out += registry;
            out += rest.substr(etcd.size());
            return out;
        }
    }
    out += rest;
    return out;
}

}  // namespace kube::storage::etcd
