#include <charconv>
#include <random>

#include "endpoints/handlers/scope.hpp"
#include "endpoints/watch_stream.hpp"

namespace kube::endpoints {

namespace {

// Go's strconv.ParseBool, which the query decoder uses.
std::optional<bool> parseBool(std::string_view v) {
    for (std::string_view t : {"1", "t", "T", "true", "TRUE", "True"}) {
        if (v == t) {
            return true;
        }
    }
    for (std::string_view f : {"0", "f", "F", "false", "FALSE", "False"}) {
        if (v == f) {
            return false;
        }
    }
    return std::nullopt;
}

meta::Status invalidWatchOptions(std::vector<meta::StatusCause> causes) {
    return meta::Status::invalid({"meta.k8s.io", "ListOptions"}, "", std::move(causes));
}

std::chrono::milliseconds watchTimeout(const util::Query& q, std::chrono::seconds minTimeout,
                                       meta::Status* error, bool* ok) {
    *ok = true;
    if (auto t = q.get("timeoutSeconds"); t && !t->empty()) {
        long long n = 0;
        auto [end, ec] = std::from_chars(t->data(), t->data() + t->size(), n);
        if (ec != std::errc() || end != t->data() + t->size()) {
            *error = meta::Status::badRequest("invalid value for timeoutSeconds: " + *t);
            *ok = false;
            return {};
        }
        if (n > 0) {
            return std::chrono::seconds(n);
        }
    }
    // Mirrors the handler's default: a random time in [min, 2*min), so that
    // clients do not all reconnect at once.
    static thread_local std::minstd_rand rng{std::random_device{}()};
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(minTimeout);
    std::uniform_int_distribution<long long> spread(0, std::max<long long>(ms.count() - 1, 0));
    return ms + std::chrono::milliseconds(spread(rng));
}

}  // namespace

// Mirrors handlers.ListResource for watches and the cacher's Watch.
void watchResource(Scope s, std::chrono::seconds minRequestTimeout) {
    const util::Query& q = s->query;
    registry::ListOptions selectors;
    meta::Status err;
    std::string fieldSelector = q.get("fieldSelector").value_or("");
    if (!s->info.name.empty() && !q.has("fieldSelector")) {
        // /watch/namespaces/<ns>/<resource>/<name>: the one object.
        fieldSelector = "metadata.name=" + s->info.name;
    }
    if (!registry::parseSelectors(s->store.kind(), q.get("labelSelector").value_or(""),
                                  fieldSelector, selectors, &err)) {
        s->fail(err);
        return;
    }
    bool timeoutOk = true;
    std::chrono::milliseconds timeout = watchTimeout(q, minRequestTimeout, &err, &timeoutOk);
    if (!timeoutOk) {
        s->fail(err);
        return;
    }
    std::optional<bool> sendInitialEvents;
    if (auto v = q.get("sendInitialEvents")) {
        sendInitialEvents = parseBool(*v);
        if (!sendInitialEvents) {
            s->fail(meta::Status::badRequest("invalid value for sendInitialEvents: " + *v));
            return;
        }
    }
    bool bookmarks = parseBool(q.get("allowWatchBookmarks").value_or("")).value_or(false);
    std::string rv = q.get("resourceVersion").value_or("");
    std::string match = q.get("resourceVersionMatch").value_or("");
    // Mirrors validateWatchOptions.
    std::vector<meta::StatusCause> causes;
    if (sendInitialEvents && match != "NotOlderThan") {
        causes.push_back({"FieldValueForbidden",
                          "Forbidden: sendInitialEvents requires setting resourceVersionMatch to "
                          "NotOlderThan",
                          "resourceVersionMatch"});
    }
    if (!match.empty()) {
        if (!sendInitialEvents) {
            causes.push_back({"FieldValueForbidden",
                              "Forbidden: resourceVersionMatch is forbidden for watch unless "
                              "sendInitialEvents is provided",
                              "resourceVersionMatch"});
        }
        if (match != "NotOlderThan") {
            causes.push_back({"FieldValueNotSupported",
                              "Unsupported value: \"" + match +
                                  "\": supported values: \"NotOlderThan\"",
                              "resourceVersionMatch"});
        }
        if (q.has("continue")) {
            causes.push_back({"FieldValueForbidden",
                              "Forbidden: resourceVersionMatch is forbidden when continue is "
                              "provided",
                              "resourceVersionMatch"});
        }
    }
    if (!causes.empty()) {
        s->fail(invalidWatchOptions(std::move(causes)));
        return;
    }
    storage::Revision revision = 0;
    if (!registry::parseResourceVersion(rv, &revision, &err)) {
        s->fail(err);
        return;
    }
    storage::cacher::WatchCache* cache = s->store.watchCache(&err);
    if (!cache) {
        s->fail(err);
        return;
    }
    storage::cacher::Cacher& cacher = *s->store.cacher();
    WatchStart start;
    start.bookmarks = bookmarks;
    start.timeout = timeout;
    bool legacyInitial = !sendInitialEvents && (rv.empty() || revision == 0);
    start.initialEvents = legacyInitial || sendInitialEvents.value_or(false);
    start.initialEventsEnd = sendInitialEvents.value_or(false) && bookmarks;
    // An unset resourceVersion reads the latest state; "0" any state.
    if (rv.empty() || revision > cache->revision()) {
        storage::Error serr = cacher.sync();
        if (!serr.ok()) {
            s->fail(meta::Status::internalError(serr.message));
            return;
        }
    }
    if (sendInitialEvents && revision > cache->revision()) {
        s->fail(registry::tooLargeResourceVersion(revision, cache->revision()));
        return;
    }
    if (!start.initialEvents) {
        // sendInitialEvents=false without a resourceVersion starts now.
        start.revision = rv.empty() ? cache->revision() : revision;
    }
    std::string scope = s->store.selectionPrefix(s->info.namespace_, selectors.fieldSelector);
    auto stream = std::make_shared<WatchStream>(s->store.loop(), cacher, *cache, s->store.kind(),
                                                std::move(scope), std::move(selectors), s->render,
                                                start);
    server::HttpResponse resp;
    resp.status = 200;
    resp.contentType = std::string(s->render.output.form == OutputForm::Protobuf
                                       ? kProtobufWatchMediaType
                                       : kJsonMediaType);
    resp.stream = std::move(stream);
    resp.compressible = false;
    s->respond(std::move(resp));
}

}  // namespace kube::endpoints
