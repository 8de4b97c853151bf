#pragma once

#include <functional>
#include <string_view>

#include "apis/meta/status.hpp"
#include "registry/kind.hpp"
#include "storage/interface.hpp"
#include "util/json.hpp"

namespace kube::admission {

// Mirrors the validating half of the Priority admission plugin: at most one
// PriorityClass may be the global default, the one pods without a priority
// class name get.
class Priority {
  public:
    using Callback = std::function<void(const meta::Status* denied)>;

    // `priorityClasses` is the registered scheduling.k8s.io PriorityClass kind.
    Priority(storage::Interface& storage, const registry::KindInfo& priorityClasses);

    // Before creating (`update` false) or replacing the priority class `obj`
    // (the PriorityClass store's validating admission). A class that is not a
    // global default is admitted inline; otherwise the stored classes are
    // read first. A second default is refused with 403 Forbidden, naming the
    // existing one.
    void admit(const util::json::Value& obj, bool update, Callback cb);

  private:
    storage::Interface& storage_;
    const registry::KindInfo& priorityClasses_;
};

}  // namespace kube::admission
