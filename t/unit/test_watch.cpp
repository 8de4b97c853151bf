// The watch cache, its change feed and the watch stream, over the memory
// backend with a fake loop and a fake connection.

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "endpoints/list_stream.hpp"
#include "endpoints/watch_stream.hpp"
#include "fake_loop.hpp"
#include "registry/encoding.hpp"
#include "registry/scheme.hpp"
#include "registry/store.hpp"
#include "storage/cacher/cacher.hpp"
#include "storage/cacher/follower.hpp"
#include "storage/cacher/metrics.hpp"
#include "storage/compactor.hpp"
#include "storage/memory/memory_store.hpp"
#include "util/json.hpp"

// cmocka last: its fail() macro breaks standard headers included after it.
// clang-format off
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}
// clang-format on

namespace json = kube::util::json;
namespace registry = kube::registry;
namespace storage = kube::storage;
namespace endpoints = kube::endpoints;
using kube::meta::Status;
using kube::testing::FakeLoop;
using storage::cacher::WatchCache;
using namespace std::string_literals;

namespace {

constexpr const char* kPrefix = "/registry/configmaps/";

// A connection: records what the stream sends; `buffered` is what the test
// says the socket has not taken yet.
class FakeSink : public kube::endpoints::StreamSink {
  public:
    bool send(std::span<kube::endpoints::StreamPart> parts) override {
        if (finished) {
            return false;
        }
        std::string bytes;
        for (const kube::endpoints::StreamPart& part : parts) {
            bytes.append(part.bytes);
            views.push_back(part.bytes);
            owners.push_back(part.owner);
        }
        lines.push_back(std::move(bytes));
        return true;
    }
    size_t buffered() const override { return unsent; }
    void finish() override { finished = true; }

    std::vector<std::string> lines;
    // Every part as sent, and what kept it alive.
    std::vector<std::string_view> views;
    std::vector<std::shared_ptr<const void>> owners;
    size_t unsent = 0;
    bool finished = false;
};

struct Line {
    std::string type;
    std::string name;
    std::string resourceVersion;
    std::string annotation;  // k8s.io/initial-events-end
    std::string message;     // ERROR's Status message
    int code = 0;
};

Line parseLine(const std::string& text) {
    assert_true(!text.empty() && text.back() == '\n');
    json::Document d;
    if (auto err = json::parse(text, d)) {
        fail_msg("bad watch line (%s): %s", err->c_str(), text.c_str());
    }
    Line l;
    l.type = std::string(json::view(*json::member(d, "type")));
    const json::Value& o = *json::member(d, "object");
    auto str = [&o](std::initializer_list<std::string_view> path) {
        const json::Value* v = json::at(o, path);
        return v && v->IsString() ? std::string(json::view(*v)) : std::string();
    };
    l.name = str({"metadata", "name"});
    l.resourceVersion = str({"metadata", "resourceVersion"});
    l.annotation = str({"metadata", "annotations", "k8s.io/initial-events-end"});
    l.message = str({"message"});
    if (const json::Value* c = json::member(o, "code")) {
        l.code = c->GetInt();
    }
    return l;
}

struct Fixture {
    FakeLoop loop;
    storage::memory::Store memory{loop};
    registry::Scheme scheme;
    std::unique_ptr<registry::Store> configmaps;
    storage::cacher::Cacher cacher;

    explicit Fixture(storage::cacher::HistoryLimits limits = {})
        : cacher(memory, loop, registry::withResourceVersion, limits) {
        registry::addBuiltinKinds(scheme);
        configmaps =
            std::make_unique<registry::Store>(*scheme.find("", "v1", "configmaps"), memory, loop);
        configmaps->setCacher(&cacher, true);
    }

    // `pad` bytes of padding make the object larger.
    std::string write(const std::string& verb, std::string_view name,
                      std::string_view labels = "{}", size_t pad = 0) {
        std::string text =
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" +
            std::string(name) + "\",\"labels\":" + std::string(labels) + "},\"data\":{\"v\":\"" +
            verb + "\",\"pad\":\"" + std::string(pad, 'x') + "\"}}";
        auto doc = std::make_shared<json::Document>();
        assert_false(json::parse(text, *doc).has_value());
        std::string out;
        bool called = false;
        auto cb = [&](const Status* err, std::string_view obj) {
            called = true;
            if (err) {
                fail_msg("%s %s: %s", verb.c_str(), std::string(name).c_str(),
                         err->message.c_str());
            }
            out = std::string(obj);
        };
        if (verb == "create") {
            configmaps->create("ns", doc, {}, cb);
        } else {
            configmaps->update("ns", name, doc, {}, cb);
        }
        loop.run();
        assert_true(called);
        cacher.poll();
        return out;
    }

    void remove(std::string_view name) {
        bool called = false;
        configmaps->remove("ns", name, {}, [&](const Status* err, const registry::DeleteResult&) {
            called = true;
            assert_null(err);
        });
        loop.run();
        assert_true(called);
        cacher.poll();
    }

    WatchCache& cache() {
        storage::Error err;
        WatchCache* c = cacher.cache(kPrefix, &err);
        assert_non_null(c);
        return *c;
    }

    std::shared_ptr<endpoints::WatchStream> watch(FakeSink& sink, endpoints::WatchStart start,
                                                  std::string_view labelSelector = "") {
        registry::ListOptions selectors;
        Status err;
        assert_true(
            registry::parseSelectors(configmaps->kind(), labelSelector, "", selectors, &err));
        endpoints::RenderOptions render;
        render.kind = &configmaps->kind();
        if (start.timeout.count() == 0) {
            start.timeout = std::chrono::seconds(600);
        }
        auto s = std::make_shared<endpoints::WatchStream>(loop, cacher, cache(), configmaps->kind(),
                                                          "/registry/configmaps/ns/",
                                                          std::move(selectors), render, start);
        s->start(sink);
        loop.run();
        return s;
    }

    std::vector<std::string> names(const WatchCache::Page& page) {
        std::vector<std::string> out;
        for (const auto& o : page.items) {
            out.push_back(o->key.substr(o->key.rfind('/') + 1) + "@" +
                          std::to_string(o->modRevision));
        }
        return out;
    }
};

storage::Revision revisionOf(const std::string& object) {
    json::Document d;
    assert_false(json::parse(object, d).has_value());
    return std::stoull(std::string(json::view(*json::at(d, {"metadata", "resourceVersion"}))));
}

void assert_lines(const FakeSink& sink, std::vector<std::string> expected) {
    std::vector<std::string> got;
    for (const std::string& l : sink.lines) {
        Line p = parseLine(l);
        got.push_back(p.type + " " + p.name);
    }
    std::string g, e;
    for (auto& s : got) {
        g += s + "; ";
    }
    for (auto& s : expected) {
        e += s + "; ";
    }
    assert_string_equal(g.c_str(), e.c_str());
}

void cache_fills_on_first_use_and_follows_the_log(void**) {
    Fixture f;
    f.write("create", "a");
    f.write("create", "b");
    WatchCache& c = f.cache();
    WatchCache::Page page;
    assert_true(c.list(kPrefix, "", 0, nullptr, 0, &page));
    assert_int_equal(page.items.size(), 2);
    storage::Revision filled = c.revision();
    assert_int_equal(filled, f.memory.currentRevision());

    std::string a2 = f.write("update", "a");
    f.remove("b");
    assert_int_equal(c.revision(), f.memory.currentRevision());
    assert_true(c.list(kPrefix, "", 0, nullptr, 0, &page));
    assert_int_equal(page.items.size(), 1);
    assert_int_equal(page.items[0]->modRevision, revisionOf(a2));

    std::vector<storage::cacher::EventRef> events;
    assert_true(c.eventsAfter(filled, &events));
    assert_int_equal(events.size(), 2);
    assert_true(events[0]->type == storage::cacher::WatchEvent::Type::Modified);
    assert_non_null(events[0]->prev.get());
    assert_true(events[1]->type == storage::cacher::WatchEvent::Type::Deleted);
    // A DELETED object carries the deletion's revision.
    assert_int_equal(revisionOf(events[1]->object->bytes), events[1]->revision);
    // Before the fill the buffer knows nothing.
    assert_false(c.eventsAfter(filled - 1, &events));
}

void list_at_an_older_revision_undoes_later_changes(void**) {
    Fixture f;
    f.write("create", "before1");
    f.write("create", "before2");
    WatchCache& c = f.cache();
    f.remove("before1");
    f.remove("before2");
    std::string a = f.write("create", "a");
    std::string b = f.write("create", "b");
    storage::Revision then = c.revision();
    f.write("update", "a");
    f.remove("b");
    f.write("create", "c");

    WatchCache::Page page;
    assert_true(c.list(kPrefix, "", 0, nullptr, then, &page));
    auto old = f.names(page);
    assert_int_equal(old.size(), 2);
    assert_string_equal(old[0].c_str(), ("a@" + std::to_string(revisionOf(a))).c_str());
    assert_string_equal(old[1].c_str(), ("b@" + std::to_string(revisionOf(b))).c_str());
    assert_int_equal(page.revision, then);

    // Paging at that revision: limit 1 from the start, then from after "a".
    assert_true(c.list(kPrefix, "", 1, nullptr, then, &page));
    assert_int_equal(page.items.size(), 1);
    assert_true(page.more);
    assert_int_equal(page.remaining, 1);
    assert_true(c.list(kPrefix, std::string(kPrefix) + "ns/a\0"s, 1, nullptr, then, &page));
    assert_int_equal(page.items.size(), 1);
    assert_string_equal(f.names(page)[0].c_str(), ("b@" + std::to_string(revisionOf(b))).c_str());

    assert_true(c.list(kPrefix, "", 0, nullptr, 0, &page));
    auto now = f.names(page);
    assert_int_equal(now.size(), 2);
    assert_true(now[0].starts_with("a@") && now[1].starts_with("c@"));
    // Older than the buffer reaches (the cache was filled at 2): refused.
    assert_false(c.list(kPrefix, "", 0, nullptr, 1, &page));
}

void watch_without_a_version_sends_the_state_then_changes(void**) {
    Fixture f;
    f.write("create", "a");
    f.write("create", "b");
    FakeSink sink;
    endpoints::WatchStart start;
    start.initialEvents = true;
    auto w = f.watch(sink, start);
    assert_lines(sink, {"ADDED a", "ADDED b"});
    f.write("update", "a");
    f.write("create", "c");
    f.remove("b");
    assert_lines(sink, {"ADDED a", "ADDED b", "MODIFIED a", "ADDED c", "DELETED b"});
    w->stop();
    f.write("create", "d");
    assert_int_equal(sink.lines.size(), 5);
    assert_int_equal(f.cache().watchers(), 0);
}

void watch_from_a_revision_replays_what_followed(void**) {
    Fixture f;
    std::string a = f.write("create", "a");
    f.write("create", "b");
    f.write("update", "a");
    // The cache is filled after these writes: the replay comes from the log.
    FakeSink fromLog;
    endpoints::WatchStart start;
    start.revision = revisionOf(a);
    auto w1 = f.watch(fromLog, start);
    assert_lines(fromLog, {"ADDED b", "MODIFIED a"});

    storage::Revision mark = f.cache().revision();
    f.write("create", "c");
    FakeSink fromBuffer;
    start.revision = mark;
    auto w2 = f.watch(fromBuffer, start);
    assert_lines(fromBuffer, {"ADDED c"});

    f.remove("c");
    assert_lines(fromLog, {"ADDED b", "MODIFIED a", "ADDED c", "DELETED c"});
    assert_lines(fromBuffer, {"ADDED c", "DELETED c"});
    // Every line's resourceVersion rises: nothing twice, nothing skipped.
    storage::Revision last = 0;
    for (const auto& l : fromLog.lines) {
        storage::Revision r = std::stoull(parseLine(l).resourceVersion);
        assert_true(r > last);
        last = r;
    }
}

void selector_transitions_become_added_and_deleted(void**) {
    Fixture f;
    f.write("create", "a", R"({"app":"x"})");
    f.write("create", "b", R"({"app":"y"})");
    FakeSink sink;
    endpoints::WatchStart start;
    start.initialEvents = true;
    auto w = f.watch(sink, start, "app=x");
    assert_lines(sink, {"ADDED a"});
    f.write("update", "b", R"({"app":"x"})");                      // enters
    std::string leave = f.write("update", "a", R"({"app":"z"})");  // leaves
    f.write("update", "a", R"({"app":"w"})");                      // stays out
    f.remove("b");
    assert_lines(sink, {"ADDED a", "ADDED b", "DELETED a", "DELETED b"});
    // The object that left is sent as it was, at the event's revision.
    Line left = parseLine(sink.lines[2]);
    assert_string_equal(left.resourceVersion.c_str(), std::to_string(revisionOf(leave)).c_str());
    assert_true(sink.lines[2].find("\"app\":\"x\"") != std::string::npos);
}

void bookmarks_come_before_the_timeout_which_ends_the_stream(void**) {
    Fixture f;
    f.write("create", "a");
    FakeSink sink;
    endpoints::WatchStart start;
    start.revision = f.cache().revision();
    start.bookmarks = true;
    start.timeout = std::chrono::seconds(10);
    auto w = f.watch(sink, start);
    assert_int_equal(sink.lines.size(), 0);
    // one timer serves the bookmarks and the end
    assert_int_equal(f.loop.timersPending(), 1);
    f.write("create", "elsewhere-in-time");
    f.loop.advance(std::chrono::seconds(8));
    f.loop.run();
    assert_int_equal(sink.lines.size(), 2);
    Line bookmark = parseLine(sink.lines[1]);
    assert_string_equal(bookmark.type.c_str(), "BOOKMARK");
    assert_string_equal(bookmark.resourceVersion.c_str(),
                        std::to_string(f.cache().revision()).c_str());
    assert_true(sink.lines[1].find("\"kind\":\"ConfigMap\"") != std::string::npos);
    assert_false(sink.finished);
    f.loop.advance(std::chrono::seconds(2));
    f.loop.run();
    assert_true(sink.finished);
}

void initial_events_end_with_an_annotated_bookmark(void**) {
    Fixture f;
    f.write("create", "a");
    FakeSink sink;
    endpoints::WatchStart start;
    start.initialEvents = true;
    start.initialEventsEnd = true;
    start.bookmarks = true;
    auto w = f.watch(sink, start);
    assert_lines(sink, {"ADDED a", "BOOKMARK "});
    Line end = parseLine(sink.lines[1]);
    assert_string_equal(end.annotation.c_str(), "true");
    assert_string_equal(end.resourceVersion.c_str(), std::to_string(f.cache().revision()).c_str());
}

void watch_from_a_compacted_revision_is_expired(void**) {
    Fixture f;
    f.write("create", "a");
    f.write("create", "b");
    f.write("create", "c");
    storage::Revision head = f.memory.currentRevision();
    bool compacted = false;
    f.memory.compact(head, [&](const storage::Error& e) { compacted = e.ok(); });
    f.loop.run();
    assert_true(compacted);
    FakeSink sink;
    endpoints::WatchStart start;
    start.revision = 1;
    auto w = f.watch(sink, start);
    assert_int_equal(sink.lines.size(), 1);
    Line err = parseLine(sink.lines[0]);
    assert_string_equal(err.type.c_str(), "ERROR");
    assert_int_equal(err.code, 410);
    std::string want = "too old resource version: 1 (" + std::to_string(head - 1) + ")";
    assert_string_equal(err.message.c_str(), want.c_str());
    assert_true(sink.finished);
}

void a_replay_waits_for_the_connection_to_drain(void**) {
    Fixture f;
    for (int i = 0; i < 600; i++) {
        f.write("create", "cm" + std::to_string(1000 + i));
    }
    FakeSink sink;
    sink.unsent = endpoints::WatchStream::kLowWater;  // a full socket
    endpoints::WatchStart start;
    start.initialEvents = true;
    auto w = f.watch(sink, start);
    assert_int_equal(sink.lines.size(), 0);
    f.write("create", "live");  // held until the replay is done
    sink.unsent = 0;
    w->drained();
    f.loop.run();
    assert_int_equal(sink.lines.size(), 601);
    assert_string_equal(parseLine(sink.lines.back()).name.c_str(), "live");
}

void a_lagging_cacher_refills_and_ends_its_watches(void**) {
    Fixture f;
    f.write("create", "a");
    FakeSink sink;
    endpoints::WatchStart start;
    start.revision = f.cache().revision();
    auto w = f.watch(sink, start);
    // Writes the cacher has not read yet are compacted away under it.
    bool called = false;
    auto doc = std::make_shared<json::Document>();
    assert_false(json::parse(R"({"metadata":{"name":"b"}})", *doc).has_value());
    f.configmaps->create("ns", doc, {}, [&](const Status*, std::string_view) { called = true; });
    f.loop.run();
    assert_true(called);
    assert_false(json::parse(R"({"metadata":{"name":"c"}})", *doc).has_value());
    f.configmaps->create("ns", doc, {}, [&](const Status*, std::string_view) {});
    f.loop.run();
    f.memory.compact(f.memory.currentRevision(), [](const storage::Error&) {});
    f.loop.run();
    f.cacher.poll();
    assert_true(sink.finished);
    WatchCache::Page page;
    assert_true(f.cache().list(kPrefix, "", 0, nullptr, 0, &page));
    assert_int_equal(page.items.size(), 3);
}

void compactor_keeps_one_interval_of_history(void**) {
    Fixture f;
    storage::Compactor compactor(f.memory, f.loop, std::chrono::seconds(60));
    f.write("create", "a");
    storage::Revision first = f.memory.currentRevision();
    f.loop.advance(std::chrono::seconds(60));
    f.loop.run();
    // The first tick has nothing older than an interval to compact.
    assert_int_equal(f.memory.compactedRevision(), 0);
    f.write("create", "b");
    f.loop.advance(std::chrono::seconds(60));
    f.loop.run();
    assert_int_equal(compactor.compacted(), first);
    assert_int_equal(f.memory.compactedRevision(), first);
}

void a_streamed_list_is_the_buffered_list_sent_in_pieces(void**) {
    Fixture f;
    // Items of 5,000 bytes go out from the cache, those of 3,000 are copied.
    std::string large(5000, 'x');
    std::string small(3000, 'z');
    // One object larger than a piece: it goes out in several.
    std::string huge(200 * 1024, 'y');
    for (int i = 0; i < 200; i++) {
        auto doc = std::make_shared<json::Document>();
        std::string text = R"({"metadata":{"name":"s)" + std::to_string(1000 + i) +
                           R"("},"data":{"v":")" +
                           (i == 100 ? huge : i % 2 ? small : large) + R"("}})";
        assert_false(json::parse(text, *doc).has_value());
        f.configmaps->create("ns", doc, {},
                             [](const Status* e, std::string_view) { assert_null(e); });
        f.loop.run();
    }
    endpoints::RenderOptions render;
    render.kind = &f.configmaps->kind();
    std::string buffered;
    std::shared_ptr<endpoints::ListStream> stream;
    std::vector<storage::cacher::ObjectRef> objects;
    kube::util::Turns turns(f.loop, std::chrono::microseconds(1000));
    registry::ListOptions opts;
    f.configmaps->list("ns", opts, [&](const Status* e, const registry::ListPage& page) {
        assert_null(e);
        assert_int_equal(page.objects.size(), 200);
        buffered = endpoints::listResponse(page, render).body;
        objects = page.objects;
        stream = std::make_shared<endpoints::ListStream>(turns, render, page, page.objects);
    });
    FakeSink sink;
    sink.unsent = endpoints::ListStream::kLowWater;  // the socket is full
    stream->start(sink);
    assert_int_equal(sink.lines.size(), 0);
    sink.unsent = 0;
    stream->drained();
    f.loop.run();
    assert_true(sink.finished);
    assert_true(sink.lines.size() > 3);  // about 1 MB in writes of up to 256 KiB
    std::string joined;
    for (const std::string& piece : sink.lines) {
        assert_true(piece.size() <= endpoints::ListStream::kChunk);
        joined += piece;
    }
    assert_int_equal(joined.size(), buffered.size());
    assert_true(joined == buffered);

    // Which bytes were sent from the cached objects themselves, each part
    // kept alive by its object.
    size_t fromCache = 0;
    std::vector<bool> borrowed(objects.size());
    for (size_t p = 0; p < sink.views.size(); ++p) {
        for (size_t i = 0; i < objects.size(); ++i) {
            const std::string& bytes = objects[i]->bytes;
            if (sink.views[p].data() >= bytes.data() &&
                sink.views[p].data() + sink.views[p].size() <= bytes.data() + bytes.size()) {
                assert_ptr_equal(sink.owners[p].get(), objects[i].get());
                fromCache += sink.views[p].size();
                borrowed[i] = true;
            }
        }
    }
    size_t largeBytes = 0;
    for (size_t i = 0; i < objects.size(); ++i) {
        bool isLarge = objects[i]->bytes.size() >= endpoints::ListStream::kBorrowFrom;
        assert_true(borrowed[i] == isLarge);
        if (isLarge) {
            largeBytes += objects[i]->bytes.size();
        }
    }
    // All of a large object but its kind and apiVersion, which a list item
    // leaves out.
    assert_true(fromCache > largeBytes - 101 * 64);
    assert_true(fromCache < largeBytes);
}

// --- The history's memory: what it counts, what it trims, what it keeps.

std::string revised(std::string_view bytes, storage::Revision) {
    return std::string(bytes);
}

storage::Event put(storage::Revision revision, std::string_view key, const std::string& value) {
    storage::Event e;
    e.type = storage::Event::Put;
    e.revision = revision;
    e.key = key;
    e.value = value;
    return e;
}

storage::Event del(storage::Revision revision, std::string_view key, const std::string& value) {
    storage::Event e = put(revision, key, value);
    e.type = storage::Event::Delete;
    return e;
}

void an_event_costs_only_what_it_alone_keeps_alive(void**) {
    WatchCache c(kPrefix, "configmaps", revised, size_t(1) << 30);
    c.reset({}, 1);
    auto now = std::chrono::steady_clock::now();
    const std::string v1(10000, 'a'), v2(10000, 'b');
    const std::string key = std::string(kPrefix) + "ns/a";

    // ADDED: the object is the current state, which the cache keeps anyway.
    c.apply(put(2, key, v1), now);
    size_t added = c.historyBytes();
    assert_int_equal(c.historyEvents(), 1);
    assert_true(added > 0 && added < 1000);
    // MODIFIED: the replaced state now lives on only in the history.
    c.apply(put(3, key, v2), now);
    size_t modified = c.historyBytes() - added;
    assert_true(modified > v1.size() && modified < v1.size() + 1000);
    // DELETED: the last state, and the deletion's own copy of it.
    c.apply(del(4, key, v2), now);
    size_t deleted = c.historyBytes() - added - modified;
    assert_true(deleted > 2 * v2.size() && deleted < 2 * v2.size() + 1000);

    WatchCache::Stats st = c.stats();
    assert_int_equal(st.events, 3);
    assert_int_equal(st.eventBytes, c.historyBytes());
    assert_int_equal(st.eventsReceived, 3);
    assert_int_equal(st.objects, 0);
    assert_int_equal(st.objectBytes, 0);
}

void history_is_trimmed_oldest_first_to_its_byte_limit(void**) {
    constexpr size_t kLimit = 50 * 1000;
    WatchCache c(kPrefix, "configmaps", revised, kLimit);
    c.reset({}, 1);
    auto now = std::chrono::steady_clock::now();
    const char* names[] = {"a", "b", "c"};
    std::vector<std::string> last(3);
    storage::Revision rev = 1;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 3; i++) {
            last[i] = std::string(10000, char('a' + round));
            c.apply(put(++rev, std::string(kPrefix) + "ns/" + names[i], last[i]), now);
            assert_true(c.historyBytes() <= kLimit);
        }
    }
    // About five replaced versions fit: the newest events, in order.
    assert_true(c.historyEvents() >= 4 && c.historyEvents() <= 5);
    storage::Revision oldest = c.oldestEvent();
    assert_int_equal(oldest, rev - c.historyEvents() + 1);
    std::vector<storage::cacher::EventRef> events;
    assert_true(c.eventsAfter(oldest - 1, &events));
    assert_int_equal(events.size(), c.historyEvents());
    assert_int_equal(events.back()->revision, rev);
    assert_false(c.eventsAfter(oldest - 2, &events));

    // The current state is whole: every object at its last version.
    WatchCache::Page page;
    assert_true(c.list(kPrefix, "", 0, nullptr, 0, &page));
    assert_int_equal(page.items.size(), 3);
    for (int i = 0; i < 3; i++) {
        assert_true(page.items[i]->bytes == last[i]);
        assert_int_equal(page.items[i]->modRevision, rev - 2 + i);
    }
    assert_int_equal(c.stats().objectBytes, 3 * 10000);
    // A state the history still reaches is rebuilt; an older one is not.
    assert_true(c.list(kPrefix, "", 0, nullptr, oldest - 1, &page));
    assert_int_equal(page.items.size(), 3);
    assert_false(c.list(kPrefix, "", 0, nullptr, oldest - 2, &page));
}

// --- Followers: what a consumer of a cache is told, and when.

// Records the handler calls of a follower as lines ("put a", "changed").
struct FollowLog {
    std::vector<std::string> calls;
    bool declineResets = false;

    storage::cacher::Follower::Handlers handlers() {
        storage::cacher::Follower::Handlers h;
        h.replacing = [this] {
            calls.push_back("replacing");
            return !declineResets;
        };
        h.put = [this](const storage::cacher::CachedObject& obj) {
            calls.push_back("put " + obj.key.substr(std::strlen(kPrefix)));
            return obj.bytes != "same";
        };
        h.remove = [this](const storage::cacher::CachedObject& obj) {
            calls.push_back("remove " + obj.key.substr(std::strlen(kPrefix)));
            return true;
        };
        h.changed = [this] { calls.push_back("changed"); };
        return h;
    }
};

void a_follower_gets_the_state_then_each_change_and_the_state_after_a_reset(void**) {
    WatchCache c(kPrefix, "configmaps", revised, size_t(1) << 30);
    const std::string a = std::string(kPrefix) + "a", b = std::string(kPrefix) + "b";
    const std::string v = "{}", same = "same";
    storage::ObjectView held[] = {{b, v, 1, 1}, {a, v, 1, 1}};
    c.reset({held[1], held[0]}, 1);
    auto now = std::chrono::steady_clock::now();
    FollowLog log;
    {
        storage::cacher::Follower follower(c, log.handlers());
        // The state in key order, without "changed": the owner says when it
        // has all it follows.
        assert_true((log.calls == std::vector<std::string>{"replacing", "put a", "put b"}));
        log.calls.clear();
        c.apply(put(2, a, same), now);  // changes nothing the owner holds
        c.apply(put(3, b, v), now);
        c.apply(del(4, a, same), now);
        assert_true((log.calls == std::vector<std::string>{"put a", "put b", "changed", "remove a",
                                                           "changed"}));
        log.calls.clear();
        c.reset({held[0]}, 5);
        assert_true((log.calls == std::vector<std::string>{"replacing", "put b", "changed"}));
        // Declined: the cache is not listed and nothing changed.
        log.calls.clear();
        log.declineResets = true;
        c.reset({held[0]}, 6);
        assert_true((log.calls == std::vector<std::string>{"replacing"}));
        assert_int_equal(c.watchers(), 1);
    }
    assert_int_equal(c.watchers(), 0);
}

void a_json_follower_skips_what_is_not_an_object(void**) {
    WatchCache c(kPrefix, "configmaps", revised, size_t(1) << 30);
    const std::string a = std::string(kPrefix) + "a", b = std::string(kPrefix) + "b";
    const std::string good = R"({"metadata":{"namespace":"ns","name":"a"}})";
    const std::string bad = "[1]", bare = "{}";
    c.reset({}, 1);
    auto now = std::chrono::steady_clock::now();
    std::vector<std::string> calls;
    storage::cacher::Follower::JsonHandlers h;
    h.put = [&](const json::Value& obj) { calls.push_back("put " + json::serialize(obj)); };
    h.remove = [&](std::string_view ns, std::string_view name) {
        calls.push_back("remove " + std::string(ns) + "/" + std::string(name));
    };
    h.changed = [&] { calls.push_back("changed"); };
    storage::cacher::Follower follower(c, std::move(h));
    c.apply(put(2, a, good), now);
    c.apply(put(3, b, bad), now);   // not an object: no put, no change
    c.apply(del(4, b, bare), now);  // no metadata: no remove, yet a change
    c.apply(del(5, a, good), now);
    assert_true((calls == std::vector<std::string>{"put " + good, "changed", "changed",
                                                   "remove ns/a", "changed"}));
}

void with_no_room_for_history_watchers_still_get_every_event(void**) {
    storage::cacher::HistoryLimits none;
    none.workerBytes = 0;
    none.resourceBytes = 0;
    Fixture f(none);
    f.write("create", "a");
    FakeSink sink;
    endpoints::WatchStart start;
    start.initialEvents = true;
    auto w = f.watch(sink, start);
    f.write("update", "a");
    f.write("create", "b");
    f.remove("a");
    assert_lines(sink, {"ADDED a", "MODIFIED a", "ADDED b", "DELETED a"});
    assert_int_equal(f.cache().historyEvents(), 0);
    assert_int_equal(f.cache().historyBytes(), 0);
    WatchCache::Page page;
    assert_true(f.cache().list(kPrefix, "", 0, nullptr, 0, &page));
    assert_int_equal(page.items.size(), 1);
    assert_int_equal(page.revision, f.memory.currentRevision());
}

void a_watch_from_a_trimmed_revision_replays_from_the_log(void**) {
    // Room for about three replaced versions of 10 kB.
    storage::cacher::HistoryLimits limits;
    limits.resourceBytes = 35 * 1000;
    Fixture f(limits);
    WatchCache& c = f.cache();
    storage::Revision from = revisionOf(f.write("create", "a", "{}", 10000));
    for (int i = 0; i < 5; i++) {
        f.write("update", "a", R"({"i":")" + std::to_string(i) + R"("})", 10000);
        f.write("create", "b" + std::to_string(i));
    }
    assert_true(c.oldestEvent() > from + 1);

    FakeSink sink;
    endpoints::WatchStart start;
    start.revision = from;
    auto w = f.watch(sink, start);
    std::vector<std::string> want;
    for (int i = 0; i < 5; i++) {
        want.push_back("MODIFIED a");
        want.push_back("ADDED b" + std::to_string(i));
    }
    assert_lines(sink, want);
    // Then live, with nothing twice.
    f.write("update", "a", "{}", 10000);
    want.push_back("MODIFIED a");
    assert_lines(sink, want);

    // A list at the trimmed revision is 410 Expired, as kube's is after a
    // compaction; at a revision the history reaches it is served.
    registry::ListOptions opts;
    opts.version.match = registry::ReadVersion::Match::Exact;
    opts.version.revision = from;
    int code = 0;
    f.configmaps->list(
        "ns", opts, [&](const Status* e, const registry::ListPage&) { code = e ? e->code : 200; });
    assert_int_equal(code, 410);
    opts.version.revision = c.oldestEvent();
    f.configmaps->list(
        "ns", opts, [&](const Status* e, const registry::ListPage&) { code = e ? e->code : 200; });
    assert_int_equal(code, 200);

    // Once the store compacted that revision too, the watch is 410 Expired.
    f.memory.compact(f.memory.currentRevision(), [](const storage::Error&) {});
    f.loop.run();
    FakeSink late;
    auto w2 = f.watch(late, start);
    assert_int_equal(late.lines.size(), 1);
    Line err = parseLine(late.lines[0]);
    assert_string_equal(err.type.c_str(), "ERROR");
    assert_int_equal(err.code, 410);
}

void a_replay_from_the_log_reads_ahead_a_few_megabytes_at_a_time(void**) {
    // No history: every watch from a past revision reads the log, which
    // holds ten versions of a 1 MB object, more than one read takes.
    storage::cacher::HistoryLimits none;
    none.workerBytes = 0;
    none.resourceBytes = 0;
    Fixture f(none);
    storage::Revision from = revisionOf(f.write("create", "a", "{}", 1000 * 1000));
    for (int i = 0; i < 10; i++) {
        f.write("update", "a", R"({"i":")" + std::to_string(i) + R"("})", 1000 * 1000);
        f.write("create", "small" + std::to_string(i));
    }
    FakeSink sink;
    endpoints::WatchStart start;
    start.revision = from;
    auto w = f.watch(sink, start);
    std::vector<std::string> want;
    for (int i = 0; i < 10; i++) {
        want.push_back("MODIFIED a");
        want.push_back("ADDED small" + std::to_string(i));
    }
    assert_lines(sink, want);
    storage::Revision last = from;
    for (const auto& l : sink.lines) {
        storage::Revision r = std::stoull(parseLine(l).resourceVersion);
        assert_int_equal(r, last + 1);
        last = r;
    }
}

void the_worker_limit_trims_the_oldest_event_of_any_resource(void**) {
    // Room for four replaced versions of 10 kB, beside small events.
    storage::cacher::HistoryLimits limits;
    limits.workerBytes = 45 * 1000;
    FakeLoop loop;
    storage::memory::Store memory{loop};
    storage::cacher::Cacher cacher(memory, loop, revised, limits);
    storage::Error err;
    WatchCache* configmaps = cacher.cache("/registry/configmaps/", &err);
    WatchCache* secrets = cacher.cache("/registry/secrets/", &err);
    assert_non_null(configmaps);
    assert_non_null(secrets);
    std::vector<storage::Revision> revs;
    auto write = [&](const std::string& key, bool create) {
        storage::WriteOp op;
        op.type = create ? storage::WriteOp::Type::Create : storage::WriteOp::Type::Update;
        op.key = key;
        op.value = std::string(10000, 'x');
        memory.write({op}, [](storage::WriteResult&& r) { assert_true(r.error.ok()); });
        loop.run();
        cacher.poll();
        revs.push_back(memory.currentRevision());
        assert_true(cacher.historyBytes() <= limits.workerBytes);
        assert_int_equal(cacher.historyBytes(),
                         configmaps->historyBytes() + secrets->historyBytes());
    };
    write("/registry/configmaps/ns/a", true);  // revs[0]
    write("/registry/secrets/ns/s", true);     // revs[1]
    for (int i = 0; i < 3; i++) {
        write("/registry/configmaps/ns/a", false);  // revs[2..4]
    }
    assert_int_equal(configmaps->historyEvents(), 4);
    for (int i = 0; i < 3; i++) {
        write("/registry/secrets/ns/s", false);  // revs[5..7]
    }
    // The new secrets' events pushed out the oldest events of either
    // resource, in revision order: the secret created at revs[1] went before
    // the ConfigMap updated at revs[2].
    assert_int_equal(secrets->historyEvents(), 3);
    assert_int_equal(secrets->oldestEvent(), revs[5]);
    assert_int_equal(configmaps->historyEvents(), 1);
    assert_int_equal(configmaps->oldestEvent(), revs[4]);
    std::vector<storage::cacher::EventRef> events;
    assert_false(configmaps->eventsAfter(revs[2], &events));
    assert_true(configmaps->eventsAfter(revs[3], &events));
    // The current objects are all there.
    WatchCache::Page page;
    assert_true(configmaps->list("/registry/configmaps/", "", 0, nullptr, 0, &page));
    assert_int_equal(page.items.size(), 1);
    assert_int_equal(page.items[0]->modRevision, revs[4]);
    assert_true(secrets->list("/registry/secrets/", "", 0, nullptr, 0, &page));
    assert_int_equal(page.items.size(), 1);
    assert_int_equal(page.items[0]->modRevision, revs[7]);
}

void watch_lines_are_shared_while_dispatched_and_not_kept(void**) {
    Fixture f;
    f.write("create", "a");
    FakeSink one, two;
    endpoints::WatchStart start;
    start.revision = f.cache().revision();
    auto w1 = f.watch(one, start);
    auto w2 = f.watch(two, start);
    f.write("update", "a", "{}", 5000);
    assert_int_equal(one.owners.size(), 1);
    assert_ptr_equal(one.owners[0].get(), two.owners[0].get());
    std::vector<storage::cacher::EventRef> events;
    assert_true(f.cache().eventsAfter(start.revision, &events));
    assert_int_equal(events.size(), 1);
    assert_null(events[0]->jsonLine.get());
    // A replay from the history builds its own line and leaves none behind.
    FakeSink three;
    auto w3 = f.watch(three, start);
    assert_lines(three, {"MODIFIED a"});
    assert_null(events[0]->jsonLine.get());
    assert_true(three.lines[0] == one.lines[0]);
}

void metrics_report_what_each_cache_holds(void**) {
    storage::cacher::HistoryLimits limits;
    limits.workerBytes = 1 << 20;
    limits.resourceBytes = 1 << 19;
    Fixture f(limits);
    WatchCache& c = f.cache();
    f.write("create", "a", "{}", 1000);
    f.write("update", "a", "{}", 1000);
    f.write("create", "b");
    std::string text = storage::cacher::metricsText(f.cacher);
    auto has = [&text](const std::string& line) {
        if (text.find("\n" + line + "\n") == std::string::npos) {
            fail_msg("no line \"%s\" in:\n%s", line.c_str(), text.c_str());
        }
    };
    has("apiserver_watch_cache_events_received_total{resource=\"configmaps\"} 3");
    has("apiserver_watch_cache_initializations_total{resource=\"configmaps\"} 1");
    has("apiserver_watch_cache_events{resource=\"configmaps\"} 3");
    has("apiserver_watch_cache_bytes{resource=\"configmaps\"} " + std::to_string(c.historyBytes()));
    has("apiserver_watch_cache_objects{resource=\"configmaps\"} 2");
    has("apiserver_watch_cache_objects_bytes{resource=\"configmaps\"} " +
        std::to_string(c.stats().objectBytes));
    has("apiserver_watch_cache_history_bytes " + std::to_string(c.historyBytes()));
    has("apiserver_watch_cache_history_capacity_bytes 1048576");
    has("apiserver_watch_cache_capacity_bytes 524288");
    has("# TYPE apiserver_watch_cache_bytes gauge");
    has("# TYPE apiserver_watch_cache_events_received_total counter");
    assert_true(c.historyBytes() > 1000);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cache_fills_on_first_use_and_follows_the_log),
        cmocka_unit_test(list_at_an_older_revision_undoes_later_changes),
        cmocka_unit_test(watch_without_a_version_sends_the_state_then_changes),
        cmocka_unit_test(watch_from_a_revision_replays_what_followed),
        cmocka_unit_test(selector_transitions_become_added_and_deleted),
        cmocka_unit_test(bookmarks_come_before_the_timeout_which_ends_the_stream),
        cmocka_unit_test(initial_events_end_with_an_annotated_bookmark),
        cmocka_unit_test(watch_from_a_compacted_revision_is_expired),
        cmocka_unit_test(a_replay_waits_for_the_connection_to_drain),
        cmocka_unit_test(a_lagging_cacher_refills_and_ends_its_watches),
        cmocka_unit_test(compactor_keeps_one_interval_of_history),
        cmocka_unit_test(a_streamed_list_is_the_buffered_list_sent_in_pieces),
        cmocka_unit_test(an_event_costs_only_what_it_alone_keeps_alive),
        cmocka_unit_test(history_is_trimmed_oldest_first_to_its_byte_limit),
        cmocka_unit_test(a_follower_gets_the_state_then_each_change_and_the_state_after_a_reset),
        cmocka_unit_test(a_json_follower_skips_what_is_not_an_object),
        cmocka_unit_test(with_no_room_for_history_watchers_still_get_every_event),
        cmocka_unit_test(a_watch_from_a_trimmed_revision_replays_from_the_log),
        cmocka_unit_test(a_replay_from_the_log_reads_ahead_a_few_megabytes_at_a_time),
        cmocka_unit_test(the_worker_limit_trims_the_oldest_event_of_any_resource),
        cmocka_unit_test(watch_lines_are_shared_while_dispatched_and_not_kept),
        cmocka_unit_test(metrics_report_what_each_cache_holds),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
