#pragma once

#include <memory>
#include <string_view>

#include "endpoints/request_info.hpp"
#include "flowcontrol/decision.hpp"

namespace kube::flowcontrol {

// Mirrors filters.WithMaxInFlightLimit on the dispatcher's levels: two
// levels without queues, one for the read-only verbs (get, list, watch) and
// one for the others; a request over its level's limit is refused at once.
// A limit of 0 is no limit, as in kube.
inline constexpr std::string_view kReadOnlyLevel = "max-in-flight/readonly";
inline constexpr std::string_view kMutatingLevel = "max-in-flight/mutating";

std::shared_ptr<const Configuration> maxInFlightConfiguration(int readOnlyLimit, int mutatingLimit);

// kube's nonMutatingRequestVerbs: get, list and watch are read-only.
bool isMutatingVerb(std::string_view verb);

// Mirrors BasicLongRunningRequestCheck(sets {watch, proxy}, sets {attach,
// exec, proxy, log, portforward}): such requests hold no seat.
bool isLongRunning(const endpoints::RequestInfo& info);

// The message and Retry-After of kube's tooManyRequests().
inline constexpr std::string_view kTooManyRequestsMessage =
    "Too many requests, please try again later.";
inline constexpr int kRetryAfterSeconds = 1;

// kube's requestWaitLimit: the request timeout (60 s) over 4.
inline constexpr int kRequestWaitLimitMs = 15000;

}  // namespace kube::flowcontrol
