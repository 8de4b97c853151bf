#pragma once

// A started server on the fake loop and memory storage that answers one
// request at a time, as the module hands it one (the kinds' unit tests).
// Include cmocka before this header: a request without an answer fails the
// test.
#include <memory>
#include <optional>
#include <string>

#include "endpoints/request_info.hpp"
#include "fake_loop.hpp"
#include "server/server.hpp"
#include "storage/memory/memory_store.hpp"

namespace kube::testing {

struct ServedServer {
    FakeLoop loop;
    storage::memory::Store memory{loop};
    server::Server server{loop, memory};
    std::string userAgent;  // the requests' User-Agent (managedFields' manager)

    ServedServer() {
        server.start();
        loop.run();
    }
    // A server with `options` (rbacPolicyOwner: the worker that runs the controllers).
    explicit ServedServer(server::ServerOptions options) : server{loop, memory, options} {
        server.start();
        loop.run();
    }

    endpoints::HttpResponse send(const std::string& method, const std::string& url,
                                 const std::string& body = "",
                                 const std::string& contentType = "application/json",
                                 const std::string& accept = "application/json",
                                 const authn::UserInfo* user = nullptr) {
        size_t mark = url.find('?');
        std::string path = url.substr(0, mark);
        std::string query = mark == std::string::npos ? "" : url.substr(mark + 1);
        auto info = std::make_shared<endpoints::RequestInfo>(
            endpoints::resolveRequestInfo(method, path, query));
        endpoints::HttpRequest req;
        req.method = method;
        req.path = path;
        req.query = query;
        req.accept = accept;
        req.contentType = contentType;
        req.userAgent = userAgent;
        req.host = "127.0.0.1:6443";
        req.body = body;
        req.info = info.get();
        req.user = user;
        auto out = std::make_shared<std::optional<endpoints::HttpResponse>>();
        server.serve(req, [out](endpoints::HttpResponse&& r) { *out = std::move(r); });
        loop.run();
        if (!*out) {
            fail_msg("%s %s: no response", method.c_str(), url.c_str());
        }
        return std::move(**out);
    }
};

}  // namespace kube::testing
