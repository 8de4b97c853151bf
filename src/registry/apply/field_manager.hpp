#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "apis/meta/status.hpp"
#include "registry/apply/type_ref.hpp"
#include "registry/apply/updater.hpp"
#include "util/json.hpp"

// Server-side apply and managedFields for one endpoint (a kind's version,
// maybe a subresource); mirrors kube's fieldmanager.FieldManager with its
// default chain (last-applied migration for "kubectl", tracking from the
// first apply or from create, the cap of 10 update managers, manager
// identities, times, and the metadata fields nobody owns). Handlers call
// update() on every create/update/patch and apply() for
// application/apply-patch+yaml. Const after construction; any thread.
namespace kube::registry::apply {

struct FieldManagerOptions {
    // The kind's top-level message (TypeRef::forMessage), or a custom
    // resource's structural schema (TypeRef::forStructural).
    TypeRef type;
    // What `type` points into when it is not the program's own (a custom
    // resource's compiled schema); kept alive as long as the manager.
    std::shared_ptr<const void> typeSource;
    // The group/version and kind served ("apps/v1", "Deployment").
    std::string apiVersion;
    std::string kind;
    // "" for the main resource, else "status", "scale".
    std::string subresource;
    // Fields this endpoint resets, which nobody comes to own (the kind's
    // strategy: status for the main resource, spec and metadata for status).
    FieldSet resetFields;
    // kube's DefaultMaxUpdateManagers.
    size_t maxUpdateManagers = 10;
};

struct ApplyResult {
    // Set when the apply fails: 409 conflicts (conflictStatus), 400 for a
    // body kube refuses (wrong version, managedFields set), 500 otherwise.
    std::optional<meta::Status> status;
    // The object to store, metadata.managedFields filled in.
    util::json::Document object;
    // Whether anything but managedFields changed.
    bool objectChanged = false;
};

class FieldManager {
  public:
    explicit FieldManager(FieldManagerOptions options);

    // FieldManager.Update: records in `newObject.metadata.managedFields` that
    // `manager` ("unknown" when empty) changed what differs from `live` (an
    // empty object for a create: `live` without metadata.uid). The managers
    // come from `newObject`'s managedFields when it sends some (an empty list
    // resets them), else from `live`'s; a subresource always keeps `live`'s.
    // An object whose managedFields are empty is not tracked until its first
    // apply. `now`: RFC 3339 UTC to the second. Never fails: on an internal
    // error `newObject` keeps `live`'s managedFields (UpdateNoErrors).
    void update(const util::json::Value& live, util::json::Value& newObject,
                std::string_view manager, std::string_view now, util::json::Allocator& a) const;

    // FieldManager.Apply: `config` (the decoded apply body) applied to `live`
    // (an empty object when the object does not exist yet) by `manager`.
    ApplyResult apply(const util::json::Value& live, const util::json::Value& config,
                      std::string_view manager, bool force, std::string_view now) const;

  private:
    ManagerId updaterId(std::string_view manager) const;
    // The inner update chain (cap, identity, times, strip) on `managers`.
    std::optional<std::string> trackUpdate(const util::json::Value& live,
                                           const util::json::Value& newObject, Managers& managers,
                                           const ManagerId& id, std::string_view now) const;
    void capUpdateManagers(Managers& managers) const;
    void stripMeta(Managers& managers, const std::string& key) const;
    // lastAppliedManager: the fields client-side apply's annotation on
    // `live` shows the applier set, whose conflicts "kubectl" may take.
    std::optional<FieldSet> allowedFromLastApplied(const util::json::Value& live) const;

    FieldManagerOptions options_;
    Updater updater_;
    FieldSet stripSet_;
};

}  // namespace kube::registry::apply
