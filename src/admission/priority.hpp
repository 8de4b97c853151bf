#pragma once

#include <string_view>

#include "admission/interface.hpp"
#include "registry/kind.hpp"
#include "storage/interface.hpp"
#include "util/json.hpp"

namespace kube::admission {

// Mirrors the validating half of the Priority admission plugin: at most one
// PriorityClass may be the global default, the one pods without a priority
// class name get.
class Priority : public ValidationInterface {
  public:
    // `priorityClasses` is the registered scheduling.k8s.io PriorityClass kind.
    Priority(storage::Interface& storage, const registry::KindInfo& priorityClasses);

    std::string_view name() const override { return "Priority"; }
    // Creates and updates of priority classes.
    bool handles(const Attributes& a) const override;
    // A class that is not a global default is admitted inline; otherwise the
    // stored classes are read first. A second default is refused with 403
    // Forbidden, naming the existing one.
    void validate(const Attributes& a, Callback done) override;

  private:
    storage::Interface& storage_;
    const registry::KindInfo& priorityClasses_;
};

}  // namespace kube::admission
