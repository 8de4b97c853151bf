#include "endpoints/http.hpp"

namespace kube::endpoints {

HttpResponse HttpResponse::json(int status, std::string body) {
    HttpResponse r;
    r.status = status;
    r.contentType = "application/json";
    r.body = std::move(body);
    return r;
}

HttpResponse HttpResponse::fromStatus(const meta::Status& s, bool pretty) {
    HttpResponse r = json(s.code, s.toJson(pretty));
    if (s.details && s.details->retryAfterSeconds > 0) {
        r.headers.emplace_back("Retry-After", std::to_string(s.details->retryAfterSeconds));
    }
    return r;
}

std::string_view trimOws(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

}  // namespace kube::endpoints
