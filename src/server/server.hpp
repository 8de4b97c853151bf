#pragma once

#include <map>
#include <memory>
#include <string_view>

#include "admission/namespace_lifecycle.hpp"
#include "endpoints/discovery.hpp"
#include "registry/scheme.hpp"
#include "registry/store.hpp"
#include "server/http.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"

namespace kube::server {

// What the director does with a path (mirrors kube-apiserver's director plus
// its non-resource mux).
enum class Route {
    None,         // not ours: the rest of nginx serves it
    Api,          // /api, /apis and below: discovery and resources
    NonResource,  // /version, /healthz, /livez, /readyz
};

Route routeFor(std::string_view path);

// The embedded API server of one nginx worker: the REST dispatcher over the
// registry of built-in kinds, their stores and discovery.
class Server {
  public:
    Server(util::EventLoop& loop, storage::Interface& storage);

    // Answers one request the director routed here. `req.info` and
    // `req.user` are set (authentication and authorization already ran).
    // `respond` is called exactly once, inline or later on the loop.
    void serve(const HttpRequest& req, Responder respond);

    // Creates default, kube-system, kube-public and kube-node-lease if
    // missing; the server is ready once that is done.
    void start();
    bool ready() const { return ready_; }

    const registry::Scheme& scheme() const { return scheme_; }

  private:
    void serveApi(const HttpRequest& req, Responder respond);
    void serveResource(const HttpRequest& req, Responder respond);
    void serveNonResource(const HttpRequest& req, Responder respond);
    bool serveDiscovery(const HttpRequest& req, const Responder& respond);

    util::EventLoop& loop_;
    storage::Interface& storage_;
    registry::Scheme scheme_;
    endpoints::Discovery discovery_;
    std::map<const registry::KindInfo*, std::unique_ptr<registry::Store>> stores_;
    std::unique_ptr<admission::NamespaceLifecycle> namespaces_;
    int startsPending_ = 0;
    bool ready_ = false;
};

}  // namespace kube::server
