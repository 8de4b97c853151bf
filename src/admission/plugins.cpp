#include "admission/plugins.hpp"

#include "admission/certificates.hpp"
#include "admission/default_ingress_class.hpp"
#include "admission/limit_ranger.hpp"
#include "admission/namespace_lifecycle.hpp"
#include "admission/priority.hpp"
#include "admission/resource_quota.hpp"
#include "admission/taint_nodes_by_condition.hpp"

namespace kube::admission {

std::unique_ptr<Chain> defaultChain(storage::Interface& storage, storage::cacher::Cacher& cacher,
                                    const registry::Scheme& scheme,
                                    ServiceAccount::EnsureDefault ensureDefault,
                                    std::shared_ptr<const SignerAuthorizer> signers) {
    auto kind = [&scheme](std::string_view group, std::string_view resource) {
        return scheme.find(group, "v1", resource);
    };
    const registry::KindInfo& pods = *kind("", "pods");
    auto chain = std::make_unique<Chain>();
    chain->add(std::make_shared<NamespaceLifecycle>(storage, *kind("", "namespaces")));
    chain->add(std::make_shared<LimitRanger>(storage, *kind("", "limitranges"), pods,
                                             *kind("", "persistentvolumeclaims")));
    chain->add(std::make_shared<ServiceAccount>(storage, *kind("", "serviceaccounts"), pods,
                                                std::move(ensureDefault)));
    chain->add(std::make_shared<TaintNodesByCondition>(*kind("", "nodes")));
    chain->add(std::make_shared<Priority>(storage, *kind("scheduling.k8s.io", "priorityclasses")));
    chain->add(std::make_shared<DefaultIngressClass>(storage,
                                                     *kind("networking.k8s.io", "ingressclasses"),
                                                     *kind("networking.k8s.io", "ingresses")));
    const registry::KindInfo& csrs = *kind("certificates.k8s.io", "certificatesigningrequests");
    chain->add(std::make_shared<CertificateApproval>(csrs, signers));
    chain->add(std::make_shared<CertificateSigning>(csrs, signers));
    chain->add(std::make_shared<CertificateSubjectRestriction>(csrs));
    chain->add(std::make_shared<ResourceQuota>(storage, cacher, *kind("", "resourcequotas")));
    return chain;
}

}  // namespace kube::admission
