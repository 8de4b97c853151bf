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

    // Whether objects of `kind` can be refused at all (priority classes).
    bool handles(const registry::KindInfo& kind) const {
        return kind.group == priorityClasses_.group && kind.resource == priorityClasses_.resource;
    }

    // Before creating (`update` false) or replacing `obj` of `kind`. Objects of
    // other kinds, and priority classes that are not a global default, are
    // admitted inline; otherwise the stored classes are read first. A second
    // default is refused with 403 Forbidden, naming the existing one.
    void admit(const registry::KindInfo& kind, const util::json::Value& obj, bool update,
               Callback cb);

  private:
    storage::Interface& storage_;
    const registry::KindInfo& priorityClasses_;
};

}  // namespace kube::admission
