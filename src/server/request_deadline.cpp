#include "server/request_deadline.hpp"

#include <string>

#include "util/go_duration.hpp"
#include "util/query.hpp"

namespace kube::server {

bool isLongRunning(const endpoints::RequestInfo& info) {
    if (info.verb == "watch" || info.verb == "proxy") {
        return true;
    }
    const std::string& sub = info.subresource;
    return info.isResourceRequest && (sub == "attach" || sub == "exec" || sub == "proxy" ||
                                      sub == "log" || sub == "portforward");
}

RequestDeadline requestDeadline(const endpoints::RequestInfo& info, std::string_view query,
                                std::chrono::nanoseconds maximum) {
    RequestDeadline d;
    if (isLongRunning(info)) {
        d.longRunning = true;
        return d;
    }
    d.timeout = maximum;
    std::optional<std::string> value = util::Query::parse(query).get("timeout");
    if (!value || value->empty()) {
        return d;
    }
    std::string why;
    std::optional<std::chrono::nanoseconds> given = util::parseGoDuration(*value, &why);
    if (!given) {
        d.error = meta::Status::badRequest("invalid timeout specified in the request URL - " + why);
        return d;
    }
    if (given->count() > 0 && *given < maximum) {
        d.timeout = *given;
    }
    return d;
}

endpoints::HttpResponse timeoutResponse() {
    endpoints::HttpResponse r;
    r.status = 504;
    r.contentType = "text/plain; charset=utf-8";
    r.body =
        "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout: request did not complete "
        "within the allotted timeout\",\"reason\":\"Timeout\",\"details\":{},\"code\":504}\n";
    return r;
}

}  // namespace kube::server
