#pragma once

#include <optional>
#include <string_view>

#include "apis/meta/status.hpp"
#include "registry/store.hpp"
#include "util/query.hpp"

// The metav1.DeleteOptions of a DELETE, read as handlers/delete.go reads them
// for one object and for a collection alike.
namespace kube::endpoints {

// A non-empty body is the options (JSON, YAML or protobuf, as `contentType`
// says) and the query's options are then ignored; an empty body takes them
// from the query (dryRun, gracePeriodSeconds, orphanDependents,
// propagationPolicy). Then ValidateDeleteOptions. Failures answer as kube
// does: 415 for an unknown Content-Type, 400 for a query value that does not
// parse, 422 (DeleteOptions.meta.k8s.io) for invalid options, and a plain
// 500 with the decoder's message for a body that is not DeleteOptions.
std::optional<registry::DeleteOptions> readDeleteOptions(std::string_view body,
                                                         std::string_view contentType,
                                                         const util::Query& query,
                                                         meta::Status* error);

}  // namespace kube::endpoints
