#pragma once

#include <memory>

#include "admission/certificates.hpp"
#include "admission/chain.hpp"
#include "admission/service_account.hpp"
#include "registry/scheme.hpp"
#include "storage/cacher/cacher.hpp"
#include "storage/interface.hpp"

namespace kube::admission {

// The chain of kube-apiserver's default admission plugins that apply to the
// kinds served here, in kube's order: NamespaceLifecycle, LimitRanger,
// ServiceAccount, TaintNodesByCondition, Priority, CertificateApproval,
// CertificateSigning, CertificateSubjectRestriction, ResourceQuota.
// `cacher` holds this worker's watch caches (ResourceQuota reads the
// quotas there); `ensureDefault` makes a namespace's default ServiceAccount;
// `signers` answers the certificate plugins' approve and sign checks.
std::unique_ptr<Chain> defaultChain(storage::Interface& storage, storage::cacher::Cacher& cacher,
                                    const registry::Scheme& scheme,
                                    ServiceAccount::EnsureDefault ensureDefault,
                                    std::shared_ptr<const SignerAuthorizer> signers);

}  // namespace kube::admission
