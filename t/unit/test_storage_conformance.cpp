// The storage::Interface contract, run against every backend: the same
// tests with the memory store and with an LMDB store in a fresh directory.
// Covers reads, atomic writes, the revision log (history, created flags),
// compaction and the commit listener.

#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fake_loop.hpp"
#include "storage/event.hpp"
#include "storage/interface.hpp"
#include "storage/lmdb/lmdb_store.hpp"
#include "storage/memory/memory_store.hpp"

// cmocka last: its fail() macro would break the standard headers above.
// clang-format off
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}
// clang-format on

using namespace kube;
using storage::ErrorCode;
using storage::Object;
using storage::Revision;
using storage::WriteOp;
using storage::WriteResult;

namespace {

struct Harness {
    testing::FakeLoop loop;
    std::unique_ptr<storage::Interface> store;
    std::string dir;
};

int setupMemory(void** state) {
    auto h = std::make_unique<Harness>();
    h->store = std::make_unique<storage::memory::Store>(h->loop);
    *state = h.release();
    return 0;
}

int setupLmdb(void** state) {
    auto h = std::make_unique<Harness>();
    char tmpl[] = "/tmp/kube-storage-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
        return -1;
    }
    h->dir = tmpl;
    storage::lmdb::Options options;
    options.dir = h->dir + "/db";  // not there yet: open creates it
    options.mapSize = 64ull << 20;
    std::string error;
    h->store = storage::lmdb::Store::open(options, h->loop, &error);
    if (!h->store) {
        print_error("open: %s\n", error.c_str());
        return -1;
    }
    *state = h.release();
    return 0;
}

// The backend the next group of tests runs against.
enum class Backend { Memory, Lmdb };
Backend gBackend = Backend::Memory;

int setup(void** state) {
    return gBackend == Backend::Memory ? setupMemory(state) : setupLmdb(state);
}

int teardown(void** state) {
    auto* h = static_cast<Harness*>(*state);
    h->store.reset();
    h->loop.run();
    if (!h->dir.empty()) {
        std::filesystem::remove_all(h->dir);
    }
    delete h;
    return 0;
}

Harness& harness(void** state) {
    return *static_cast<Harness*>(*state);
}

WriteOp createOp(std::string key, std::string value, size_t revisionOffset = std::string::npos) {
    WriteOp op;
    op.type = WriteOp::Type::Create;
    op.key = std::move(key);
    op.value = std::move(value);
    op.revisionOffset = revisionOffset;
    return op;
}

WriteOp updateOp(std::string key, std::string value, Revision expected) {
    WriteOp op;
    op.type = WriteOp::Type::Update;
    op.key = std::move(key);
    op.value = std::move(value);
    op.expectedModRevision = expected;
    return op;
}

WriteOp deleteOp(std::string key, Revision expected) {
    WriteOp op;
    op.type = WriteOp::Type::Delete;
    op.key = std::move(key);
    op.expectedModRevision = expected;
    return op;
}

WriteResult writeSync(Harness& h, std::vector<WriteOp> ops) {
    bool called = false;
    WriteResult out;
    h.store->write(std::move(ops), [&](WriteResult&& r) {
        called = true;
        out = std::move(r);
    });
    // Writes never call back inside write().
    assert_false(called);
    h.loop.run();
    assert_true(called);
    return out;
}

WriteResult write1(Harness& h, WriteOp op) {
    std::vector<WriteOp> ops;
    ops.push_back(std::move(op));
    return writeSync(h, std::move(ops));
}

std::optional<Object> getSync(Harness& h, const std::string& key, ErrorCode* code = nullptr) {
    bool called = false;
    std::optional<Object> out;
    ErrorCode got = ErrorCode::Internal;
    h.store->get(key, [&](const storage::Error& err, const storage::ObjectView* view) {
        called = true;
        got = err.code;
        if (err.ok()) {
            assert_non_null(view);
            out = Object{std::string(view->key), std::string(view->value), view->modRevision,
                         view->createRevision};
        } else {
            assert_null(view);
        }
    });
    h.loop.run();
    assert_true(called);
    if (code != nullptr) {
        *code = got;
    }
    return out;
}

struct ListOut {
    std::vector<Object> items;
    Revision revision = 0;
    bool more = false;
    uint64_t remaining = 0;
};

ListOut listSync(Harness& h, std::string prefix, size_t limit = 0, std::string startKey = "") {
    storage::ListOptions opts;
    opts.prefix = std::move(prefix);
    opts.limit = limit;
    opts.startKey = std::move(startKey);
    bool called = false;
    ListOut out;
    h.store->list(opts, [&](const storage::Error& err, const storage::ListResult& r) {
        called = true;
        assert_true(err.ok());
        for (const auto& v : r.items) {
            out.items.push_back(
                {std::string(v.key), std::string(v.value), v.modRevision, v.createRevision});
        }
        out.revision = r.revision;
        out.more = r.more;
        out.remaining = r.remaining;
    });
    h.loop.run();
    assert_true(called);
    return out;
}

void assertOk(const WriteResult& r) {
    if (!r.error.ok()) {
        fail_msg("write failed: %s", r.error.message.c_str());
    }
}

struct EventCopy {
    storage::Event::Type type;
    Revision revision;
    bool created;
    std::string key;
    std::string value;
};

// The history after `after`; `*code` gets the error code, or the call must succeed.
std::vector<EventCopy> historySync(Harness& h, Revision after, size_t limit = 0,
                                   ErrorCode* code = nullptr) {
    bool called = false;
    std::vector<EventCopy> out;
    h.store->history(
        after, limit, [&](const storage::Error& err, std::span<const storage::Event> es) {
            called = true;
            if (code != nullptr) {
                *code = err.code;
            } else if (!err.ok()) {
                fail_msg("history(%llu): %s", static_cast<unsigned long long>(after),
                         err.message.c_str());
            }
            for (const auto& e : es) {
                out.push_back(
                    {e.type, e.revision, e.created, std::string(e.key), std::string(e.value)});
            }
        });
    h.loop.run();
    assert_true(called);
    return out;
}

ErrorCode historyCode(Harness& h, Revision after) {
    ErrorCode code = ErrorCode::Internal;
    std::vector<EventCopy> events = historySync(h, after, 0, &code);
    if (code != ErrorCode::Ok) {
        assert_int_equal(events.size(), 0);
    }
    return code;
}

// Compacts and waits for the callback, which must not run inside compact().
storage::Error compactSync(Harness& h, Revision revision) {
    bool called = false;
    storage::Error out;
    h.store->compact(revision, [&](const storage::Error& err) {
        called = true;
        out = err;
    });
    assert_false(called);
    h.loop.run();
    assert_true(called);
    return out;
}

void assertCompacted(Harness& h, Revision revision) {
    const storage::Error err = compactSync(h, revision);
    if (!err.ok()) {
        fail_msg("compact(%llu): %s", static_cast<unsigned long long>(revision),
                 err.message.c_str());
    }
}

// Revisions 1..n, one create per call.
void writeRevisions(Harness& h, int n) {
    for (int i = 0; i < n; i++) {
        assertOk(write1(h, createOp("/r/" + std::to_string(i), "v")));
    }
}

void create_then_get_returns_object_with_its_revisions(void** state) {
    Harness& h = harness(state);
    WriteResult r = write1(h, createOp("/registry/pods/ns/a", "A"));
    assertOk(r);
    assert_int_equal(r.objects.size(), 1);
    assert_string_equal(r.objects[0].key.c_str(), "/registry/pods/ns/a");
    assert_string_equal(r.objects[0].value.c_str(), "A");
    assert_int_equal(r.objects[0].modRevision, 1);
    assert_int_equal(r.objects[0].createRevision, 1);

    auto got = getSync(h, "/registry/pods/ns/a");
    assert_true(got.has_value());
    assert_string_equal(got->key.c_str(), "/registry/pods/ns/a");
    assert_string_equal(got->value.c_str(), "A");
    assert_int_equal(got->modRevision, 1);
    assert_int_equal(got->createRevision, 1);
    assert_int_equal(h.store->currentRevision(), 1);
}

void get_of_absent_key_is_not_found(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/registry/pods/ns/a", "A"));
    ErrorCode code = ErrorCode::Ok;
    assert_false(getSync(h, "/registry/pods/ns/b", &code).has_value());
    assert_int_equal(code, ErrorCode::NotFound);
    assert_false(getSync(h, "/registry/pods/ns/", &code).has_value());
    assert_int_equal(code, ErrorCode::NotFound);
}

void create_of_existing_key_fails_with_key_exists(void** state) {
    Harness& h = harness(state);
    assertOk(write1(h, createOp("/k", "first")));
    WriteResult r = write1(h, createOp("/k", "second"));
    assert_int_equal(r.error.code, ErrorCode::KeyExists);
    assert_int_equal(r.failedOp, 0);
    assert_string_equal(r.objects.at(0).value.c_str(), "first");
    assert_int_equal(r.objects.at(0).modRevision, 1);
    assert_string_equal(getSync(h, "/k")->value.c_str(), "first");
    assert_int_equal(h.store->currentRevision(), 1);
}

void update_with_matching_revision_stores_value_and_keeps_create_revision(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/other", "x"));
    assertOk(write1(h, createOp("/k", "v1")));
    WriteResult r = write1(h, updateOp("/k", "v2", 2));
    assertOk(r);
    assert_int_equal(r.objects.at(0).modRevision, 3);
    assert_int_equal(r.objects.at(0).createRevision, 2);
    auto got = getSync(h, "/k");
    assert_string_equal(got->value.c_str(), "v2");
    assert_int_equal(got->modRevision, 3);
    assert_int_equal(got->createRevision, 2);
}

void update_with_stale_revision_fails_with_conflict_and_current_object(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/k", "v1"));
    assertOk(write1(h, updateOp("/k", "v2", 1)));
    WriteResult r = write1(h, updateOp("/k", "v3", 1));
    assert_int_equal(r.error.code, ErrorCode::Conflict);
    assert_int_equal(r.failedOp, 0);
    assert_string_equal(r.objects.at(0).value.c_str(), "v2");
    assert_int_equal(r.objects.at(0).modRevision, 2);
    assert_string_equal(getSync(h, "/k")->value.c_str(), "v2");
    assert_int_equal(h.store->currentRevision(), 2);
}

void update_with_zero_expected_revision_is_unconditional(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/k", "v1"));
    write1(h, updateOp("/k", "v2", 0));
    WriteResult r = write1(h, updateOp("/k", "v3", 0));
    assertOk(r);
    assert_int_equal(r.objects.at(0).modRevision, 3);
    assert_string_equal(getSync(h, "/k")->value.c_str(), "v3");
}

void update_of_absent_key_is_not_found(void** state) {
    Harness& h = harness(state);
    WriteResult r = write1(h, updateOp("/nope", "v", 0));
    assert_int_equal(r.error.code, ErrorCode::NotFound);
    assert_int_equal(r.failedOp, 0);
    assert_true(r.objects.at(0).key.empty());
    assert_int_equal(h.store->currentRevision(), 0);
}

void delete_returns_last_state_at_the_deletion_revision(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/k", "v1"));
    write1(h, updateOp("/k", "v2", 1));
    WriteResult r = write1(h, deleteOp("/k", 2));
    assertOk(r);
    assert_string_equal(r.objects.at(0).key.c_str(), "/k");
    assert_string_equal(r.objects.at(0).value.c_str(), "v2");
    assert_int_equal(r.objects.at(0).modRevision, 3);
    assert_int_equal(r.objects.at(0).createRevision, 1);
    ErrorCode code = ErrorCode::Ok;
    assert_false(getSync(h, "/k", &code).has_value());
    assert_int_equal(code, ErrorCode::NotFound);
    assert_int_equal(h.store->currentRevision(), 3);
}

void delete_of_absent_key_is_not_found_and_stale_delete_conflicts(void** state) {
    Harness& h = harness(state);
    assert_int_equal(write1(h, deleteOp("/nope", 0)).error.code, ErrorCode::NotFound);
    write1(h, createOp("/k", "v1"));
    WriteResult r = write1(h, deleteOp("/k", 7));
    assert_int_equal(r.error.code, ErrorCode::Conflict);
    assert_string_equal(r.objects.at(0).value.c_str(), "v1");
    assert_true(getSync(h, "/k").has_value());
    // Gone once: a second delete finds nothing.
    assertOk(write1(h, deleteOp("/k", 0)));
    assert_int_equal(write1(h, deleteOp("/k", 0)).error.code, ErrorCode::NotFound);
}

void list_returns_only_keys_under_the_prefix_in_key_order(void** state) {
    Harness& h = harness(state);
    std::vector<WriteOp> ops;
    for (const char* k : {"/registry/pods/b/y", "/registry/podtemplates/a/t", "/registry/pods/a/x",
                          "/registry/pods/a/w", "/registry/pod", "/registry/secrets/a/s"}) {
        ops.push_back(createOp(k, k));
    }
    assertOk(writeSync(h, std::move(ops)));
    ListOut l = listSync(h, "/registry/pods/");
    assert_int_equal(l.items.size(), 3);
    assert_string_equal(l.items[0].key.c_str(), "/registry/pods/a/w");
    assert_string_equal(l.items[1].key.c_str(), "/registry/pods/a/x");
    assert_string_equal(l.items[2].key.c_str(), "/registry/pods/b/y");
    assert_string_equal(l.items[2].value.c_str(), "/registry/pods/b/y");
    assert_int_equal(l.items[0].modRevision, 4);
    assert_false(l.more);
    assert_int_equal(l.remaining, 0);

    assert_int_equal(listSync(h, "/registry/pods/a/").items.size(), 2);
    assert_int_equal(listSync(h, "/registry/nodes/").items.size(), 0);
    assert_int_equal(listSync(h, "").items.size(), 6);
}

void list_pages_with_limit_start_key_more_and_remaining(void** state) {
    Harness& h = harness(state);
    std::vector<WriteOp> ops;
    for (const char* k : {"/p/1", "/p/2", "/p/3", "/p/4", "/p/5", "/q/1"}) {
        ops.push_back(createOp(k, "v"));
    }
    assertOk(writeSync(h, std::move(ops)));

    ListOut page = listSync(h, "/p/", 2);
    assert_int_equal(page.items.size(), 2);
    assert_string_equal(page.items[1].key.c_str(), "/p/2");
    assert_true(page.more);
    assert_int_equal(page.remaining, 3);

    // The next page starts at the key after the last one returned.
    page = listSync(h, "/p/", 2, "/p/2\x01");
    assert_int_equal(page.items.size(), 2);
    assert_string_equal(page.items[0].key.c_str(), "/p/3");
    assert_true(page.more);
    assert_int_equal(page.remaining, 1);

    page = listSync(h, "/p/", 2, "/p/5");
    assert_int_equal(page.items.size(), 1);
    assert_string_equal(page.items[0].key.c_str(), "/p/5");
    assert_false(page.more);
    assert_int_equal(page.remaining, 0);

    // Exactly `limit` left: not cut short.
    page = listSync(h, "/p/", 2, "/p/4");
    assert_int_equal(page.items.size(), 2);
    assert_false(page.more);

    // A start key before the prefix starts at the prefix; one past it yields nothing.
    assert_int_equal(listSync(h, "/p/", 0, "/a").items.size(), 5);
    assert_int_equal(listSync(h, "/p/", 0, "/p/9").items.size(), 0);
}

void list_reports_the_store_revision(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/a/1", "v"));
    write1(h, createOp("/b/1", "v"));
    write1(h, updateOp("/b/1", "w", 0));
    ListOut l = listSync(h, "/a/");
    assert_int_equal(l.items.size(), 1);
    assert_int_equal(l.items[0].modRevision, 1);
    assert_int_equal(l.revision, 3);
}

void batch_with_a_failing_op_stores_nothing(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/exists", "v"));
    std::vector<WriteOp> ops;
    ops.push_back(createOp("/new", "n"));
    ops.push_back(createOp("/exists", "again"));
    ops.push_back(createOp("/new2", "n"));
    WriteResult r = writeSync(h, std::move(ops));
    assert_int_equal(r.error.code, ErrorCode::KeyExists);
    assert_int_equal(r.failedOp, 1);
    assert_int_equal(r.objects.size(), 3);
    assert_string_equal(r.objects[1].value.c_str(), "v");
    assert_false(getSync(h, "/new").has_value());
    assert_false(getSync(h, "/new2").has_value());
    assert_int_equal(h.store->currentRevision(), 1);
    assert_int_equal(historySync(h, 0).size(), 1);
}

void batch_ops_take_consecutive_revisions_and_see_earlier_ops(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/old", "o"));
    std::vector<WriteOp> ops;
    ops.push_back(createOp("/a", "a1"));
    ops.push_back(updateOp("/a", "a2", 2));  // the revision the create above gets
    ops.push_back(deleteOp("/old", 1));
    ops.push_back(createOp("/old", "reborn"));
    WriteResult r = writeSync(h, std::move(ops));
    assertOk(r);
    assert_int_equal(r.objects.size(), 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(r.objects[i].modRevision, 2 + i);
    }
    assert_int_equal(r.objects[1].createRevision, 2);
    assert_string_equal(r.objects[2].value.c_str(), "o");
    auto a = getSync(h, "/a");
    assert_string_equal(a->value.c_str(), "a2");
    assert_int_equal(a->modRevision, 3);
    auto old = getSync(h, "/old");
    assert_string_equal(old->value.c_str(), "reborn");
    assert_int_equal(old->createRevision, 5);
    assert_int_equal(h.store->currentRevision(), 5);

    // Within a batch an op checks against the batch's own earlier effect.
    std::vector<WriteOp> bad;
    bad.push_back(deleteOp("/a", 0));
    bad.push_back(updateOp("/a", "x", 0));
    WriteResult fail = writeSync(h, std::move(bad));
    assert_int_equal(fail.error.code, ErrorCode::NotFound);
    assert_int_equal(fail.failedOp, 1);
    assert_true(getSync(h, "/a").has_value());
}

void revision_is_spliced_into_the_stored_value(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/x", "x"));
    const std::string json = R"({"metadata":{"resourceVersion":""}})";
    const size_t offset = json.find("\"\"") + 1;  // between the empty quotes
    WriteResult r = write1(h, createOp("/k", json, offset));
    assertOk(r);
    const std::string want = R"({"metadata":{"resourceVersion":"2"}})";
    assert_string_equal(r.objects[0].value.c_str(), want.c_str());
    assert_string_equal(getSync(h, "/k")->value.c_str(), want.c_str());

    WriteOp up = updateOp("/k", json, 2);
    up.revisionOffset = offset;
    r = write1(h, std::move(up));
    assertOk(r);
    const std::string want3 = R"({"metadata":{"resourceVersion":"3"}})";
    assert_string_equal(getSync(h, "/k")->value.c_str(), want3.c_str());
    auto events = historySync(h, 2);
    assert_int_equal(events.size(), 1);
    assert_string_equal(events[0].value.c_str(), want3.c_str());
}

void revisions_increase_without_gaps_across_failed_writes(void** state) {
    Harness& h = harness(state);
    Revision last = 0;
    for (int i = 0; i < 20; i++) {
        const std::string key = "/k/" + std::to_string(i % 5);
        const bool stale = i >= 5 && i % 3 == 2;
        WriteResult r = i < 5   ? write1(h, createOp(key, "c"))
                        : stale ? write1(h, updateOp(key, "u", 999))
                                : write1(h, updateOp(key, "u", 0));
        if (stale) {
            assert_int_equal(r.error.code, ErrorCode::Conflict);
            continue;
        }
        assertOk(r);
        assert_int_equal(r.objects[0].modRevision, last + 1);
        last = r.objects[0].modRevision;
    }
    assert_int_equal(last, 15);
    assert_int_equal(h.store->currentRevision(), last);
    auto events = historySync(h, 0);
    assert_int_equal(events.size(), last);
    for (size_t i = 0; i < events.size(); i++) {
        assert_int_equal(events[i].revision, i + 1);
    }
}

void empty_batch_succeeds_without_a_revision(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/k", "v"));
    WriteResult r = writeSync(h, {});
    assertOk(r);
    assert_int_equal(r.objects.size(), 0);
    assert_int_equal(h.store->currentRevision(), 1);
}

void history_returns_events_after_a_revision_in_order(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/a", "a1"));
    write1(h, updateOp("/a", "a2", 1));
    write1(h, deleteOp("/a", 2));
    write1(h, createOp("/b", "b1"));

    auto all = historySync(h, 0);
    assert_int_equal(all.size(), 4);
    auto events = historySync(h, 1);
    assert_int_equal(events.size(), 3);
    assert_int_equal(events[0].type, storage::Event::Put);
    assert_int_equal(events[0].revision, 2);
    assert_string_equal(events[0].key.c_str(), "/a");
    assert_string_equal(events[0].value.c_str(), "a2");
    // A delete carries the object's last state.
    assert_int_equal(events[1].type, storage::Event::Delete);
    assert_int_equal(events[1].revision, 3);
    assert_string_equal(events[1].value.c_str(), "a2");
    assert_int_equal(events[2].type, storage::Event::Put);
    assert_string_equal(events[2].key.c_str(), "/b");

    auto limited = historySync(h, 0, 2);
    assert_int_equal(limited.size(), 2);
    assert_int_equal(limited[1].revision, 2);
    assert_int_equal(historySync(h, 4).size(), 0);
    assert_int_equal(historySync(h, 100).size(), 0);
}

void reads_and_writes_nest_inside_read_callbacks(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/n/1", "one"));
    write1(h, createOp("/n/2", "two"));
    bool inner = false;
    bool wrote = false;
    storage::ListOptions opts;
    opts.prefix = "/n/";
    h.store->list(opts, [&](const storage::Error& err, const storage::ListResult& r) {
        assert_true(err.ok());
        assert_int_equal(r.items.size(), 2);
        h.store->get("/n/2", [&](const storage::Error& e2, const storage::ObjectView* v) {
            assert_true(e2.ok());
            assert_true(v->value == "two");
            inner = true;
        });
        h.store->write({updateOp("/n/1", "uno", 0)}, [&](WriteResult&& w) {
            assertOk(w);
            wrote = true;
        });
        // The outer snapshot is unaffected by the write queued above.
        assert_true(r.items[0].value == "one");
    });
    h.loop.run();
    assert_true(inner);
    assert_true(wrote);
    assert_string_equal(getSync(h, "/n/1")->value.c_str(), "uno");
}

void put_events_mark_creations_but_not_updates_or_deletes(void** state) {
    Harness& h = harness(state);
    assertOk(write1(h, createOp("/a", "a1")));
    assertOk(write1(h, updateOp("/a", "a2", 1)));
    assertOk(write1(h, deleteOp("/a", 2)));
    assertOk(write1(h, createOp("/a", "again")));
    std::vector<WriteOp> ops;
    ops.push_back(createOp("/b", "b1"));
    ops.push_back(updateOp("/b", "b2", 5));
    assertOk(writeSync(h, std::move(ops)));

    auto events = historySync(h, 0);
    assert_int_equal(events.size(), 6);
    const storage::Event::Type types[] = {storage::Event::Put,    storage::Event::Put,
                                          storage::Event::Delete, storage::Event::Put,
                                          storage::Event::Put,    storage::Event::Put};
    const bool created[] = {true, false, false, true, true, false};
    for (size_t i = 0; i < events.size(); i++) {
        assert_int_equal(events[i].revision, i + 1);
        assert_int_equal(events[i].type, types[i]);
        if (events[i].created != created[i]) {
            fail_msg("revision %zu: created is %d", i + 1, events[i].created);
        }
    }
}

void history_after_compaction_is_compacted_below_the_boundary_and_complete_above(void** state) {
    Harness& h = harness(state);
    writeRevisions(h, 10);
    assert_int_equal(h.store->compactedRevision(), 0);
    assertCompacted(h, 6);
    assert_int_equal(h.store->compactedRevision(), 6);

    // Entries with revision >= 6 are kept: a reader that has seen 5 loses nothing.
    assert_int_equal(historyCode(h, 0), ErrorCode::Compacted);
    assert_int_equal(historyCode(h, 4), ErrorCode::Compacted);
    auto kept = historySync(h, 5);
    assert_int_equal(kept.size(), 5);
    for (size_t i = 0; i < kept.size(); i++) {
        assert_int_equal(kept[i].revision, 6 + i);
        assert_string_equal(kept[i].key.c_str(), ("/r/" + std::to_string(5 + i)).c_str());
    }
    assert_int_equal(historySync(h, 7).size(), 3);
    auto limited = historySync(h, 5, 2);
    assert_int_equal(limited.size(), 2);
    assert_int_equal(limited[1].revision, 7);
    // The objects themselves are untouched.
    assert_int_equal(listSync(h, "/r/").items.size(), 10);
    assert_int_equal(h.store->currentRevision(), 10);
}

void compaction_is_idempotent_and_never_lowers_the_boundary(void** state) {
    Harness& h = harness(state);
    writeRevisions(h, 10);
    assertCompacted(h, 6);
    assertCompacted(h, 6);
    assert_int_equal(h.store->compactedRevision(), 6);
    assertCompacted(h, 3);
    assertCompacted(h, 0);
    assert_int_equal(h.store->compactedRevision(), 6);
    assert_int_equal(historySync(h, 5).size(), 5);

    assertCompacted(h, 8);
    assert_int_equal(h.store->compactedRevision(), 8);
    assert_int_equal(historyCode(h, 6), ErrorCode::Compacted);
    assert_int_equal(historySync(h, 7).size(), 3);
}

void compaction_stops_at_the_current_revision(void** state) {
    Harness& h = harness(state);
    // Nothing written yet: nothing to compact.
    assertCompacted(h, 5);
    assert_int_equal(h.store->compactedRevision(), 0);
    assert_int_equal(historySync(h, 0).size(), 0);

    writeRevisions(h, 5);
    assertCompacted(h, 100);
    assert_int_equal(h.store->compactedRevision(), 5);
    // The newest entry stays, so a reader at the current revision can go on.
    auto last = historySync(h, 4);
    assert_int_equal(last.size(), 1);
    assert_int_equal(last[0].revision, 5);
    assert_int_equal(historySync(h, 5).size(), 0);
    assert_int_equal(historyCode(h, 3), ErrorCode::Compacted);

    assertOk(write1(h, createOp("/after", "v")));
    auto next = historySync(h, 5);
    assert_int_equal(next.size(), 1);
    assert_int_equal(next[0].revision, 6);
    assertCompacted(h, 100);
    assert_int_equal(h.store->compactedRevision(), 6);
}

void compaction_of_a_large_log_keeps_exactly_the_entries_from_the_boundary(void** state) {
    Harness& h = harness(state);
    // More entries than LMDB deletes per transaction (10,000): several chunks.
    constexpr int kCalls = 25;
    constexpr int kOpsPerCall = 1000;
    for (int c = 0; c < kCalls; c++) {
        std::vector<WriteOp> ops;
        for (int i = 0; i < kOpsPerCall; i++) {
            ops.push_back(createOp("/big/" + std::to_string(c * kOpsPerCall + i), "v"));
        }
        assertOk(writeSync(h, std::move(ops)));
    }
    const Revision total = kCalls * kOpsPerCall;
    assert_int_equal(h.store->currentRevision(), total);

    assertCompacted(h, total - 999);
    assert_int_equal(h.store->compactedRevision(), total - 999);
    assert_int_equal(historyCode(h, total - 1001), ErrorCode::Compacted);
    auto kept = historySync(h, total - 1000);
    assert_int_equal(kept.size(), 1000);
    assert_int_equal(kept.front().revision, total - 999);
    assert_int_equal(kept.back().revision, total);
    assert_int_equal(listSync(h, "/big/").items.size(), total);
}

void commit_listener_gets_each_batch_highest_revision_before_its_callback(void** state) {
    Harness& h = harness(state);
    std::vector<Revision> seen;
    h.store->setCommitListener([&](Revision r) { seen.push_back(r); });

    std::vector<WriteOp> ops;
    ops.push_back(createOp("/l/a", "a"));
    ops.push_back(createOp("/l/b", "b"));
    ops.push_back(updateOp("/l/a", "a2", 0));
    size_t seenAtCallback = 0;
    h.store->write(std::move(ops), [&](WriteResult&& r) {
        assertOk(r);
        seenAtCallback = seen.size();
    });
    h.loop.run();
    assert_int_equal(seenAtCallback, 1);
    assert_int_equal(seen.size(), 1);
    assert_int_equal(seen[0], 3);

    // Failed and empty batches commit nothing and are not reported.
    assert_int_equal(write1(h, createOp("/l/a", "dup")).error.code, ErrorCode::KeyExists);
    assertOk(writeSync(h, {}));
    assert_int_equal(seen.size(), 1);

    assertOk(write1(h, deleteOp("/l/b", 0)));
    assert_int_equal(seen.size(), 2);
    assert_int_equal(seen[1], 4);

    // Compaction commits no revision.
    assertCompacted(h, 3);
    assert_int_equal(seen.size(), 2);

    h.store->setCommitListener(nullptr);
    assertOk(write1(h, createOp("/l/c", "c")));
    assert_int_equal(seen.size(), 2);
}

}  // namespace

// Each case runs with a fresh store of the backend under test.
#define CASE(test) cmocka_unit_test_setup_teardown(test, setup, teardown)

int main() {
    const struct CMUnitTest tests[] = {
        CASE(create_then_get_returns_object_with_its_revisions),
        CASE(get_of_absent_key_is_not_found),
        CASE(create_of_existing_key_fails_with_key_exists),
        CASE(update_with_matching_revision_stores_value_and_keeps_create_revision),
        CASE(update_with_stale_revision_fails_with_conflict_and_current_object),
        CASE(update_with_zero_expected_revision_is_unconditional),
        CASE(update_of_absent_key_is_not_found),
        CASE(delete_returns_last_state_at_the_deletion_revision),
        CASE(delete_of_absent_key_is_not_found_and_stale_delete_conflicts),
        CASE(list_returns_only_keys_under_the_prefix_in_key_order),
        CASE(list_pages_with_limit_start_key_more_and_remaining),
        CASE(list_reports_the_store_revision),
        CASE(batch_with_a_failing_op_stores_nothing),
        CASE(batch_ops_take_consecutive_revisions_and_see_earlier_ops),
        CASE(revision_is_spliced_into_the_stored_value),
        CASE(revisions_increase_without_gaps_across_failed_writes),
        CASE(empty_batch_succeeds_without_a_revision),
        CASE(history_returns_events_after_a_revision_in_order),
        CASE(reads_and_writes_nest_inside_read_callbacks),
        CASE(put_events_mark_creations_but_not_updates_or_deletes),
        CASE(history_after_compaction_is_compacted_below_the_boundary_and_complete_above),
        CASE(compaction_is_idempotent_and_never_lowers_the_boundary),
        CASE(compaction_stops_at_the_current_revision),
        CASE(compaction_of_a_large_log_keeps_exactly_the_entries_from_the_boundary),
        CASE(commit_listener_gets_each_batch_highest_revision_before_its_callback),
    };
    gBackend = Backend::Memory;
    int failed =
        cmocka_run_group_tests_name("storage conformance: memory", tests, nullptr, nullptr);
    gBackend = Backend::Lmdb;
    failed += cmocka_run_group_tests_name("storage conformance: lmdb", tests, nullptr, nullptr);
    return failed;
}
