#pragma once

#include <string_view>

#include "admission/interface.hpp"
#include "registry/kind.hpp"
#include "storage/interface.hpp"

namespace kube::admission {

// Mirrors the LimitRanger admission plugin: the LimitRanges of the
// namespace give a new pod's containers their default limits and requests
// (noted in the kubernetes.io/limit-ranger annotation), then the min, max
// and maxLimitRequestRatio of their Container and Pod items, and the
// storage min and max of PersistentVolumeClaim items (on claim creates and
// updates), refuse what falls outside with 403 Forbidden.
class LimitRanger : public MutationInterface, public ValidationInterface {
  public:
    LimitRanger(storage::Interface& storage, const registry::KindInfo& limitRanges,
                const registry::KindInfo& pods, const registry::KindInfo& claims);

    std::string_view name() const override { return "LimitRanger"; }
    bool handles(const Attributes& a) const override;
    void admit(Attributes& a, Callback done) override;
    void validate(const Attributes& a, Callback done) override;

  private:
    // The namespace's LimitRanges, parsed, to `fn`; a read error refuses.
    void withLimitRanges(const Attributes& a,
                         std::function<void(const util::json::Value& ranges)> fn, Callback done);

    storage::Interface& storage_;
    const registry::KindInfo& limitRanges_;
    const registry::KindInfo& pods_;
    const registry::KindInfo& claims_;
};

}  // namespace kube::admission
