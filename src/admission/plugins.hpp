#pragma once

#include <memory>

#include "admission/chain.hpp"
#include "admission/service_account.hpp"
#include "registry/scheme.hpp"
#include "storage/cacher/cacher.hpp"
#include "storage/interface.hpp"

namespace kube::admission {

// The chain of kube-apiserver's default admission plugins that apply to the
// kinds served here, in kube's order: NamespaceLifecycle, LimitRanger,
// ServiceAccount, Priority, ResourceQuota.
// `cacher` holds this worker's watch caches (ResourceQuota reads the
// quotas there); `ensureDefault` makes a namespace's default ServiceAccount.
std::unique_ptr<Chain> defaultChain(storage::Interface& storage, storage::cacher::Cacher& cacher,
                                    const registry::Scheme& scheme,
                                    ServiceAccount::EnsureDefault ensureDefault);

}  // namespace kube::admission
