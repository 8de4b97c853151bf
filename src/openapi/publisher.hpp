#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "endpoints/route_table.hpp"
#include "openapi/service.hpp"
#include "util/event_loop.hpp"

namespace kube::openapi {

// A worker's OpenAPI documents kept up to date without building them on the
// loop: after the routes change, the documents of the new routes are built
// on a thread when next asked for (tens of milliseconds with the built-in
// kinds alone, more with large CRDs installed; kube-openapi too builds its
// documents lazily) and swapped in when done. Requests that arrive
// meanwhile are answered once they are, so that an answer always describes
// every kind served when it was asked, and is never built in part; changes
// made while a build runs are built together next. Not thread-safe (one per
// worker, used on its loop).
class Publisher {
  public:
    Publisher(util::EventLoop& loop, std::string serverVersion);
    ~Publisher();

    Publisher(const Publisher&) = delete;
    Publisher& operator=(const Publisher&) = delete;

    // The routes the documents describe from now on; their documents are
    // built when asked for (at once when requests wait).
    void setRoutes(std::shared_ptr<const endpoints::RouteTable> routes);

    // Builds the documents of the current routes now, on the loop: for a
    // worker's start, before it serves.
    void buildNow();

    // Answers an OpenAPI request (Service::serve) through `respond`: at once
    // when the documents of the current routes are built, else once they are.
    void serve(const Request& req, std::function<void(Response)> respond);

    // Whether the documents of the current routes are built.
    bool current() const { return service_.built(); }

  private:
    struct Waiting;

    void startBuild();
    void built(std::shared_ptr<const endpoints::RouteTable> routes,
               std::shared_ptr<const Service::Built> docs);

    util::EventLoop& loop_;
    Service service_;
    bool building_ = false;
    std::vector<Waiting> waiting_;
    // Shared with the build in flight, which finds it false once the
    // publisher is gone.
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::openapi
