#pragma once

#include <string_view>

#include "admission/interface.hpp"
#include "registry/kind.hpp"

namespace kube::admission {

// Mirrors the TaintNodesByCondition admission plugin: a Node is created with
// the node.kubernetes.io/not-ready:NoSchedule taint (unless it has one of that
// key and effect), which the node lifecycle controller takes off once the
// node reports Ready.
class TaintNodesByCondition : public MutationInterface {
  public:
    explicit TaintNodesByCondition(const registry::KindInfo& nodes) : nodes_(nodes) {}
    std::string_view name() const override { return "TaintNodesByCondition"; }
    // Creates of nodes.
    bool handles(const Attributes& a) const override;
    void admit(Attributes& a, Callback done) override;

  private:
    const registry::KindInfo& nodes_;
};

}  // namespace kube::admission
