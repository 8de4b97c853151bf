#include "openapi/publisher.hpp"

#include <stdexcept>

#include "apis/meta/status.hpp"

namespace kube::openapi {

namespace {

Response internalError(std::string_view what) {
    Response r;
    r.status = 500;
    r.contentType = "application/json";
    r.body = meta::Status::internalError(what).toJson();
    return r;
}

}  // namespace

// A request waiting for the documents: its own copy of what it asked.
struct Publisher::Waiting {
    std::string path;
    std::string query;
    std::string accept;
    std::string ifNoneMatch;
    std::chrono::system_clock::time_point now;
    std::function<void(Response)> respond;
};

Publisher::Publisher(util::EventLoop& loop, std::string serverVersion)
    : loop_(loop), service_(std::move(serverVersion)) {}

Publisher::~Publisher() {
    *alive_ = false;
}

void Publisher::setRoutes(std::shared_ptr<const endpoints::RouteTable> routes) {
    service_.setRoutes(std::move(routes));
    if (!waiting_.empty()) {
        startBuild();  // after the one running, if any
    }
}

void Publisher::buildNow() {
    service_.build();
}

void Publisher::serve(const Request& req, std::function<void(Response)> respond) {
    if (service_.built()) {
        respond(service_.serve(req));
        return;
    }
    waiting_.push_back(Waiting{std::string(req.path), std::string(req.query),
                               std::string(req.accept), std::string(req.ifNoneMatch), req.now,
                               std::move(respond)});
    startBuild();
}

void Publisher::startBuild() {
    if (building_) {
        return;  // built() starts the next one
    }
    building_ = true;
    // The job holds the routes it reads (and they their kinds) until it is
    // done; it writes only its own result.
    struct Job {
        std::shared_ptr<const endpoints::RouteTable> routes;
        std::string serverVersion;
        std::shared_ptr<const Service::Built> docs;
        std::string failure;
    };
    auto job = std::make_shared<Job>(Job{service_.routes(), service_.serverVersion(), {}, {}});
    loop_.runBlocking(
        [job] {
            try {
                job->docs = Service::prepare(*job->routes, job->serverVersion);
            } catch (const std::exception& e) {
                job->failure = e.what();
            }
        },
        [this, alive = alive_, job] {
            if (!*alive) {
                return;
            }
            building_ = false;
            if (!job->docs) {
                // A defect of the schema, not of a request: those waiting
                // learn it; the next request tries again.
                std::vector<Waiting> waiting;
                waiting.swap(waiting_);
                for (Waiting& w : waiting) {
                    w.respond(internalError(job->failure));
                }
                return;
            }
            built(job->routes, job->docs);
        });
}

void Publisher::built(std::shared_ptr<const endpoints::RouteTable> routes,
                      std::shared_ptr<const Service::Built> docs) {
    if (!service_.install(routes.get(), std::move(docs))) {
        // The routes changed while it was built: build theirs.
        startBuild();
        return;
    }
    std::vector<Waiting> waiting;
    waiting.swap(waiting_);
    for (Waiting& w : waiting) {
        // Off the request's own call: what it would have caught comes here.
        Response r;
        try {
            r = service_.serve({w.path, w.query, w.accept, w.ifNoneMatch, w.now});
        } catch (const std::exception& e) {
            r = internalError(e.what());
        }
        w.respond(std::move(r));
    }
}

}  // namespace kube::openapi
