#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "apis/meta/status.hpp"
#include "endpoints/http.hpp"
#include "endpoints/request_info.hpp"

namespace kube::server {

// kube-apiserver's long-running requests (its LongRunningRequestCheck):
// the watch and proxy verbs, and the attach, exec, proxy, log and
// portforward subresources. They get no request timeout.
bool isLongRunning(const endpoints::RequestInfo& info);

// What WithRequestDeadline decides for one request.
struct RequestDeadline {
    // A long-running request has no deadline.
    bool longRunning = false;
    // The time the request has from its arrival: `maximum`, or a shorter
    // positive ?timeout= (zero, negative and longer ones get the maximum).
    std::chrono::nanoseconds timeout{0};
    // A ?timeout= that is no Go duration: 400, "invalid timeout specified in
    // the request URL - time: ...".
    std::optional<meta::Status> error;
};

RequestDeadline requestDeadline(const endpoints::RequestInfo& info, std::string_view query,
                                std::chrono::nanoseconds maximum);

// The 504 of WithTimeoutForNonLongRunningRequests, byte for byte: the Status
// without kind and apiVersion, a newline, and the type Go sniffs for it.
endpoints::HttpResponse timeoutResponse();

}  // namespace kube::server
