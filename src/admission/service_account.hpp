#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "admission/interface.hpp"
#include "registry/kind.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"

namespace kube::admission {

// Mirrors the ServiceAccount admission plugin for pod creation: a pod
// without spec.serviceAccountName runs as `default`; the named account must
// exist (403 "error looking up service account ns/name: ..."); unless the
// pod or its account opts out, every container mounts the projected token
// volume (kube-api-access-xxxxx: token, kube-root-ca.crt, namespace) at
// /var/run/secrets/kubernetes.io/serviceaccount; the account's
// imagePullSecrets are copied to a pod that has none. Mirror pods are left
// alone.
class ServiceAccount : public MutationInterface {
  public:
    // Creates the `default` ServiceAccount of a namespace (what kube's
    // serviceaccounts controller keeps in every namespace); `done` with null
    // when it exists afterwards.
    using EnsureDefault =
        std::function<void(const std::string& ns, std::function<void(const meta::Status*)> done)>;

    ServiceAccount(storage::Interface& storage, const registry::KindInfo& serviceAccounts,
                   const registry::KindInfo& pods, EnsureDefault ensureDefault);

    std::string_view name() const override { return "ServiceAccount"; }
    bool handles(const Attributes& a) const override;
    void admit(Attributes& a, Callback done) override;

    static constexpr std::string_view kDefaultName = "default";
    static constexpr std::string_view kMountPath = "/var/run/secrets/kubernetes.io/serviceaccount";

  private:
    using Refuse = std::function<void(const Callback& cb, const std::string& why)>;
    void lookUp(Attributes& a, std::string ns, std::string account, Refuse refuse, Callback done,
                bool mayCreate);
    void mutate(Attributes& a, const util::json::Value& account);

    storage::Interface& storage_;
    const registry::KindInfo& serviceAccounts_;
    const registry::KindInfo& pods_;
    EnsureDefault ensureDefault_;
};

}  // namespace kube::admission
