#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "apis/meta/status.hpp"
#include "registry/kind.hpp"
#include "util/json.hpp"

namespace kube::registry {

// The object's metadata, created as {} when absent.
json::Value& ensureMetadata(json::Document& obj);

// Server-owned metadata of a new object; mirrors rest.BeforeCreate: the
// namespace from the request, a name from generateName, uid,
// creationTimestamp, generation 1 for kinds that track it, no deletion
// fields.
void prepareObjectMetaForCreate(const KindInfo& kind, json::Document& obj, std::string_view ns,
                                std::chrono::system_clock::time_point now);

// Carries the server-owned metadata of `old` over to the replacement `obj`;
// mirrors rest.BeforeUpdate. A request that contradicts it (another uid or
// name) gets its Status back. A patch's uid is no precondition: one that
// differs is kept, for validation to refuse as immutable.
std::optional<meta::Status> prepareObjectMetaForUpdate(const KindInfo& kind, json::Document& obj,
                                                      const json::Value& old,
                                                      std::string_view name, bool patch = false);

}  // namespace kube::registry
