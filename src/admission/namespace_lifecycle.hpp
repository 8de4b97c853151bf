#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "apis/meta/status.hpp"
#include "registry/kind.hpp"
#include "storage/interface.hpp"

namespace kube::admission {

// Mirrors the NamespaceLifecycle admission plugin: objects are created only
// in namespaces that exist and are not terminating, and the namespaces every
// cluster relies on cannot be deleted.
class NamespaceLifecycle {
  public:
    using Callback = std::function<void(const meta::Status* denied)>;

    NamespaceLifecycle(storage::Interface& storage, const registry::KindInfo& namespaces);

    // Before creating `name` of `kind` in namespace `ns`.
    void admitCreate(const registry::KindInfo& kind, std::string_view ns, std::string_view name,
                     Callback cb);

    // Before deleting the namespace `name`; answers inline.
    const meta::Status* admitNamespaceDelete(std::string_view name);

    // default, kube-system, kube-public (kube's immortal namespaces).
    static bool isImmortal(std::string_view name);

  private:
    storage::Interface& storage_;
    const registry::KindInfo& namespaces_;
    meta::Status denied_;
};

}  // namespace kube::admission
