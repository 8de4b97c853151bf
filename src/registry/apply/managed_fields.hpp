#pragma once

#include <optional>
#include <string>
#include <vector>

#include "apis/meta/status.hpp"
#include "registry/apply/managers.hpp"
#include "util/json.hpp"

// metadata.managedFields as kube writes and reads it; mirrors
// k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/internal
// (managedfields.go, conflict.go).
namespace kube::registry::apply {

// DecodeManagedFields: the managers of a managedFields list (null or absent:
// none). Errors as kube words them ("operation must be `Apply` or
// `Update`", "apiVersion must not be empty", "missing fieldsType in managed
// fields entry 0", "invalid fieldsType \"x\" in managed fields entry 0",
// "error decoding versioned set from ...").
std::optional<std::string> decodeManagedFields(const util::json::Value* list, Managers& out);

// encodeManagedFields: the entries in kube's order (operation, then time to
// the second, manager, apiVersion, subresource), each with manager,
// operation, apiVersion, time (when known), fieldsType FieldsV1, fieldsV1,
// subresource (when set). An empty Managers gives an empty array; callers
// then drop the member, as kube leaves it nil.
util::json::Value encodeManagedFields(const Managers& managers, util::json::Allocator& a);

// NewConflictError: the 409 an apply with conflicts answers: "Apply failed
// with 1 conflict: conflict with \"m\" using apps/v1: .spec.replicas", or for
// several "Apply failed with N conflicts: conflicts with \"m\":\n- .a\n- .b"
// (managers in identifier order), and one FieldManagerConflict cause per
// conflict. `conflicts` in Updater's order.
meta::Status conflictStatus(const std::vector<Conflict>& conflicts);

}  // namespace kube::registry::apply
