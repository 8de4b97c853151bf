#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apis/meta/status.hpp"
#include "authn/user.hpp"
#include "endpoints/request_info.hpp"

namespace kube::server {

// One HTTP request as the module hands it to src/. Views point into nginx's
// request memory and stay valid until the response is delivered.
struct HttpRequest {
    std::string_view method;
    std::string_view path;   // decoded URI path
    std::string_view query;  // raw query string, without '?'
    std::string_view accept;
    std::string_view contentType;
    std::string_view userAgent;
    std::string_view host;  // "host:port" the client asked for
    std::string_view body;
    const endpoints::RequestInfo* info = nullptr;
    const authn::UserInfo* user = nullptr;
};

struct HttpResponse {
    int status = 200;
    std::string contentType;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;

    static HttpResponse json(int status, std::string body);
    // A Status answer, indented when `pretty`.
    static HttpResponse fromStatus(const meta::Status& s, bool pretty = false);
};

// Delivers the response; may be called inline or later on the loop.
using Responder = std::function<void(HttpResponse&&)>;

}  // namespace kube::server
