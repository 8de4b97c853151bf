#pragma once

#include <functional>
#include <string>

#include "apis/meta/status.hpp"
#include "registry/scheme.hpp"
#include "storage/interface.hpp"

namespace kube::registry {

// Deletes everything in namespace `ns`, every namespaced kind of `scheme`,
// in one atomic batch; the work kube's namespace controller does before a
// Terminating namespace goes away. `done` gets nullptr on success.
void deleteNamespaceContents(const Scheme& scheme, storage::Interface& storage, std::string ns,
                             std::function<void(const meta::Status*)> done);

}  // namespace kube::registry
