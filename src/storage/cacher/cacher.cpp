#include "storage/cacher/cacher.hpp"

#include <algorithm>
#include <vector>

#include "storage/event.hpp"

namespace kube::storage::cacher {

namespace {

// "/registry/<resource>/" of a key "/registry/<resource>/[<ns>/]<name>", and
// "/registry/<group>/<resource>/" of a custom resource's: a folder whose name
// holds a dot is a group (resources never hold one).
std::string_view resourcePrefix(std::string_view key) {
    constexpr std::string_view root = "/registry/";
    if (!key.starts_with(root)) {
        return {};
    }
    size_t slash = key.find('/', root.size());
    if (slash != std::string_view::npos &&
        key.substr(root.size(), slash - root.size()).find('.') != std::string_view::npos) {
        slash = key.find('/', slash + 1);
    }
    return slash == std::string_view::npos ? std::string_view() : key.substr(0, slash + 1);
}

// "<resource>" of a prefix "/registry/<resource>/".
std::string_view resourceOf(std::string_view prefix) {
    constexpr std::string_view root = "/registry/";
    if (!prefix.starts_with(root) || !prefix.ends_with('/') || prefix.size() <= root.size()) {
        return prefix;
    }
    return prefix.substr(root.size(), prefix.size() - root.size() - 1);
}

}  // namespace

Cacher::Cacher(Interface& storage, util::EventLoop& loop, ReviseFunc revise, HistoryLimits limits)
    : storage_(storage),
      loop_(loop),
      revise_(std::move(revise)),
      limits_(limits),
      seen_(storage.currentRevision()),
      alive_(std::make_shared<bool>(true)) {}

Cacher::~Cacher() {
    *alive_ = false;
}

WatchCache* Cacher::find(std::string_view prefix) {
    auto it = caches_.find(prefix);
    return it == caches_.end() ? nullptr : it->second.get();
}

WatchCache* Cacher::cache(const std::string& prefix, Error* error, std::string_view resource) {
    if (auto it = caches_.find(prefix); it != caches_.end()) {
        return it->second.get();
    }
    // Caught up first, so the new cache's fill is no older than the rest.
    *error = sync();
    if (!error->ok()) {
        return nullptr;
    }
    auto c = std::make_unique<WatchCache>(
        prefix, std::string(resource.empty() ? resourceOf(prefix) : resource), revise_,
        limits_.resourceBytes);
    *error = refill(*c);
    if (!error->ok()) {
        return nullptr;
    }
    return caches_.emplace(prefix, std::move(c)).first->second.get();
}

Error Cacher::refill(WatchCache& cache) {
    Error result{ErrorCode::Internal, "the store did not answer a list inline"};
    ListOptions opts;
    opts.prefix = cache.prefix();
    storage_.list(opts, [&](const Error& err, const ListResult& res) {
        result = err;
        if (err.ok()) {
            historyBytes_ -= cache.historyBytes();  // the reset drops the history
            cache.reset(std::vector<ObjectView>(res.items.begin(), res.items.end()), res.revision);
        }
    });
    return result;
}

void Cacher::poll() {
    bool more = false;
    // A failed read is retried by the next poll (wake-up or safety poll).
    step(&more);
    if (!more || pollPosted_) {
        return;
    }
    pollPosted_ = true;
    loop_.post([this, alive = alive_] {
        if (*alive) {
            pollPosted_ = false;
            poll();
        }
    });
}

Error Cacher::sync() {
    bool more = true;
    while (more) {
        Error err = step(&more);
        if (!err.ok()) {
            return err;
        }
    }
    return {};
}

Error Cacher::step(bool* more) {
    *more = false;
    Error result{ErrorCode::Internal, "the store did not answer a history read inline"};
    Revision last = seen_;
    storage_.history(seen_, kChunk, [&](const Error& err, std::span<const Event> events) {
        result = err;
        if (!err.ok()) {
            return;
        }
        auto now = std::chrono::steady_clock::now();
        for (const Event& e : events) {
            std::string_view prefix = resourcePrefix(e.key);
            if (auto it = caches_.find(prefix); it != caches_.end()) {
                WatchCache& c = *it->second;
                historyBytes_ -= c.historyBytes();
                c.apply(e, now);
                historyBytes_ += c.historyBytes();
                trimToLimit();
            }
            last = e.revision;
        }
        // A backend may return more, to keep one revision's events together.
        *more = events.size() >= kChunk;
    });
    if (result.code == ErrorCode::Compacted) {
        // This worker fell behind the compaction: refill every cache from the
        // store; their watchers end and their clients watch again.
        resetAll();
        return {};
    }
    if (!result.ok()) {
        return result;
    }
    seen_ = std::max(seen_, last);
    for (auto& [prefix, c] : caches_) {
        c->advance(seen_);
    }
    return {};
}

void Cacher::trimToLimit() {
    while (historyBytes_ > limits_.workerBytes) {
        WatchCache* oldest = nullptr;
        for (auto& [prefix, c] : caches_) {
            if (c->historyEvents() > 0 && (!oldest || c->oldestEvent() < oldest->oldestEvent())) {
                oldest = c.get();
            }
        }
        if (!oldest) {
            return;
        }
        historyBytes_ -= oldest->historyBytes();
        oldest->trimOldest();
        historyBytes_ += oldest->historyBytes();
    }
}

void Cacher::forEachCache(const std::function<void(const WatchCache&)>& fn) const {
    for (const auto& [prefix, c] : caches_) {
        fn(*c);
    }
}

void Cacher::resetAll() {
    Revision oldest = 0;
    bool first = true;
    for (auto& [prefix, c] : caches_) {
        if (refill(*c).ok()) {
            oldest = first ? c->revision() : std::min(oldest, c->revision());
            first = false;
        }
    }
    seen_ = first ? storage_.currentRevision() : oldest;
}

}  // namespace kube::storage::cacher
