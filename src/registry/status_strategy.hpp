#pragma once

#include "registry/kind.hpp"
#include "util/json.hpp"

// The status subresource (<resource>/<name>/status): reads the object, and
// writes only its status. Mirrors what every kind's StatusStrategy shares.
namespace kube::registry {

// How a kind lists its status subresource: its own kind; get, patch, update.
SubresourceInfo statusSubresource();

// Mirrors StatusStrategy.PrepareForUpdate: `obj` (the requested object, its
// server-owned metadata already carried over) keeps its metadata and status;
// everything else is the stored object's (`new.Spec = old.Spec`); then the
// kind's prepareForStatusUpdate resets what else it protects, or `sub`'s
// prepareForUpdate for another subresource with a strategy of its own.
void prepareForStatusUpdate(const KindInfo& kind, util::json::Document& obj,
                            const util::json::Value& old, const StatusUpdateContext& ctx,
                            const SubresourceInfo* sub = nullptr);

}  // namespace kube::registry
