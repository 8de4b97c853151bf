#include "server/health.hpp"

#include <algorithm>
#include <set>

#include "util/json.hpp"
#include "util/query.hpp"

namespace kube::server {

namespace {

constexpr std::string_view kPlainText = "text/plain; charset=utf-8";

struct ProbePath {
    std::string_view root;
    unsigned probe;
};

const ProbePath kProbes[] = {
    {"/healthz", kHealthz},
    {"/livez", kLivez},
    {"/readyz", kReadyz},
};

endpoints::HttpResponse plain(int status, std::string body, bool nosniff) {
    endpoints::HttpResponse r;
    r.status = status;
    r.contentType = kPlainText;
    r.body = std::move(body);
    if (nosniff) {
        r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    }
    return r;
}

// Go's http.Error: the text and a newline, never sniffed.
endpoints::HttpResponse httpError(int status, std::string text) {
    return plain(status, std::move(text) + "\n", true);
}

}  // namespace

HealthChecks::HealthChecks()
    : shutdown_{"shutdown", [] { return std::string(); }, kReadyz} {}

void HealthChecks::add(std::string name, Check check, unsigned probes) {
    checks_.push_back(Entry{std::move(name), std::move(check), probes});
}

std::function<void()> HealthChecks::addPostStartHook(std::string name) {
    auto finished = std::make_shared<bool>(false);
    add("poststarthook/" + name, [finished] {
        return *finished ? std::string() : std::string("not finished");
    });
    return [finished] { *finished = true; };
}

void HealthChecks::setShutdownSignal(std::function<bool()> shuttingDown) {
    shutdown_.check = [shuttingDown = std::move(shuttingDown)] {
        return shuttingDown() ? std::string("process is shutting down") : std::string();
    };
}

bool HealthChecks::handles(std::string_view path) {
    return std::any_of(std::begin(kProbes), std::end(kProbes), [path](const ProbePath& p) {
        return path == p.root || (path.starts_with(p.root) && path.size() > p.root.size() &&
                                  path[p.root.size()] == '/');
    });
}

std::vector<const HealthChecks::Entry*> HealthChecks::checksOf(unsigned probe) const {
    std::vector<const Entry*> out;
    for (const Entry& e : checks_) {
        if (e.probes & probe) {
            out.push_back(&e);
        }
    }
    if (shutdown_.probes & probe) {
        out.push_back(&shutdown_);
    }
    return out;
}

bool HealthChecks::ready() const {
    for (const Entry* e : checksOf(kReadyz)) {
        if (!e->check().empty()) {
            return false;
        }
    }
    return true;
}

endpoints::HttpResponse HealthChecks::serve(std::string_view path, std::string_view query) const {
    for (const ProbePath& p : kProbes) {
        if (path == p.root) {
            return serveProbe(p.probe, p.root.substr(1), query);
        }
        if (path.starts_with(p.root) && path.size() > p.root.size() &&
            path[p.root.size()] == '/') {
            std::string_view name = path.substr(p.root.size() + 1);
            for (const Entry* e : checksOf(p.probe)) {
                if (e->name != name) {
                    continue;
                }
                std::string why = e->check();
                if (!why.empty()) {
                    return httpError(500, "internal server error: " + why);
                }
                return plain(200, "ok", false);
            }
            break;
        }
    }
    return httpError(404, "404 page not found");
}

// Mirrors handleRootHealth: every check runs unless excluded; a failure
// answers 500 with every line (its reason withheld); excludes that match no
// check are warned about, sorted.
endpoints::HttpResponse HealthChecks::serveProbe(unsigned probe, std::string_view name,
                                      std::string_view query) const {
    util::Query q = util::Query::parse(query);
    std::vector<std::string> excludes = q.values("exclude");
    std::set<std::string, std::less<>> excluded(excludes.begin(), excludes.end());
    std::string lines;
    bool failed = false;
    for (const Entry* e : checksOf(probe)) {
        auto it = excluded.find(e->name);
        if (it != excluded.end()) {
            excluded.erase(it);
            lines += "[+]" + e->name + " excluded: ok\n";
            continue;
        }
        if (!e->check().empty()) {
            lines += "[-]" + e->name + " failed: reason withheld\n";
            failed = true;
        } else {
            lines += "[+]" + e->name + " ok\n";
        }
    }
    if (!excluded.empty()) {
        lines += "warn: some health checks cannot be excluded: no matches for ";
        bool first = true;
        for (const std::string& n : excluded) {
            if (!first) {
                lines += ',';
            }
            first = false;
            util::json::appendQuoted(lines, n);
        }
        lines += '\n';
    }
    if (failed) {
        return httpError(500, lines + std::string(name) + " check failed");
    }
    if (!q.has("verbose")) {
        return plain(200, "ok", true);
    }
    return plain(200, lines + std::string(name) + " check passed\n", true);
}

}  // namespace kube::server
