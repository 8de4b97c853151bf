#pragma once

#include <string_view>

#include "admission/interface.hpp"
#include "registry/kind.hpp"
#include "storage/interface.hpp"

namespace kube::admission {

// Mirrors the DefaultIngressClass admission plugin: a new Ingress that names
// no class (neither spec.ingressClassName nor the kubernetes.io/ingress.class
// annotation) gets the IngressClass annotated
// ingressclass.kubernetes.io/is-default-class: "true"; of several, the
// newest (by creationTimestamp, then name).
class DefaultIngressClass : public MutationInterface {
  public:
    // `ingressClasses` is the registered networking.k8s.io IngressClass kind;
    // `ingresses` the Ingress kind whose creates are defaulted.
    DefaultIngressClass(storage::Interface& storage, const registry::KindInfo& ingressClasses,
                        const registry::KindInfo& ingresses);

    std::string_view name() const override { return "DefaultIngressClass"; }
    bool handles(const Attributes& a) const override;
    // Reads the stored classes unless the ingress names its own; a failed
    // read is a 403 Forbidden, as kube's plugin answers a lister error.
    void admit(Attributes& a, Callback done) override;

  private:
    storage::Interface& storage_;
    const registry::KindInfo& ingressClasses_;
    const registry::KindInfo& ingresses_;
};

}  // namespace kube::admission
