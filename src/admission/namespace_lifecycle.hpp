#pragma once

#include <string_view>

#include "admission/interface.hpp"
#include "registry/kind.hpp"
#include "storage/interface.hpp"

namespace kube::admission {

// Mirrors the NamespaceLifecycle admission plugin (a mutating one that
// changes nothing): objects are created only in namespaces that exist and
// are not terminating, and the namespaces every cluster relies on cannot be
// deleted.
class NamespaceLifecycle : public MutationInterface {
  public:
    NamespaceLifecycle(storage::Interface& storage, const registry::KindInfo& namespaces);

    std::string_view name() const override { return "NamespaceLifecycle"; }
    // Creates of namespaced objects (not namespaces themselves), and deletes
    // of namespaces, by a user (not the server's own writes).
    bool handles(const Attributes& a) const override;
    void admit(Attributes& a, Callback done) override;

    // default, kube-system, kube-public (kube's immortal namespaces).
    static bool isImmortal(std::string_view name);

  private:
    storage::Interface& storage_;
    const registry::KindInfo& namespaces_;
};

}  // namespace kube::admission
