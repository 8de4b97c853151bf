#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "endpoints/http.hpp"

namespace kube::server {

// The endpoints a health check is part of (kube installs its checks on
// /healthz and /livez alike, and on /readyz with the readiness-only ones).
enum HealthProbes : unsigned {
    kHealthz = 1,
    kLivez = 2,
    kReadyz = 4,
    kAllProbes = kHealthz | kLivez | kReadyz,
};

// The named checks of /healthz, /livez and /readyz, mirroring kube's
// healthz package: each endpoint runs its checks in the order they were
// added, `?verbose` lists them, `?exclude=<name>` skips one, and
// /<endpoint>/<name> runs one. Parts of the server add their own checks
// (a PostStartHook for a bootstrap they run at start). One per worker:
// each worker answers for itself.
class HealthChecks {
  public:
    // A check: "" when healthy, else why not (for /<endpoint>/<name>; the
    // endpoint itself withholds the reason, as kube's does).
    using Check = std::function<std::string()>;

    HealthChecks();

    // Adds a check to the endpoints in `probes` (HealthProbes bits).
    void add(std::string name, Check check, unsigned probes = kAllProbes);

    // kube's PostStartHook check, "poststarthook/<name>" on every endpoint:
    // "not finished" until the returned function is called (it may outlive
    // this registry).
    std::function<void()> addPostStartHook(std::string name);

    // /readyz's last check, "shutdown": fails once `shuttingDown` is true
    // (kube's fails when the server begins its graceful termination).
    void setShutdownSignal(std::function<bool()> shuttingDown);

    // Whether `path` is /healthz, /livez or /readyz, or below one of them.
    static bool handles(std::string_view path);

    // Answers a GET of `path` (handles() is true) with `query` (raw).
    endpoints::HttpResponse serve(std::string_view path, std::string_view query) const;

    // Every check of /readyz passes.
    bool ready() const;

  private:
    struct Entry {
        std::string name;
        Check check;
        unsigned probes;
    };

    std::vector<const Entry*> checksOf(unsigned probe) const;
    endpoints::HttpResponse serveProbe(unsigned probe, std::string_view name,
                                       std::string_view query) const;

    std::vector<Entry> checks_;
    Entry shutdown_;
};

}  // namespace kube::server
