#include <random>

#include "endpoints/handlers/scope.hpp"
#include "endpoints/watch_stream.hpp"
#include "registry/validation.hpp"

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

// The watch's timeout as the handler computes it: timeoutSeconds (Go's
// ParseInt, a 400 otherwise) times a second in int64 nanoseconds, wrapping
// as Go's Duration does; zero (unset, 0, or a product that wraps to 0) is
// the default, a random time in [min, 2*min) so that clients do not all
// reconnect at once; a negative one has already run out.
std::optional<std::chrono::nanoseconds> watchTimeout(const util::Query& q,
                                                     std::chrono::seconds minTimeout,
                                                     meta::Status* error) {
    int64_t ns = 0;
    if (auto t = q.get("timeoutSeconds")) {
        std::string why;
        std::optional<int64_t> n = util::Query::parseInt(*t, &why);
        if (!n) {
            *error = meta::Status::badRequest("strconv.ParseInt: parsing " +
                                              registry::validation::goQuote(*t) + ": " + why);
            return std::nullopt;
        }
        ns = static_cast<int64_t>(static_cast<uint64_t>(*n) * 1000000000u);
    }
    if (ns != 0) {
        return std::chrono::nanoseconds(ns);
    }
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
    // The query's integers are converted before the selectors are parsed.
    int64_t limit = 0;
    std::optional<std::chrono::nanoseconds> timeout;
    if (!parseListIntegers(q, &limit, &err) ||
        !(timeout = watchTimeout(q, minRequestTimeout, &err)) ||
        !registry::parseSelectors(s->store.kind(), q.get("labelSelector").value_or(""),
                                  fieldSelector, selectors, &err)) {
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
            causes.push_back(
                {"FieldValueNotSupported",
                 "Unsupported value: \"" + match + "\": supported values: \"NotOlderThan\"",
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
    start.timeout = std::chrono::ceil<std::chrono::milliseconds>(*timeout);
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
    HttpResponse resp;
    resp.status = 200;
    resp.contentType = std::string(
        s->render.output.form == OutputForm::Protobuf ? kProtobufWatchMediaType : kJsonMediaType);
    resp.compressible = false;
    if (timeout->count() < 0) {
        // Over before it began: kube's watch ends at once, before (or racing)
        // its first event.
        s->respond(std::move(resp));
        return;
    }
    std::string scope = s->store.selectionPrefix(s->info.namespace_, selectors.fieldSelector);
    auto stream =
        std::make_shared<WatchStream>(s->store.loop(), cacher, *cache, s->store.kind(),
                                      std::move(scope), std::move(selectors), s->render, start);
    stream->setStoredDecoding(s->store.storedDecoding());
    resp.stream = std::move(stream);
    s->respond(std::move(resp));
}

}  // namespace kube::endpoints
