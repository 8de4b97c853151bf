#pragma once

// The scheme of the built-in kinds, built once per test binary.

#include <string>
#include <vector>

#include "registry/scheme.hpp"

namespace kube::testing {

inline const registry::Scheme& builtinScheme() {
    static const registry::Scheme scheme = [] {
        registry::Scheme s;
        registry::addBuiltinKinds(s);
        return s;
    }();
    return scheme;
}

// The groups of kube-apiserver 1.26's built-in kinds in the order it lists
// them: core ("") first, then the aggregator's own group; /apis leaves out "".
inline const std::vector<std::string>& kubeGroupOrder() {
    static const std::vector<std::string> groups = {"",
                                                    "apiregistration.k8s.io",
                                                    "apps",
                                                    "events.k8s.io",
                                                    "authentication.k8s.io",
                                                    "authorization.k8s.io",
                                                    "autoscaling",
                                                    "batch",
                                                    "certificates.k8s.io",
                                                    "networking.k8s.io",
                                                    "policy",
                                                    "rbac.authorization.k8s.io",
                                                    "storage.k8s.io",
                                                    "admissionregistration.k8s.io",
                                                    "apiextensions.k8s.io",
                                                    "scheduling.k8s.io",
                                                    "coordination.k8s.io",
                                                    "node.k8s.io",
                                                    "discovery.k8s.io",
                                                    "flowcontrol.apiserver.k8s.io"};
    return groups;
}

}  // namespace kube::testing
