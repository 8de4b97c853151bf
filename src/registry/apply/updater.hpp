#pragma once

#include <optional>
#include <string>
#include <vector>

#include "registry/apply/managers.hpp"
#include "registry/apply/type_ref.hpp"
#include "registry/apply/typed.hpp"
#include "util/json.hpp"

// Who owns which fields as objects change; mirrors smd's merge.Updater
// (merge/update.go). Every manager's set is taken to be in the object's one
// schema: the kinds served here have one version each, so no conversion
// between versions is needed (kube's Converter is the identity).
namespace kube::registry::apply {

struct UpdaterResult {
    // A schema error (a list item without its key, a repeated key): kube
    // answers these 500, or 400 for an apply body (the handler decides).
    std::optional<std::string> error;
    // Non-empty when an apply without force would take fields others own.
    std::vector<Conflict> conflicts;
    // Apply: the merged object; absent when applying changed nothing.
    std::optional<util::json::Document> object;
};

class Updater {
  public:
    // `ignored`: the fields of the kind that this endpoint resets (kube's
    // ResetFieldsStrategy: status for the main resource, spec for /status);
    // nobody comes to own them here.
    Updater(TypeRef type, FieldSet ignored) : type_(type), ignored_(std::move(ignored)) {}

    // Updater.Update: `newObject` replaced `live`; `manager` comes to own
    // what changed, and other managers lose it (no conflicts for updates).
    // `managers` is updated in place.
    UpdaterResult update(const util::json::Value& live, const util::json::Value& newObject,
                         const std::string& apiVersion, Managers& managers,
                         const ManagerId& manager) const;

    // Updater.Apply: merges `config` into `live`; `manager` comes to own
    // exactly the fields of `config`. Fields it applied before and no longer
    // applies are removed unless another manager owns them. Conflicts (and
    // no change) when another manager owns a field `config` would change,
    // unless `force`, which takes them.
    UpdaterResult apply(const util::json::Value& live, const util::json::Value& config,
                        const std::string& apiVersion, Managers& managers, const ManagerId& manager,
                        bool force) const;

    const TypeRef& type() const { return type_; }

  private:
    std::optional<std::string> takeFields(const util::json::Value& live,
                                          const util::json::Value& newObject, Managers& managers,
                                          const std::string& self, bool force, Comparison& compare,
                                          std::vector<Conflict>& conflicts) const;
    util::json::Value prune(const util::json::Value& merged, const Managers& managers,
                            const FieldSet& lastSet, util::json::Allocator& a) const;

    TypeRef type_;
    FieldSet ignored_;
};

}  // namespace kube::registry::apply
