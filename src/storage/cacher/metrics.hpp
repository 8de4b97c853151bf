#pragma once

#include <string>

#include "storage/cacher/cacher.hpp"

namespace kube::storage::cacher {

// What this worker's watch caches hold, in the Prometheus text format, per
// resource; mirrors k8s.io/apiserver/pkg/storage/cacher/metrics, with the
// byte counts that our history limits need beside kube's event counters.
// Each worker keeps its own caches, fed by the same change feed: a scrape
// reports the worker that answered it.
std::string metricsText(const Cacher& cacher);

}  // namespace kube::storage::cacher
