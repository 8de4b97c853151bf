#pragma once

#include <string>

#include "apis/core/field_errors.hpp"
#include "util/json.hpp"

// The JobSpec checks Jobs and CronJobs' jobTemplates share.
namespace kube::apis::batch {

namespace json = util::json;
namespace field = core::field;

// Mirrors validateJobSpec minus the selector: non-negative counts, a known
// completionMode, and a valid pod template that restarts OnFailure or Never.
// `path` is where the JobSpec sits ("spec", "spec.jobTemplate.spec").
void validateJobSpec(const json::Value* spec, const std::string& path, field::Causes& out);

}  // namespace kube::apis::batch
