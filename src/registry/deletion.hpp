#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apis/meta/status.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"

// The decisions of a delete, on the object as read: kube's rest.BeforeDelete
// (pkg/registry/rest/delete.go) and the generic store's finalizer rules
// (deletionFinalizersForGarbageCollection, markAsDeleting,
// ShouldDeleteDuringUpdate). Pure functions of the object and the options;
// the store does the reads and writes.
namespace kube::registry {

// metav1.FinalizerOrphanDependents and metav1.FinalizerDeleteDependents.
inline constexpr std::string_view kFinalizerOrphan = "orphan";
inline constexpr std::string_view kFinalizerForeground = "foregroundDeletion";

// What a delete asks of the garbage collector (propagationPolicy, and the
// legacy orphanDependents that wins over it).
struct Propagation {
    std::optional<bool> orphanDependents;
    std::optional<std::string> propagationPolicy;  // "Orphan", "Background", "Foreground"
};

// What rest.BeforeDelete decides. `graceful`: the object was marked
// (deletionTimestamp, deletionGracePeriodSeconds) and is written before it
// goes; `pending`: a graceful deletion is already under way and this
// request changes nothing.
struct BeforeDelete {
    bool graceful = false;
    bool pending = false;
};

// Mirrors rest.BeforeDelete after its precondition check. `grace` is the
// request's gracePeriodSeconds, updated as kube updates the options (a
// negative one is 1; the kind's CheckGracefulDelete fills it in; a pending
// deletion's own is taken). May set deletionTimestamp and
// deletionGracePeriodSeconds in `obj` and bump its generation.
BeforeDelete beforeDelete(const KindInfo& kind, json::Document& obj, std::optional<int64_t>& grace,
                          std::chrono::system_clock::time_point now);

// Mirrors markAsDeleting: a kind without graceful deletion whose object has
// finalizers is marked deleting now, with a grace period of 0.
void markAsDeleting(json::Document& obj, std::chrono::system_clock::time_point now);

// metadata.finalizers (strings only).
std::vector<std::string> finalizersOf(const json::Value& obj);
bool hasFinalizer(const json::Value& obj, std::string_view finalizer);
// Sets metadata.finalizers (removed when `finalizers` is empty).
void setFinalizers(json::Document& obj, const std::vector<std::string>& finalizers);

// Mirrors deletionFinalizersForGarbageCollection: the finalizers the object
// gets for the requested propagation (the orphan and foregroundDeletion
// finalizers added or removed), or nullopt when they stay as they are.
std::optional<std::vector<std::string>> finalizersForPropagation(const KindInfo& kind,
                                                                 const json::Value& obj,
                                                                 const Propagation& p);

// Mirrors ShouldDeleteDuringUpdate: an update that takes the last finalizer
// off an object being deleted with no grace period left deletes it instead.
bool shouldDeleteDuringUpdate(const json::Value& next, const json::Value& old);

// The deletion fields of ValidateObjectMetaUpdate: deletionTimestamp and
// deletionGracePeriodSeconds are immutable, and no finalizer may be added
// once the object is being deleted. Run on the new object after
// `keepDeletionFields`, as kube's rest.BeforeUpdate runs it.
std::vector<meta::StatusCause> validateDeletionUpdate(const json::Value& newMeta,
                                                      const json::Value& oldMeta);

// What rest.BeforeUpdate keeps of the stored object: its deletionTimestamp,
// and its deletionGracePeriodSeconds when the update carries none.
void keepDeletionFields(json::Value& newMeta, const json::Value& oldMeta, json::Allocator& a);

}  // namespace kube::registry
