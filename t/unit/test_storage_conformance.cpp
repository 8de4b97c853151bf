// The storage::Interface contract, run against every backend: the same
// tests with the memory store, with an LMDB store in a fresh directory, and
// with the etcd store on a real etcd (Debian's /usr/bin/etcd, started here
// on loopback ports, one for the whole run, each test under an etcd prefix
// of its own; skipped, with a message, when the binary is missing).
// Covers reads, atomic writes, the revision log (history, created flags),
// compaction, the commit listener, and etcd's consistent reads (waitFresh:
// the replica checked against etcd, and the fallback to a linearizable read).
//
// Keys are the registry's ("/registry/..."): the etcd store maps those into
// its prefix. Revisions are counted from the store's revision when the test
// starts (rev(h, n)): 0 on memory and LMDB, etcd's revision when the replica
// was loaded (a fresh etcd starts at 1; earlier tests wrote to the same one).
// The ops of one write take consecutive revisions on memory and LMDB, and one
// shared revision on etcd, whose transaction cannot touch a key twice
// (opRevision); the cases that need the former skip etcd and say why.
//
// etcd answers on its completion queue's thread, which wakes the test; the
// loop then drains the store (settle()). Memory and LMDB finish within one
// run of the loop, as they did before etcd was added.

#include <stdlib.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "etcd_server.hpp"
#include "fake_loop.hpp"
#include "storage/etcd/client.hpp"
#include "storage/etcd/etcd_store.hpp"
#include "storage/etcd/txn_batcher.hpp"
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

// How long a test waits for etcd before it fails, and how far the loop's
// fake clock moves each time it waits for nothing (so that the store's
// timers fire: retries, the check of the replica after 50 ms).
constexpr std::chrono::seconds kSettleTimeout{10};
constexpr std::chrono::milliseconds kIdleStep{10};

// Wake-ups from another thread: etcd's completion queue calls notify().
struct Wake {
    std::mutex mutex;
    std::condition_variable cv;
    bool woken = false;

    void notify() {
        {
            std::lock_guard<std::mutex> lock(mutex);
            woken = true;
        }
        cv.notify_one();
    }

    // Whether notify() came since the last wait, or comes within `d`.
    bool wait(std::chrono::milliseconds d) {
        std::unique_lock<std::mutex> lock(mutex);
        const bool got = cv.wait_for(lock, d, [this] { return woken; });
        woken = false;
        return got;
    }
};

struct Harness {
    testing::FakeLoop loop;
    std::shared_ptr<Wake> wake = std::make_shared<Wake>();
    // etcd: a client of the test's own, for writes outside the store's prefix.
    std::unique_ptr<storage::etcd::Client> outside;
    std::unique_ptr<storage::Interface> store;
    // `store` when it is etcd's, and what it was opened with.
    storage::etcd::Store* etcd = nullptr;
    storage::etcd::Options etcdOptions;
    std::string dir;
    // The store's revision when the test starts: 0 for a fresh memory or
    // LMDB store; on etcd, etcd's revision when the replica was loaded.
    Revision base = 0;
    // compactedRevision() before any compaction: 0 on memory and LMDB
    // ("nothing compacted"); base + 1 on etcd, whose change feed starts at
    // the replica's load.
    Revision compactedAtStart = 0;
    // Whether the ops of one write share one revision (etcd: one
    // transaction, which cannot touch a key twice) rather than each taking
    // the next one and seeing the batch's earlier ops (memory, LMDB).
    bool oneRevisionPerWrite = false;
};

// The n-th revision after the one the test started at.
Revision rev(const Harness& h, Revision n) {
    return h.base + n;
}

// The revision of op `i` of a successful write whose first op got `first`.
Revision opRevision(const Harness& h, Revision first, size_t i) {
    return h.oneRevisionPerWrite ? first : first + i;
}

// Runs the loop until `done()`; false with `*why` set when it is not done
// in time. Memory and LMDB are done once the loop runs out of work. etcd's
// answers come on another thread, which wakes the test; they run in
// drain(). While none comes the fake clock moves by kIdleStep, unless
// `clock` is Clock::Still (a case that counts the loop's time itself).
enum class Clock { Moves, Still };
bool settleFor(Harness& h, std::string* why, const std::function<bool()>& done,
               Clock clock = Clock::Moves) {
    const auto deadline = std::chrono::steady_clock::now() + kSettleTimeout;
    for (;;) {
        h.loop.run();
        if (done()) {
            return true;
        }
        if (h.etcd == nullptr) {
            *why = "not done once the loop ran out of work";
            return false;
        }
        if (!h.wake->wait(kIdleStep)) {
            if (std::chrono::steady_clock::now() > deadline) {
                *why =
                    "etcd did not answer within " + std::to_string(kSettleTimeout.count()) + " s";
                return false;
            }
            if (clock == Clock::Moves) {
                h.loop.advance(kIdleStep);
            }
        }
        h.etcd->drain();
        if (h.outside) {
            h.outside->drain();
        }
    }
}

// settleFor() that fails the test, naming `what` was waited for.
void settle(Harness& h, const char* what, const std::function<bool()>& done,
            Clock clock = Clock::Moves) {
    std::string why;
    if (!settleFor(h, &why, done, clock)) {
        fail_msg("%s: %s", what, why.c_str());
    }
}

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

// The etcd every etcd test shares; its destructor stops it at exit, should
// main() not get to.
testing::EtcdServer gEtcd;
int gPrefixes = 0;

// Replaces the harness's store with an etcd store opened with `options`,
// once its replica is loaded; false with `*error` set when it is not.
bool openEtcd(Harness& h, const storage::etcd::Options& options, std::string* error) {
    h.store.reset();
    h.etcd = nullptr;
    h.loop.run();
    std::unique_ptr<storage::etcd::Store> store = storage::etcd::Store::open(
        options, h.loop, [wake = h.wake] { wake->notify(); }, error);
    if (!store) {
        return false;
    }
    h.etcd = store.get();
    h.store = std::move(store);
    h.etcdOptions = options;
    if (!settleFor(h, error, [&h] { return h.etcd->loaded(); })) {
        *error = "load of the replica: " + *error;
        return false;
    }
    return true;
}

int setupEtcd(void** state) {
    auto h = std::make_unique<Harness>();
    storage::etcd::Options options;
    options.endpoints = {gEtcd.url()};
    // A prefix of its own: the tests share one etcd.
    options.prefix = "/conformance-" + std::to_string(++gPrefixes);
    std::string error;
    if (!openEtcd(*h, options, &error)) {
        print_error("etcd store: %s\n", error.c_str());
        return -1;
    }
    h->base = h->store->currentRevision();
    h->compactedAtStart = h->base + 1;
    h->oneRevisionPerWrite = true;
    *state = h.release();
    return 0;
}

// The backend the next group of tests runs against.
enum class Backend { Memory, Lmdb, Etcd };
Backend gBackend = Backend::Memory;

int setup(void** state) {
    switch (gBackend) {
        case Backend::Memory:
            return setupMemory(state);
        case Backend::Lmdb:
            return setupLmdb(state);
        case Backend::Etcd:
            return setupEtcd(state);
    }
    return -1;
}

int teardown(void** state) {
    auto* h = static_cast<Harness*>(*state);
    h->store.reset();
    h->etcd = nullptr;
    h->outside.reset();
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
    settle(h, "write", [&] { return called; });
    return out;
}

WriteResult write1(Harness& h, WriteOp op) {
    std::vector<WriteOp> ops;
    ops.push_back(std::move(op));
    return writeSync(h, std::move(ops));
}

// get(), or getLinearizable() when `linearizable`.
std::optional<Object> readSync(Harness& h, const std::string& key, ErrorCode* code,
                               bool linearizable) {
    bool called = false;
    std::optional<Object> out;
    ErrorCode got = ErrorCode::Internal;
    auto cb = [&](const storage::Error& err, const storage::ObjectView* view) {
        called = true;
        got = err.code;
        if (err.ok()) {
            assert_non_null(view);
            out = Object{std::string(view->key), std::string(view->value), view->modRevision,
                         view->createRevision};
        } else {
            assert_null(view);
        }
    };
    if (linearizable) {
        h.store->getLinearizable(key, cb);
    } else {
        h.store->get(key, cb);
    }
    settle(h, "get", [&] { return called; });
    if (code != nullptr) {
        *code = got;
    }
    return out;
}

std::optional<Object> getSync(Harness& h, const std::string& key, ErrorCode* code = nullptr) {
    return readSync(h, key, code, false);
}

std::optional<Object> getLinearizableSync(Harness& h, const std::string& key,
                                          ErrorCode* code = nullptr) {
    return readSync(h, key, code, true);
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
    settle(h, "list", [&] { return called; });
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
    settle(h, "history", [&] { return called; });
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
    settle(h, "compact", [&] { return called; });
    return out;
}

void assertCompacted(Harness& h, Revision revision) {
    const storage::Error err = compactSync(h, revision);
    if (!err.ok()) {
        fail_msg("compact(%llu): %s", static_cast<unsigned long long>(revision),
                 err.message.c_str());
    }
}

// waitFresh() and its error.
storage::Error waitFreshSync(Harness& h) {
    bool called = false;
    storage::Error out;
    h.store->waitFresh([&](const storage::Error& err) {
        called = true;
        out = err;
    });
    settle(h, "waitFresh", [&] { return called; });
    return out;
}

// Puts `key` straight into etcd with a client of the test's own, as another
// program would; etcd's revision after the put.
Revision putOutside(Harness& h, const std::string& key) {
    if (!h.outside) {
        bool tls = false;
        std::string error;
        const std::string target = storage::etcd::Client::target({gEtcd.url()}, &tls, &error);
        if (target.empty()) {
            fail_msg("etcd client: %s", error.c_str());
        }
        storage::etcd::Client::Options options;
        options.endpoints = {gEtcd.url()};
        h.outside = std::make_unique<storage::etcd::Client>(target, options,
                                                            [wake = h.wake] { wake->notify(); });
    }
    etcdserverpb::TxnRequest txn;
    etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
    put->set_key(key);
    put->set_value("outside");
    bool called = false;
    std::string error;
    Revision revision = 0;
    h.outside->txn(txn, [&](const grpc::Status& status, etcdserverpb::TxnResponse& resp) {
        called = true;
        if (!status.ok()) {
            error = status.error_message();
        } else {
            revision = static_cast<Revision>(resp.header().revision());
        }
    });
    settle(h, "put outside the prefix", [&] { return called; });
    if (!error.empty()) {
        fail_msg("put of \"%s\": %s", key.c_str(), error.c_str());
    }
    return revision;
}

// Revisions base+1..base+n, one create per call.
void writeRevisions(Harness& h, int n) {
    for (int i = 0; i < n; i++) {
        assertOk(write1(h, createOp("/registry/r/" + std::to_string(i), "v")));
    }
}

void create_then_get_returns_object_with_its_revisions(void** state) {
    Harness& h = harness(state);
    WriteResult r = write1(h, createOp("/registry/pods/ns/a", "A"));
    assertOk(r);
    assert_int_equal(r.objects.size(), 1);
    assert_string_equal(r.objects[0].key.c_str(), "/registry/pods/ns/a");
    assert_string_equal(r.objects[0].value.c_str(), "A");
    assert_int_equal(r.objects[0].modRevision, rev(h, 1));
    assert_int_equal(r.objects[0].createRevision, rev(h, 1));

    auto got = getSync(h, "/registry/pods/ns/a");
    assert_true(got.has_value());
    assert_string_equal(got->key.c_str(), "/registry/pods/ns/a");
    assert_string_equal(got->value.c_str(), "A");
    assert_int_equal(got->modRevision, rev(h, 1));
    assert_int_equal(got->createRevision, rev(h, 1));
    assert_int_equal(h.store->currentRevision(), rev(h, 1));
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
    assertOk(write1(h, createOp("/registry/k", "first")));
    WriteResult r = write1(h, createOp("/registry/k", "second"));
    assert_int_equal(r.error.code, ErrorCode::KeyExists);
    assert_int_equal(r.failedOp, 0);
    assert_string_equal(r.objects.at(0).value.c_str(), "first");
    assert_int_equal(r.objects.at(0).modRevision, rev(h, 1));
    assert_string_equal(getSync(h, "/registry/k")->value.c_str(), "first");
    assert_int_equal(h.store->currentRevision(), rev(h, 1));
}

void update_with_matching_revision_stores_value_and_keeps_create_revision(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/registry/other", "x"));
    assertOk(write1(h, createOp("/registry/k", "v1")));
    WriteResult r = write1(h, updateOp("/registry/k", "v2", rev(h, 2)));
    assertOk(r);
    assert_int_equal(r.objects.at(0).modRevision, rev(h, 3));
    assert_int_equal(r.objects.at(0).createRevision, rev(h, 2));
    auto got = getSync(h, "/registry/k");
    assert_string_equal(got->value.c_str(), "v2");
    assert_int_equal(got->modRevision, rev(h, 3));
    assert_int_equal(got->createRevision, rev(h, 2));
}

void update_with_stale_revision_fails_with_conflict_and_current_object(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/registry/k", "v1"));
    assertOk(write1(h, updateOp("/registry/k", "v2", rev(h, 1))));
    WriteResult r = write1(h, updateOp("/registry/k", "v3", rev(h, 1)));
    assert_int_equal(r.error.code, ErrorCode::Conflict);
    assert_int_equal(r.failedOp, 0);
    assert_string_equal(r.objects.at(0).value.c_str(), "v2");
    assert_int_equal(r.objects.at(0).modRevision, rev(h, 2));
    assert_string_equal(getSync(h, "/registry/k")->value.c_str(), "v2");
    assert_int_equal(h.store->currentRevision(), rev(h, 2));
}

void update_with_zero_expected_revision_is_unconditional(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/registry/k", "v1"));
    write1(h, updateOp("/registry/k", "v2", 0));
    WriteResult r = write1(h, updateOp("/registry/k", "v3", 0));
    assertOk(r);
    assert_int_equal(r.objects.at(0).modRevision, rev(h, 3));
    assert_string_equal(getSync(h, "/registry/k")->value.c_str(), "v3");
}

void update_of_absent_key_is_not_found(void** state) {
    Harness& h = harness(state);
    WriteResult r = write1(h, updateOp("/registry/nope", "v", 0));
    assert_int_equal(r.error.code, ErrorCode::NotFound);
    assert_int_equal(r.failedOp, 0);
    assert_true(r.objects.at(0).key.empty());
    assert_int_equal(h.store->currentRevision(), rev(h, 0));
}

void delete_returns_last_state_at_the_deletion_revision(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/registry/k", "v1"));
    write1(h, updateOp("/registry/k", "v2", rev(h, 1)));
    WriteResult r = write1(h, deleteOp("/registry/k", rev(h, 2)));
    assertOk(r);
    assert_string_equal(r.objects.at(0).key.c_str(), "/registry/k");
    assert_string_equal(r.objects.at(0).value.c_str(), "v2");
    assert_int_equal(r.objects.at(0).modRevision, rev(h, 3));
    assert_int_equal(r.objects.at(0).createRevision, rev(h, 1));
    ErrorCode code = ErrorCode::Ok;
    assert_false(getSync(h, "/registry/k", &code).has_value());
    assert_int_equal(code, ErrorCode::NotFound);
    assert_int_equal(h.store->currentRevision(), rev(h, 3));
}

void delete_of_absent_key_is_not_found_and_stale_delete_conflicts(void** state) {
    Harness& h = harness(state);
    assert_int_equal(write1(h, deleteOp("/registry/nope", 0)).error.code, ErrorCode::NotFound);
    write1(h, createOp("/registry/k", "v1"));
    WriteResult r = write1(h, deleteOp("/registry/k", rev(h, 7)));
    assert_int_equal(r.error.code, ErrorCode::Conflict);
    assert_string_equal(r.objects.at(0).value.c_str(), "v1");
    assert_true(getSync(h, "/registry/k").has_value());
    // Gone once: a second delete finds nothing.
    assertOk(write1(h, deleteOp("/registry/k", 0)));
    assert_int_equal(write1(h, deleteOp("/registry/k", 0)).error.code, ErrorCode::NotFound);
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
    // "/registry/pods/a/w" is the write's op 3.
    assert_int_equal(l.items[0].modRevision, opRevision(h, rev(h, 1), 3));
    assert_false(l.more);
    assert_int_equal(l.remaining, 0);

    assert_int_equal(listSync(h, "/registry/pods/a/").items.size(), 2);
    assert_int_equal(listSync(h, "/registry/nodes/").items.size(), 0);
    assert_int_equal(listSync(h, "").items.size(), 6);
}

void list_pages_with_limit_start_key_more_and_remaining(void** state) {
    Harness& h = harness(state);
    std::vector<WriteOp> ops;
    for (const char* k : {"/registry/p/1", "/registry/p/2", "/registry/p/3", "/registry/p/4",
                          "/registry/p/5", "/registry/q/1"}) {
        ops.push_back(createOp(k, "v"));
    }
    assertOk(writeSync(h, std::move(ops)));

    ListOut page = listSync(h, "/registry/p/", 2);
    assert_int_equal(page.items.size(), 2);
    assert_string_equal(page.items[1].key.c_str(), "/registry/p/2");
    assert_true(page.more);
    assert_int_equal(page.remaining, 3);

    // The next page starts at the key after the last one returned.
    page = listSync(h, "/registry/p/", 2, "/registry/p/2\x01");
    assert_int_equal(page.items.size(), 2);
    assert_string_equal(page.items[0].key.c_str(), "/registry/p/3");
    assert_true(page.more);
    assert_int_equal(page.remaining, 1);

    page = listSync(h, "/registry/p/", 2, "/registry/p/5");
    assert_int_equal(page.items.size(), 1);
    assert_string_equal(page.items[0].key.c_str(), "/registry/p/5");
    assert_false(page.more);
    assert_int_equal(page.remaining, 0);

    // Exactly `limit` left: not cut short.
    page = listSync(h, "/registry/p/", 2, "/registry/p/4");
    assert_int_equal(page.items.size(), 2);
    assert_false(page.more);

    // A start key before the prefix starts at the prefix; one past it yields nothing.
    assert_int_equal(listSync(h, "/registry/p/", 0, "/registry/a").items.size(), 5);
    assert_int_equal(listSync(h, "/registry/p/", 0, "/registry/p/9").items.size(), 0);
}

void list_reports_the_store_revision(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/registry/a/1", "v"));
    write1(h, createOp("/registry/b/1", "v"));
    write1(h, updateOp("/registry/b/1", "w", 0));
    ListOut l = listSync(h, "/registry/a/");
    assert_int_equal(l.items.size(), 1);
    assert_int_equal(l.items[0].modRevision, rev(h, 1));
    assert_int_equal(l.revision, rev(h, 3));
}

void batch_with_a_failing_op_stores_nothing(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/registry/exists", "v"));
    std::vector<WriteOp> ops;
    ops.push_back(createOp("/registry/new", "n"));
    ops.push_back(createOp("/registry/exists", "again"));
    ops.push_back(createOp("/registry/new2", "n"));
    WriteResult r = writeSync(h, std::move(ops));
    assert_int_equal(r.error.code, ErrorCode::KeyExists);
    assert_int_equal(r.failedOp, 1);
    assert_int_equal(r.objects.size(), 3);
    assert_string_equal(r.objects[1].value.c_str(), "v");
    assert_false(getSync(h, "/registry/new").has_value());
    assert_false(getSync(h, "/registry/new2").has_value());
    assert_int_equal(h.store->currentRevision(), rev(h, 1));
    assert_int_equal(historySync(h, rev(h, 0)).size(), 1);
}

// Every backend: the ops of one write take revisions in op order (each its
// own, or one shared by all on etcd), and the change feed has them so.
void batch_ops_take_revisions_in_op_order(void** state) {
    Harness& h = harness(state);
    assertOk(write1(h, createOp("/registry/t/old", "o")));
    assertOk(write1(h, createOp("/registry/t/kept", "k1")));
    std::vector<WriteOp> ops;
    ops.push_back(createOp("/registry/t/new", "n"));
    ops.push_back(deleteOp("/registry/t/old", rev(h, 1)));
    ops.push_back(updateOp("/registry/t/kept", "k2", rev(h, 2)));
    WriteResult r = writeSync(h, std::move(ops));
    assertOk(r);
    assert_int_equal(r.objects.size(), 3);
    const Revision first = rev(h, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(r.objects[i].modRevision, opRevision(h, first, i));
    }
    assert_int_equal(r.objects[0].createRevision, first);
    assert_string_equal(r.objects[1].value.c_str(), "o");
    assert_int_equal(r.objects[1].createRevision, rev(h, 1));
    assert_string_equal(r.objects[2].value.c_str(), "k2");
    assert_int_equal(r.objects[2].createRevision, rev(h, 2));
    assert_int_equal(h.store->currentRevision(), opRevision(h, first, 2));

    auto events = historySync(h, rev(h, 2));
    assert_int_equal(events.size(), 3);
    const char* keys[] = {"/registry/t/new", "/registry/t/old", "/registry/t/kept"};
    const storage::Event::Type types[] = {storage::Event::Put, storage::Event::Delete,
                                          storage::Event::Put};
    const bool created[] = {true, false, false};
    for (size_t i = 0; i < events.size(); i++) {
        assert_int_equal(events[i].revision, opRevision(h, first, i));
        assert_string_equal(events[i].key.c_str(), keys[i]);
        assert_int_equal(events[i].type, types[i]);
        if (events[i].created != created[i]) {
            fail_msg("event %zu: created is %d", i, events[i].created);
        }
    }
    auto kept = getSync(h, "/registry/t/kept");
    assert_string_equal(kept->value.c_str(), "k2");
    assert_int_equal(kept->modRevision, opRevision(h, first, 2));
    assert_false(getSync(h, "/registry/t/old").has_value());
}

// Memory and LMDB only: their ops take consecutive revisions and see the
// batch's earlier ops; one etcd transaction cannot touch a key twice
// (batch_ops_take_revisions_in_op_order holds on every backend).
void batch_ops_take_consecutive_revisions_and_see_earlier_ops(void** state) {
    Harness& h = harness(state);
    if (h.oneRevisionPerWrite) {
        skip();
    }
    write1(h, createOp("/registry/old", "o"));
    std::vector<WriteOp> ops;
    ops.push_back(createOp("/registry/a", "a1"));
    ops.push_back(updateOp("/registry/a", "a2", 2));  // the revision the create above gets
    ops.push_back(deleteOp("/registry/old", 1));
    ops.push_back(createOp("/registry/old", "reborn"));
    WriteResult r = writeSync(h, std::move(ops));
    assertOk(r);
    assert_int_equal(r.objects.size(), 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(r.objects[i].modRevision, 2 + i);
    }
    assert_int_equal(r.objects[1].createRevision, 2);
    assert_string_equal(r.objects[2].value.c_str(), "o");
    auto a = getSync(h, "/registry/a");
    assert_string_equal(a->value.c_str(), "a2");
    assert_int_equal(a->modRevision, 3);
    auto old = getSync(h, "/registry/old");
    assert_string_equal(old->value.c_str(), "reborn");
    assert_int_equal(old->createRevision, 5);
    assert_int_equal(h.store->currentRevision(), 5);

    // Within a batch an op checks against the batch's own earlier effect.
    std::vector<WriteOp> bad;
    bad.push_back(deleteOp("/registry/a", 0));
    bad.push_back(updateOp("/registry/a", "x", 0));
    WriteResult fail = writeSync(h, std::move(bad));
    assert_int_equal(fail.error.code, ErrorCode::NotFound);
    assert_int_equal(fail.failedOp, 1);
    assert_true(getSync(h, "/registry/a").has_value());
}

void revision_is_spliced_into_the_stored_value(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/registry/x", "x"));
    const std::string json = R"({"metadata":{"resourceVersion":""}})";
    const size_t offset = json.find("\"\"") + 1;  // between the empty quotes
    WriteResult r = write1(h, createOp("/registry/k", json, offset));
    assertOk(r);
    const auto withVersion = [](Revision v) {
        return R"({"metadata":{"resourceVersion":")" + std::to_string(v) + R"("}})";
    };
    const std::string want = withVersion(rev(h, 2));
    assert_string_equal(r.objects[0].value.c_str(), want.c_str());
    assert_string_equal(getSync(h, "/registry/k")->value.c_str(), want.c_str());

    WriteOp up = updateOp("/registry/k", json, rev(h, 2));
    up.revisionOffset = offset;
    r = write1(h, std::move(up));
    assertOk(r);
    const std::string want3 = withVersion(rev(h, 3));
    assert_string_equal(r.objects[0].value.c_str(), want3.c_str());
    assert_string_equal(getSync(h, "/registry/k")->value.c_str(), want3.c_str());
    auto events = historySync(h, rev(h, 2));
    assert_int_equal(events.size(), 1);
    assert_string_equal(events[0].value.c_str(), want3.c_str());
}

void revisions_increase_without_gaps_across_failed_writes(void** state) {
    Harness& h = harness(state);
    Revision last = rev(h, 0);
    for (int i = 0; i < 20; i++) {
        const std::string key = "/registry/k/" + std::to_string(i % 5);
        const bool stale = i >= 5 && i % 3 == 2;
        WriteResult r = i < 5   ? write1(h, createOp(key, "c"))
                        : stale ? write1(h, updateOp(key, "u", rev(h, 999)))
                                : write1(h, updateOp(key, "u", 0));
        if (stale) {
            assert_int_equal(r.error.code, ErrorCode::Conflict);
            continue;
        }
        assertOk(r);
        assert_int_equal(r.objects[0].modRevision, last + 1);
        last = r.objects[0].modRevision;
    }
    assert_int_equal(last, rev(h, 15));
    assert_int_equal(h.store->currentRevision(), last);
    auto events = historySync(h, rev(h, 0));
    assert_int_equal(events.size(), 15);
    for (size_t i = 0; i < events.size(); i++) {
        assert_int_equal(events[i].revision, rev(h, i + 1));
    }
}

void empty_batch_succeeds_without_a_revision(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/registry/k", "v"));
    WriteResult r = writeSync(h, {});
    assertOk(r);
    assert_int_equal(r.objects.size(), 0);
    assert_int_equal(h.store->currentRevision(), rev(h, 1));
}

void history_returns_events_after_a_revision_in_order(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/registry/a", "a1"));
    write1(h, updateOp("/registry/a", "a2", rev(h, 1)));
    write1(h, deleteOp("/registry/a", rev(h, 2)));
    write1(h, createOp("/registry/b", "b1"));

    auto all = historySync(h, rev(h, 0));
    assert_int_equal(all.size(), 4);
    auto events = historySync(h, rev(h, 1));
    assert_int_equal(events.size(), 3);
    assert_int_equal(events[0].type, storage::Event::Put);
    assert_int_equal(events[0].revision, rev(h, 2));
    assert_string_equal(events[0].key.c_str(), "/registry/a");
    assert_string_equal(events[0].value.c_str(), "a2");
    // A delete carries the object's last state.
    assert_int_equal(events[1].type, storage::Event::Delete);
    assert_int_equal(events[1].revision, rev(h, 3));
    assert_string_equal(events[1].value.c_str(), "a2");
    assert_int_equal(events[2].type, storage::Event::Put);
    assert_string_equal(events[2].key.c_str(), "/registry/b");

    auto limited = historySync(h, rev(h, 0), 2);
    assert_int_equal(limited.size(), 2);
    assert_int_equal(limited[1].revision, rev(h, 2));
    assert_int_equal(historySync(h, rev(h, 4)).size(), 0);
    assert_int_equal(historySync(h, rev(h, 100)).size(), 0);
}

void reads_and_writes_nest_inside_read_callbacks(void** state) {
    Harness& h = harness(state);
    write1(h, createOp("/registry/n/1", "one"));
    write1(h, createOp("/registry/n/2", "two"));
    bool inner = false;
    bool wrote = false;
    storage::ListOptions opts;
    opts.prefix = "/registry/n/";
    h.store->list(opts, [&](const storage::Error& err, const storage::ListResult& r) {
        assert_true(err.ok());
        assert_int_equal(r.items.size(), 2);
        h.store->get("/registry/n/2", [&](const storage::Error& e2, const storage::ObjectView* v) {
            assert_true(e2.ok());
            assert_true(v->value == "two");
            inner = true;
        });
        h.store->write({updateOp("/registry/n/1", "uno", 0)}, [&](WriteResult&& w) {
            assertOk(w);
            wrote = true;
        });
        // The outer snapshot is unaffected by the write queued above.
        assert_true(r.items[0].value == "one");
    });
    settle(h, "nested read and write", [&] { return inner && wrote; });
    assert_true(inner);
    assert_true(wrote);
    assert_string_equal(getSync(h, "/registry/n/1")->value.c_str(), "uno");
}

void put_events_mark_creations_but_not_updates_or_deletes(void** state) {
    Harness& h = harness(state);
    assertOk(write1(h, createOp("/registry/a", "a1")));
    assertOk(write1(h, updateOp("/registry/a", "a2", rev(h, 1))));
    assertOk(write1(h, deleteOp("/registry/a", rev(h, 2))));
    assertOk(write1(h, createOp("/registry/a", "again")));
    // A create and an update of one key: one write on memory and LMDB; two
    // on etcd, whose transaction cannot touch a key twice. Both take
    // revisions 5 and 6.
    std::vector<WriteOp> ops;
    ops.push_back(createOp("/registry/b", "b1"));
    ops.push_back(updateOp("/registry/b", "b2", rev(h, 5)));
    if (h.oneRevisionPerWrite) {
        for (WriteOp& op : ops) {
            assertOk(write1(h, std::move(op)));
        }
    } else {
        assertOk(writeSync(h, std::move(ops)));
    }

    auto events = historySync(h, rev(h, 0));
    assert_int_equal(events.size(), 6);
    const storage::Event::Type types[] = {storage::Event::Put,    storage::Event::Put,
                                          storage::Event::Delete, storage::Event::Put,
                                          storage::Event::Put,    storage::Event::Put};
    const bool created[] = {true, false, false, true, true, false};
    for (size_t i = 0; i < events.size(); i++) {
        assert_int_equal(events[i].revision, rev(h, i + 1));
        assert_int_equal(events[i].type, types[i]);
        if (events[i].created != created[i]) {
            fail_msg("revision %zu: created is %d", i + 1, events[i].created);
        }
    }
}

void history_after_compaction_is_compacted_below_the_boundary_and_complete_above(void** state) {
    Harness& h = harness(state);
    writeRevisions(h, 10);
    assert_int_equal(h.store->compactedRevision(), h.compactedAtStart);
    assertCompacted(h, rev(h, 6));
    assert_int_equal(h.store->compactedRevision(), rev(h, 6));

    // Entries with revision >= 6 are kept: a reader that has seen 5 loses nothing.
    assert_int_equal(historyCode(h, rev(h, 0)), ErrorCode::Compacted);
    assert_int_equal(historyCode(h, rev(h, 4)), ErrorCode::Compacted);
    auto kept = historySync(h, rev(h, 5));
    assert_int_equal(kept.size(), 5);
    for (size_t i = 0; i < kept.size(); i++) {
        assert_int_equal(kept[i].revision, rev(h, 6 + i));
        assert_string_equal(kept[i].key.c_str(), ("/registry/r/" + std::to_string(5 + i)).c_str());
    }
    assert_int_equal(historySync(h, rev(h, 7)).size(), 3);
    auto limited = historySync(h, rev(h, 5), 2);
    assert_int_equal(limited.size(), 2);
    assert_int_equal(limited[1].revision, rev(h, 7));
    // The objects themselves are untouched.
    assert_int_equal(listSync(h, "/registry/r/").items.size(), 10);
    assert_int_equal(h.store->currentRevision(), rev(h, 10));
}

void compaction_is_idempotent_and_never_lowers_the_boundary(void** state) {
    Harness& h = harness(state);
    writeRevisions(h, 10);
    assertCompacted(h, rev(h, 6));
    assertCompacted(h, rev(h, 6));
    assert_int_equal(h.store->compactedRevision(), rev(h, 6));
    assertCompacted(h, rev(h, 3));
    assertCompacted(h, 0);
    assert_int_equal(h.store->compactedRevision(), rev(h, 6));
    assert_int_equal(historySync(h, rev(h, 5)).size(), 5);

    assertCompacted(h, rev(h, 8));
    assert_int_equal(h.store->compactedRevision(), rev(h, 8));
    assert_int_equal(historyCode(h, rev(h, 6)), ErrorCode::Compacted);
    assert_int_equal(historySync(h, rev(h, 7)).size(), 3);
}

void compaction_stops_at_the_current_revision(void** state) {
    Harness& h = harness(state);
    // Nothing written yet: nothing to compact.
    assertCompacted(h, rev(h, 5));
    assert_int_equal(h.store->compactedRevision(), h.compactedAtStart);
    assert_int_equal(historySync(h, rev(h, 0)).size(), 0);

    writeRevisions(h, 5);
    assertCompacted(h, rev(h, 100));
    assert_int_equal(h.store->compactedRevision(), rev(h, 5));
    // The newest entry stays, so a reader at the current revision can go on.
    auto last = historySync(h, rev(h, 4));
    assert_int_equal(last.size(), 1);
    assert_int_equal(last[0].revision, rev(h, 5));
    assert_int_equal(historySync(h, rev(h, 5)).size(), 0);
    assert_int_equal(historyCode(h, rev(h, 3)), ErrorCode::Compacted);

    assertOk(write1(h, createOp("/registry/after", "v")));
    auto next = historySync(h, rev(h, 5));
    assert_int_equal(next.size(), 1);
    assert_int_equal(next[0].revision, rev(h, 6));
    assertCompacted(h, rev(h, 100));
    assert_int_equal(h.store->compactedRevision(), rev(h, 6));
}

// Memory and LMDB only: it checks LMDB's deletion of a log of per-op
// revisions in chunks; on etcd the 1,000 ops of a write would share one
// revision, and etcd takes at most 128 ops in a transaction (--max-txn-ops).
void compaction_of_a_large_log_keeps_exactly_the_entries_from_the_boundary(void** state) {
    Harness& h = harness(state);
    if (h.oneRevisionPerWrite) {
        skip();
    }
    // More entries than LMDB deletes per transaction (10,000): several chunks.
    constexpr int kCalls = 25;
    constexpr int kOpsPerCall = 1000;
    for (int c = 0; c < kCalls; c++) {
        std::vector<WriteOp> ops;
        for (int i = 0; i < kOpsPerCall; i++) {
            ops.push_back(createOp("/registry/big/" + std::to_string(c * kOpsPerCall + i), "v"));
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
    assert_int_equal(listSync(h, "/registry/big/").items.size(), total);
}

void commit_listener_gets_each_batch_highest_revision_before_its_callback(void** state) {
    Harness& h = harness(state);
    std::vector<Revision> seen;
    h.store->setCommitListener([&](Revision r) { seen.push_back(r); });

    std::vector<WriteOp> ops;
    ops.push_back(createOp("/registry/l/a", "a"));
    ops.push_back(createOp("/registry/l/b", "b"));
    // One etcd transaction cannot touch a key twice.
    ops.push_back(h.oneRevisionPerWrite ? createOp("/registry/l/z", "z")
                                        : updateOp("/registry/l/a", "a2", 0));
    bool called = false;
    size_t seenAtCallback = 0;
    h.store->write(std::move(ops), [&](WriteResult&& r) {
        assertOk(r);
        called = true;
        seenAtCallback = seen.size();
    });
    settle(h, "write", [&] { return called; });
    assert_int_equal(seenAtCallback, 1);
    assert_int_equal(seen.size(), 1);
    assert_int_equal(seen[0], opRevision(h, rev(h, 1), 2));

    // Failed and empty batches commit nothing and are not reported.
    assert_int_equal(write1(h, createOp("/registry/l/a", "dup")).error.code, ErrorCode::KeyExists);
    assertOk(writeSync(h, {}));
    assert_int_equal(seen.size(), 1);

    assertOk(write1(h, deleteOp("/registry/l/b", 0)));
    assert_int_equal(seen.size(), 2);
    assert_int_equal(seen[1], seen[0] + 1);

    // Compaction commits no revision.
    assertCompacted(h, rev(h, 3));
    assert_int_equal(seen.size(), 2);

    h.store->setCommitListener(nullptr);
    assertOk(write1(h, createOp("/registry/l/c", "c")));
    assert_int_equal(seen.size(), 2);
}

// Reopens the harness's etcd store with `timeout` as its freshTimeout;
// what it was opened with.
storage::etcd::Options withFreshTimeout(Harness& h, std::chrono::milliseconds timeout) {
    storage::etcd::Options options = h.etcdOptions;
    options.freshTimeout = timeout;
    std::string error;
    if (!openEtcd(h, options, &error)) {
        fail_msg("etcd store: %s", error.c_str());
    }
    return options;
}

// Creates /registry/f/k = "v"; its revision.
Revision createFreshKey(Harness& h) {
    WriteResult w = write1(h, createOp("/registry/f/k", "v"));
    assertOk(w);
    return w.objects[0].modRevision;
}

// etcd only: a consistent read whose replica does not reach etcd's revision
// in time fails waitFresh and counts a fallback; the caller then reads etcd
// itself. A put outside the prefix moves etcd's revision where the replica's
// watch never goes, so the replica cannot catch up; with freshTimeout 0 the
// deadline (set as etcd's revision is asked) has passed when etcd answers,
// so the read falls back at once, before the replica could be checked.
void consistent_read_falls_back_to_etcd_when_the_replica_is_late(void** state) {
    Harness& h = harness(state);
    const storage::etcd::Options options = withFreshTimeout(h, std::chrono::milliseconds(0));
    const Revision written = createFreshKey(h);
    const Revision outside = putOutside(h, "/outside" + options.prefix);
    assert_true(outside > written);

    const storage::Error err = waitFreshSync(h);
    assert_int_equal(err.code, ErrorCode::Unavailable);
    const std::string reason = "did not reach revision " + std::to_string(outside);
    if (err.message.find(reason) == std::string::npos) {
        fail_msg("waitFresh: \"%s\" does not say \"%s\"", err.message.c_str(), reason.c_str());
    }
    // The replica stayed behind, as the watch brought nothing.
    assert_int_equal(h.store->currentRevision(), written);
    assert_int_equal(h.etcd->stats().consistentFallbacks, 1);
    assert_int_equal(h.etcd->stats().consistentReads, 0);
    const std::string counted =
        "apiserver_watch_cache_consistent_read_total{fallback=\"true\",success=\"false\"} 1\n";
    if (h.store->metricsText().find(counted) == std::string::npos) {
        fail_msg("metrics do not count the fallback:\n%s", h.store->metricsText().c_str());
    }

    // The fallback reads etcd.
    auto got = getLinearizableSync(h, "/registry/f/k");
    assert_true(got.has_value());
    assert_string_equal(got->key.c_str(), "/registry/f/k");
    assert_string_equal(got->value.c_str(), "v");
    assert_int_equal(got->modRevision, written);
    assert_int_equal(got->createRevision, written);
    ErrorCode code = ErrorCode::Ok;
    assert_false(getLinearizableSync(h, "/registry/f/none", &code).has_value());
    assert_int_equal(code, ErrorCode::NotFound);
}

// etcd only: with kube's freshTimeout (3 s), the same put outside the
// prefix does not make the read fall back: after 50 ms of the loop's clock
// the replica is checked against etcd at its revision (no key of the prefix
// modified since, as many keys), and the read is served from it. The loop's
// clock moves only while the test waits for etcd, 10 ms per 10 ms waited, so
// the check comes after some 50 ms of real time, far within the 3 s the
// deadline gives (of the steady clock) even on a loaded machine.
void consistent_read_checks_the_replica_when_etcd_moved_outside_the_prefix(void** state) {
    Harness& h = harness(state);
    const storage::etcd::Options options = withFreshTimeout(h, std::chrono::milliseconds(3000));
    const Revision written = createFreshKey(h);
    assert_true(putOutside(h, "/outside" + options.prefix) > written);

    const storage::etcd::Stats before = h.etcd->stats();
    const storage::Error err = waitFreshSync(h);
    if (!err.ok()) {
        fail_msg("waitFresh: %s", err.message.c_str());
    }
    assert_int_equal(h.store->currentRevision(), written);
    assert_int_equal(h.etcd->stats().consistentReads, before.consistentReads + 1);
    assert_int_equal(h.etcd->stats().consistentFallbacks, 0);
    // etcd's revision asked, then the replica checked at it.
    assert_int_equal(h.etcd->stats().revisionRanges, before.revisionRanges + 2);
    assert_string_equal(getSync(h, "/registry/f/k")->value.c_str(), "v");
}

}  // namespace

// Each case runs with a fresh store of the backend under test.
#define CASE(test) cmocka_unit_test_setup_teardown(test, setup, teardown)

// Whether the store's metrics say `line` (a whole line).
bool metricsSay(Harness& h, const std::string& line) {
    return h.store->metricsText().find(line + "\n") != std::string::npos;
}

void assertMetricsSay(Harness& h, const std::string& line) {
    if (!metricsSay(h, line)) {
        fail_msg("metrics lack \"%s\":\n%s", line.c_str(), h.store->metricsText().c_str());
    }
}

// Starts a write of `op` alone; `out` gets its result once etcd answers.
void startWrite(Harness& h, WriteOp op, std::optional<WriteResult>& out) {
    std::vector<WriteOp> ops;
    ops.push_back(std::move(op));
    h.store->write(std::move(ops), [&out](WriteResult&& r) { out = std::move(r); });
}

// etcd only: the writes made in one turn of the loop go to etcd as one
// transaction (TxnBatcher), each nested with its own comparisons: each
// succeeds or fails on its own, those that succeed share one revision, and
// a write of a key an earlier one writes opens the next transaction (later
// ones join it), which goes out once the first came back.
void writes_that_come_together_share_a_transaction_and_fail_alone(void** state) {
    Harness& h = harness(state);
    assertOk(write1(h, createOp("/registry/b/taken", "old")));
    const Revision taken = h.store->currentRevision();
    std::vector<std::optional<WriteResult>> results(5);
    startWrite(h, createOp("/registry/b/a", "a"), results[0]);
    startWrite(h, createOp("/registry/b/taken", "new"), results[1]);
    startWrite(h, createOp("/registry/b/c", "c"), results[2]);
    startWrite(h, updateOp("/registry/b/c", "c2", 0), results[3]);  // write 2's key
    startWrite(h, deleteOp("/registry/b/none", 0), results[4]);
    settle(h, "five writes", [&] {
        return std::all_of(results.begin(), results.end(),
                           [](const auto& r) { return r.has_value(); });
    });
    assertOk(*results[0]);
    assertOk(*results[2]);
    const Revision together = results[0]->objects.at(0).modRevision;
    assert_int_equal(together, taken + 1);
    assert_int_equal(results[2]->objects.at(0).modRevision, together);
    assert_int_equal(results[1]->error.code, ErrorCode::KeyExists);
    assert_string_equal(results[1]->objects.at(0).value.c_str(), "old");
    assert_int_equal(results[1]->objects.at(0).modRevision, taken);
    assert_int_equal(results[4]->error.code, ErrorCode::NotFound);
    assertOk(*results[3]);
    assert_int_equal(results[3]->objects.at(0).modRevision, together + 1);
    assert_string_equal(getSync(h, "/registry/b/c")->value.c_str(), "c2");
    assert_string_equal(getSync(h, "/registry/b/taken")->value.c_str(), "old");
    // Two transactions: writes 0-2, then 3 (its key is in the first) and 4,
    // which joins the last one open.
    assertMetricsSay(h, "etcd_batched_transactions_total 2");
    assertMetricsSay(h, "etcd_batched_writes_total 5");
    // The feed: both creates at one revision, the update at the next.
    std::vector<EventCopy> events = historySync(h, taken);
    assert_int_equal(events.size(), 3);
    assert_string_equal(events[0].key.c_str(), "/registry/b/a");
    assert_string_equal(events[1].key.c_str(), "/registry/b/c");
    assert_int_equal(events[0].revision, together);
    assert_int_equal(events[1].revision, together);
    assert_int_equal(events[2].revision, together + 1);
    assert_false(events[2].created);
}

// etcd only: writes too large to share etcd's request go in transactions of
// their own, and still succeed.
void writes_too_large_to_share_a_request_go_alone(void** state) {
    Harness& h = harness(state);
    const std::string big(600 * 1024, 'x');
    std::vector<std::optional<WriteResult>> results(2);
    startWrite(h, createOp("/registry/big/1", big), results[0]);
    startWrite(h, createOp("/registry/big/2", big), results[1]);
    settle(h, "two large writes", [&] { return results[0] && results[1]; });
    assertOk(*results[0]);
    assertOk(*results[1]);
    assert_int_not_equal(results[0]->objects.at(0).modRevision,
                         results[1]->objects.at(0).modRevision);
    assertMetricsSay(h, "etcd_batched_transactions_total 0");
    assert_int_equal(getSync(h, "/registry/big/2")->value.size(), big.size());
}

// etcd only: while etcd does not answer (stopped with SIGSTOP: connected,
// silent), the next write waits for the transaction out for kStallAfter
// (200 ms of the loop's clock), then goes out beside it with its own
// deadline rather than wait on that one's; once etcd answers, both succeed.
void a_write_goes_out_beside_a_transaction_etcd_does_not_answer(void** state) {
    Harness& h = harness(state);
    if (kill(gEtcd.pid(), SIGSTOP) != 0) {
        fail_msg("SIGSTOP etcd: %s", strerror(errno));
    }
    std::vector<std::optional<WriteResult>> results(2);
    startWrite(h, createOp("/registry/stall/a", "v"), results[0]);
    h.loop.run();  // sent
    startWrite(h, createOp("/registry/stall/b", "v"), results[1]);
    h.loop.run();  // queued behind it
    const bool queued = metricsSay(h, "etcd_transactions_in_flight 1");
    h.loop.advance(storage::etcd::TxnBatcher::kStallAfter - std::chrono::milliseconds(1));
    h.loop.run();
    const bool stillQueued = metricsSay(h, "etcd_transactions_in_flight 1");
    h.loop.advance(std::chrono::milliseconds(1));
    h.loop.run();
    const bool beside = metricsSay(h, "etcd_transactions_in_flight 2");
    kill(gEtcd.pid(), SIGCONT);
    assert_true(queued);
    assert_true(stillQueued);
    assert_true(beside);
    settle(h, "the two writes", [&] { return results[0] && results[1]; });
    assertOk(*results[0]);
    assertOk(*results[1]);
    assertMetricsSay(h, "etcd_transactions_in_flight 0");
}

// etcd only: when a batch comes back, the next one goes out once it holds
// as many writes as were then out and waiting (the writers just answered
// tend to write again), or kGatherFor of the loop's clock after the answer.
void the_next_batch_waits_for_the_writers_of_the_last(void** state) {
    Harness& h = harness(state);
    std::vector<std::optional<WriteResult>> results(6);
    auto start = [&](size_t i) {
        startWrite(h, createOp("/registry/gather/" + std::to_string(i), "v"), results[i]);
        h.loop.run();
    };
    auto answered = [&](size_t from, size_t to) {
        return [&results, from, to] {
            return std::all_of(results.begin() + static_cast<long>(from),
                               results.begin() + static_cast<long>(to),
                               [](const auto& r) { return r.has_value(); });
        };
    };
    startWrite(h, createOp("/registry/gather/0", "v"), results[0]);
    start(1);  // 0 and 1 go out together
    start(2);  // 2 waits for them
    settle(h, "the first batch", answered(0, 2), Clock::Still);
    // Three writers were out or waiting: 2 waits for two more.
    const bool waitsForTwo = metricsSay(h, "etcd_transactions_in_flight 0");
    start(3);
    const bool waitsForOne = metricsSay(h, "etcd_transactions_in_flight 0");
    start(4);
    const bool goesWithThree = metricsSay(h, "etcd_transactions_in_flight 1");
    settle(h, "the second batch", answered(2, 5), Clock::Still);
    start(5);  // one of three writers: it waits, until kGatherFor
    const bool waitsForTheOthers = metricsSay(h, "etcd_transactions_in_flight 0");
    h.loop.advance(storage::etcd::TxnBatcher::kGatherFor);
    h.loop.run();
    const bool goesAlone = metricsSay(h, "etcd_transactions_in_flight 1");
    assert_true(waitsForTwo);
    assert_true(waitsForOne);
    assert_true(goesWithThree);
    assert_true(waitsForTheOthers);
    assert_true(goesAlone);
    settle(h, "the last write", answered(5, 6));
    for (const auto& r : results) {
        assertOk(*r);
    }
    assert_int_equal(results[2]->objects.at(0).modRevision, results[4]->objects.at(0).modRevision);
    assertMetricsSay(h, "etcd_batched_transactions_total 2");
    assertMetricsSay(h, "etcd_batched_writes_total 5");
}

// etcd only: another store on the same etcd (another worker or host) whose
// replica has not yet seen a write: get() answers NotFound from it,
// getLatest() waits until the replica caught up and finds the key; a key
// that truly is absent is NotFound from both.
void get_latest_finds_what_another_host_just_wrote(void** state) {
    Harness& h = harness(state);
    Harness other;
    std::string error;
    if (!openEtcd(other, h.etcdOptions, &error)) {
        fail_msg("second etcd store: %s", error.c_str());
    }
    WriteResult w = write1(h, createOp("/registry/g/k", "v"));
    assertOk(w);
    ErrorCode code = ErrorCode::Ok;
    assert_false(getSync(other, "/registry/g/k", &code).has_value());
    assert_int_equal(code, ErrorCode::NotFound);

    auto latest = [&](const std::string& key, ErrorCode* got) {
        bool called = false;
        std::optional<Object> out;
        other.store->getLatest(key, [&](const storage::Error& err, const storage::ObjectView* v) {
            called = true;
            *got = err.code;
            if (err.ok()) {
                out = Object{std::string(v->key), std::string(v->value), v->modRevision,
                             v->createRevision};
            }
        });
        settle(other, "getLatest", [&] { return called; });
        return out;
    };
    auto got = latest("/registry/g/k", &code);
    assert_int_equal(code, ErrorCode::Ok);
    assert_true(got.has_value());
    assert_string_equal(got->value.c_str(), "v");
    assert_int_equal(got->modRevision, w.objects[0].modRevision);
    assert_false(latest("/registry/g/none", &code).has_value());
    assert_int_equal(code, ErrorCode::NotFound);
    other.store.reset();
    other.etcd = nullptr;
    other.loop.run();
}

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
        CASE(batch_ops_take_revisions_in_op_order),
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
    const struct CMUnitTest etcdTests[] = {
        CASE(consistent_read_falls_back_to_etcd_when_the_replica_is_late),
        CASE(consistent_read_checks_the_replica_when_etcd_moved_outside_the_prefix),
        CASE(writes_that_come_together_share_a_transaction_and_fail_alone),
        CASE(writes_too_large_to_share_a_request_go_alone),
        CASE(get_latest_finds_what_another_host_just_wrote),
        CASE(a_write_goes_out_beside_a_transaction_etcd_does_not_answer),
        CASE(the_next_batch_waits_for_the_writers_of_the_last),
    };
    gBackend = Backend::Memory;
    int failed =
        cmocka_run_group_tests_name("storage conformance: memory", tests, nullptr, nullptr);
    gBackend = Backend::Lmdb;
    failed += cmocka_run_group_tests_name("storage conformance: lmdb", tests, nullptr, nullptr);

    if (!testing::EtcdServer::available()) {
        print_message("storage conformance: etcd: skipped, no %s (Debian's etcd-server)\n",
                      testing::EtcdServer::kBinary);
        return failed;
    }
    // Another process may take a port picked free before etcd binds it:
    // then etcd exits at start, and is started again on other ports.
    std::string error;
    bool started = false;
    for (int attempt = 0; attempt < 3 && !started; attempt++) {
        started = gEtcd.start(&error);
    }
    if (!started) {
        print_error("storage conformance: etcd: %s\n", error.c_str());
        return failed + 1;
    }
    gBackend = Backend::Etcd;
    failed += cmocka_run_group_tests_name("storage conformance: etcd", tests, nullptr, nullptr);
    failed +=
        cmocka_run_group_tests_name("storage conformance: etcd's own", etcdTests, nullptr, nullptr);
    gEtcd.stop();
    return failed;
}
