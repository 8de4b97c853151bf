#pragma once

#include <memory>
#include <string_view>

#include "admission/interface.hpp"
#include "registry/kind.hpp"
#include "storage/cacher/cacher.hpp"
#include "storage/interface.hpp"

namespace kube::admission {

// Mirrors the ResourceQuota admission plugin (plugin/pkg/admission/
// resourcequota): a write the quota evaluators handle (admission/
// quota_evaluator: creates of every kind, updates of services and claims)
// is checked against every ResourceQuota of its namespace whose status.hard
// tracks what it uses and whose scopes match it; exceeding one, or a pod
// that leaves a required cpu or memory unset, is 403 Forbidden in kube's
// words. An admitted write is charged at once: the matching quotas'
// status.used grow by its usage in one compare-and-swap write per quota
// (a concurrent charge makes the check start over), before the object is
// written, as kube's quota accessor does. Dry runs are checked, not charged.
//
// The quotas are read from this worker's watch cache of them, first brought
// up to the store's latest revision. kube's accessor reads its informer,
// looks up live (for 30 s) a namespace the informer shows no quota in, and
// remembers the quotas it charged until the informer has them; a cache in
// step with the store needs neither.
//
// Who keeps status.used true otherwise: kube's quota controller, here
// controller/resourcequota on the server's owner worker, which recomputes
// a namespace's usage from the watch caches after its objects change and
// mirrors spec.hard into status.hard. Until it has, a new quota has no
// status.hard and limits nothing (kube's behaviour before its controller
// ran). A charge whose object write then fails stays until that recount.
class ResourceQuota : public ValidationInterface {
  public:
    static constexpr int kMaxAttempts = 5;

    // `cacher` is this worker's (the quotas' watch cache); the charges are
    // written to `storage`.
    ResourceQuota(storage::Interface& storage, storage::cacher::Cacher& cacher,
                  const registry::KindInfo& quotas);

    std::string_view name() const override { return "ResourceQuota"; }
    bool handles(const Attributes& a) const override;
    void validate(const Attributes& a, Callback done) override;

  private:
    struct Attempt;
    void attempt(std::shared_ptr<Attempt> at);

    storage::Interface& storage_;
    storage::cacher::Cacher& cacher_;
    const registry::KindInfo& quotas_;
};

}  // namespace kube::admission
