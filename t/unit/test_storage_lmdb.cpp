// LMDB-specific behaviour: the on-disk layout, several processes on one
// environment, group commit, map full / map resized, stale readers, teardown
// with a commit or a compaction in flight, compaction in chunks and the reuse
// of the pages it frees.

#include <lmdb.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fake_loop.hpp"
#include "storage/event.hpp"
#include "storage/interface.hpp"
#include "storage/lmdb/lmdb_store.hpp"

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
using storage::lmdb::Options;
using storage::lmdb::Store;

namespace {

// FakeLoop that counts blocking jobs and can hold them back, to observe
// batching and to act while a commit is in flight.
class TestLoop : public testing::FakeLoop {
public:
    void runBlocking(Task job, Task done) override {
        jobs++;
        if (hold) {
            held_.emplace_back(std::move(job), std::move(done));
            return;
        }
        FakeLoop::runBlocking(std::move(job), std::move(done));
    }

    size_t held() const { return held_.size(); }

    // Runs the held jobs and their completions, then everything queued.
    void release() {
        auto jobs = std::move(held_);
        held_.clear();
        for (auto& [job, done] : jobs) {
            job();
            done();
        }
        run();
    }

    // Runs held jobs without their completions, which are returned.
    std::vector<Task> runHeldJobsOnly() {
        std::vector<Task> dones;
        for (auto& [job, done] : held_) {
            job();
            dones.push_back(std::move(done));
        }
        held_.clear();
        return dones;
    }

    int jobs = 0;
    bool hold = false;

private:
    std::vector<std::pair<Task, Task>> held_;
};

// A loop whose blocking jobs really run on another thread.
class ThreadLoop : public util::EventLoop {
public:
    ~ThreadLoop() override {
        for (auto& t : threads_) {
            t.join();
        }
    }

    void post(Task task) override {
        std::lock_guard<std::mutex> g(mu_);
        queue_.push_back(std::move(task));
        cv_.notify_one();
    }

    void runBlocking(Task job, Task done) override {
        pending_++;
        threads_.emplace_back([this, job = std::move(job), done = std::move(done)]() mutable {
            {
                std::lock_guard<std::mutex> g(mu_);
                jobThreads.push_back(std::this_thread::get_id());
            }
            job();
            post([this, done = std::move(done)] {
                pending_--;
                done();
            });
        });
    }

    std::unique_ptr<Timer> startTimer(std::chrono::milliseconds, Task) override {
        fail_msg("the store started a timer");
        return nullptr;
    }

    std::chrono::system_clock::time_point now() const override {
        return std::chrono::system_clock::now();
    }

    // Runs tasks until no task or job is left; `idle` runs whenever the loop
    // waits for a job.
    void run(const std::function<void()>& idle) {
        for (;;) {
            std::deque<Task> tasks;
            {
                std::unique_lock<std::mutex> g(mu_);
                if (queue_.empty() && pending_ == 0) {
                    return;
                }
                if (queue_.empty()) {
                    g.unlock();
                    idle();
                    g.lock();
                    cv_.wait_for(g, std::chrono::microseconds(200));
                }
                tasks.swap(queue_);
            }
            for (Task& t : tasks) {
                t();
            }
        }
    }

    std::vector<std::thread::id> jobThreads;

private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Task> queue_;
    int pending_ = 0;
    std::vector<std::thread> threads_;
};

struct Dir {
    std::string path;

    Dir() {
        char tmpl[] = "/tmp/kube-lmdb-XXXXXX";
        if (mkdtemp(tmpl) != nullptr) {
            path = tmpl;
        }
    }
    ~Dir() { std::filesystem::remove_all(path); }
};

Options optionsFor(const Dir& dir, size_t mapSize = 64ull << 20) {
    Options options;
    options.dir = dir.path;
    options.mapSize = mapSize;
    return options;
}

std::unique_ptr<Store> openStore(const Options& options, util::EventLoop& loop) {
    std::string error;
    auto store = Store::open(options, loop, &error);
    if (!store) {
        fail_msg("open %s: %s", options.dir.c_str(), error.c_str());
    }
    return store;
}

WriteOp createOp(std::string key, std::string value) {
    WriteOp op;
    op.type = WriteOp::Type::Create;
    op.key = std::move(key);
    op.value = std::move(value);
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

WriteOp deleteOp(std::string key) {
    WriteOp op;
    op.type = WriteOp::Type::Delete;
    op.key = std::move(key);
    return op;
}

// Issues one write; `out` is filled when its callback runs.
void writeAsync(Store& store, WriteOp op, std::optional<WriteResult>* out) {
    std::vector<WriteOp> ops;
    ops.push_back(std::move(op));
    store.write(std::move(ops), [out](WriteResult&& r) { *out = std::move(r); });
}

WriteResult writeSync(Store& store, testing::FakeLoop& loop, WriteOp op) {
    std::optional<WriteResult> out;
    writeAsync(store, std::move(op), &out);
    loop.run();
    assert_true(out.has_value());
    return std::move(*out);
}

// The stored object, or nullopt with `*code` set.
std::optional<Object> getNow(Store& store, const std::string& key, ErrorCode* code = nullptr) {
    std::optional<Object> out;
    store.get(key, [&](const storage::Error& err, const storage::ObjectView* v) {
        if (code != nullptr) {
            *code = err.code;
        }
        if (err.ok()) {
            out = Object{std::string(v->key), std::string(v->value), v->modRevision,
                         v->createRevision};
        }
    });
    return out;
}

// Runs `child` in a forked process (as another nginx worker would) and
// returns its exit status; the child must not use the parent's Store.
int inChild(const std::function<int()>& child) {
    fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        _exit(child());
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

void assertOk(const WriteResult& r) {
    if (!r.error.ok()) {
        fail_msg("write failed: %s", r.error.message.c_str());
    }
}

void open_creates_the_directory_with_data_and_lock_files(void**) {
    Dir dir;
    Options options = optionsFor(dir);
    options.dir = dir.path + "/a/b";
    testing::FakeLoop loop;
    auto store = openStore(options, loop);
    assert_true(std::filesystem::exists(options.dir + "/data.mdb"));
    assert_true(std::filesystem::exists(options.dir + "/lock.mdb"));
    assert_int_equal(store->currentRevision(), 0);
}

void open_fails_with_a_message_when_the_directory_cannot_be_made(void**) {
    Dir dir;
    FILE* f = fopen((dir.path + "/blocker").c_str(), "w");
    assert_non_null(f);
    fclose(f);
    Options options = optionsFor(dir);
    options.dir = dir.path + "/blocker/db";
    testing::FakeLoop loop;
    std::string error;
    assert_true(Store::open(options, loop, &error) == nullptr);
    assert_non_null(strstr(error.c_str(), "blocker/db"));
}

std::string be64(uint64_t v) {
    std::string s(8, '\0');
    for (int i = 7; i >= 0; i--) {
        s[i] = static_cast<char>(v & 0xff);
        v >>= 8;
    }
    return s;
}

// Reads one value from a named db of a closed-by-the-Store environment.
std::optional<std::string> rawGet(const std::string& dir, const char* db, const std::string& key) {
    MDB_env* env = nullptr;
    mdb_env_create(&env);
    mdb_env_set_maxdbs(env, 3);
    std::optional<std::string> out;
    if (mdb_env_open(env, dir.c_str(), MDB_RDONLY, 0644) == MDB_SUCCESS) {
        MDB_txn* txn = nullptr;
        MDB_dbi dbi = 0;
        mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn);
        if (mdb_dbi_open(txn, db, 0, &dbi) == MDB_SUCCESS) {
            MDB_val k{key.size(), const_cast<char*>(key.data())};
            MDB_val v;
            if (mdb_get(txn, dbi, &k, &v) == MDB_SUCCESS) {
                out = std::string(static_cast<char*>(v.mv_data), v.mv_size);
            }
        }
        mdb_txn_abort(txn);
    }
    mdb_env_close(env);
    return out;
}

void rawPutCounter(const std::string& dir, const std::string& name, uint64_t value) {
    MDB_env* env = nullptr;
    mdb_env_create(&env);
    mdb_env_set_maxdbs(env, 3);
    assert_int_equal(mdb_env_open(env, dir.c_str(), 0, 0644), MDB_SUCCESS);
    MDB_txn* txn = nullptr;
    MDB_dbi dbi = 0;
    assert_int_equal(mdb_txn_begin(env, nullptr, 0, &txn), MDB_SUCCESS);
    assert_int_equal(mdb_dbi_open(txn, "meta", 0, &dbi), MDB_SUCCESS);
    std::string v = be64(value);
    MDB_val k{name.size(), const_cast<char*>(name.data())};
    MDB_val val{v.size(), v.data()};
    assert_int_equal(mdb_put(txn, dbi, &k, &val, 0), MDB_SUCCESS);
    assert_int_equal(mdb_txn_commit(txn), MDB_SUCCESS);
    mdb_env_close(env);
}

void stored_bytes_follow_the_documented_layout(void**) {
    Dir dir;
    {
        testing::FakeLoop loop;
        auto store = openStore(optionsFor(dir), loop);
        writeSync(*store, loop, createOp("/a", "AA"));
        writeSync(*store, loop, updateOp("/a", "BB", 1));
        writeSync(*store, loop, deleteOp("/a"));
        writeSync(*store, loop, createOp("/b", "X"));
    }
    assert_false(rawGet(dir.path, "objects", "/a").has_value());
    auto b = rawGet(dir.path, "objects", "/b");
    assert_true(b.has_value());
    assert_true(*b == be64(4) + be64(4) + "X");

    // Type 2: a Put that created the key; 0: one that updated it.
    auto put = rawGet(dir.path, "revlog", be64(1));
    assert_true(put.has_value());
    assert_true(*put == std::string("\x02\x00\x02/aAA", 7));
    auto update = rawGet(dir.path, "revlog", be64(2));
    assert_true(update.has_value());
    assert_true(*update == std::string("\x00\x00\x02/aBB", 7));
    auto del = rawGet(dir.path, "revlog", be64(3));
    assert_true(del.has_value());
    assert_true(*del == std::string("\x01\x00\x02/aBB", 7));
    assert_false(rawGet(dir.path, "revlog", be64(5)).has_value());

    assert_true(rawGet(dir.path, "meta", "rev") == be64(4));
    assert_true(rawGet(dir.path, "meta", "compact_rev") == be64(0));
}

void reopened_store_keeps_objects_revisions_and_history(void**) {
    Dir dir;
    {
        testing::FakeLoop loop;
        auto store = openStore(optionsFor(dir), loop);
        writeSync(*store, loop, createOp("/k/1", "one"));
        writeSync(*store, loop, createOp("/k/2", "two"));
        writeSync(*store, loop, deleteOp("/k/1"));
    }
    testing::FakeLoop loop;
    auto store = openStore(optionsFor(dir), loop);
    assert_int_equal(store->currentRevision(), 3);
    auto two = getNow(*store, "/k/2");
    assert_true(two.has_value());
    assert_string_equal(two->value.c_str(), "two");
    assert_int_equal(two->modRevision, 2);
    assert_false(getNow(*store, "/k/1").has_value());
    size_t events = 0;
    store->history(0, 0, [&](const storage::Error& err, std::span<const storage::Event> es) {
        assert_true(err.ok());
        events = es.size();
        assert_int_equal(es[2].type, storage::Event::Delete);
    });
    assert_int_equal(events, 3);
    // Revisions continue where they stopped.
    WriteResult r = writeSync(*store, loop, createOp("/k/3", "three"));
    assertOk(r);
    assert_int_equal(r.objects[0].modRevision, 4);
}

void two_processes_on_one_directory_see_each_others_writes(void**) {
    Dir dir;
    testing::FakeLoop loop;
    auto store = openStore(optionsFor(dir), loop);
    assertOk(writeSync(*store, loop, createOp("/from/parent", "p")));

    const int status = inChild([&]() -> int {
        testing::FakeLoop childLoop;
        std::string error;
        auto other = Store::open(optionsFor(dir), childLoop, &error);
        if (!other) {
            return 10;
        }
        auto seen = getNow(*other, "/from/parent");
        if (!seen || seen->value != "p" || other->currentRevision() != 1) {
            return 11;
        }
        std::optional<WriteResult> r;
        writeAsync(*other, createOp("/from/child", "c"), &r);
        childLoop.run();
        if (!r || !r->error.ok() || r->objects[0].modRevision != 2) {
            return 12;
        }
        return 0;
    });
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);

    // The parent's long-lived snapshot is renewed per read: it sees the child's commit.
    auto seen = getNow(*store, "/from/child");
    assert_true(seen.has_value());
    assert_string_equal(seen->value.c_str(), "c");
    assert_int_equal(store->currentRevision(), 2);
    WriteResult r = writeSync(*store, loop, createOp("/from/parent/again", "p2"));
    assertOk(r);
    assert_int_equal(r.objects[0].modRevision, 3);
}

void queued_writes_share_one_transaction(void**) {
    Dir dir;
    TestLoop loop;
    auto store = openStore(optionsFor(dir), loop);
    std::vector<Revision> notified;
    store->setCommitListener([&](Revision r) { notified.push_back(r); });
    std::vector<std::optional<WriteResult>> results(10);
    for (size_t i = 0; i < results.size(); i++) {
        writeAsync(*store, createOp("/g/" + std::to_string(i), "v"), &results[i]);
    }
    loop.run();
    assert_int_equal(loop.jobs, 1);
    for (size_t i = 0; i < results.size(); i++) {
        assert_true(results[i].has_value());
        assertOk(*results[i]);
        assert_int_equal(results[i]->objects[0].modRevision, i + 1);
    }
    assert_int_equal(notified.size(), 1);
    assert_int_equal(notified[0], 10);
    assert_int_equal(store->currentRevision(), 10);
}

void batches_are_capped_at_max_batch_calls(void**) {
    Dir dir;
    TestLoop loop;
    Options options = optionsFor(dir);
    options.maxBatch = 3;
    auto store = openStore(options, loop);
    std::vector<std::optional<WriteResult>> results(7);
    for (size_t i = 0; i < results.size(); i++) {
        writeAsync(*store, createOp("/c/" + std::to_string(i), "v"), &results[i]);
    }
    loop.run();
    assert_int_equal(loop.jobs, 3);
    for (size_t i = 0; i < results.size(); i++) {
        assert_int_equal(results[i]->objects[0].modRevision, i + 1);
    }
}

void writes_queued_while_the_writer_waits_for_the_lock_join_its_batch(void**) {
    Dir dir;
    TestLoop loop;
    loop.hold = true;
    auto store = openStore(optionsFor(dir), loop);
    std::vector<std::optional<WriteResult>> results(4);
    writeAsync(*store, createOp("/w/0", "v"), &results[0]);
    loop.run();
    assert_int_equal(loop.held(), 1);
    // The job has not run yet (it would be waiting for the write lock): the
    // calls made meanwhile are taken by it once it holds the lock.
    for (size_t i = 1; i < results.size(); i++) {
        writeAsync(*store, createOp("/w/" + std::to_string(i), "v"), &results[i]);
    }
    loop.run();
    loop.release();
    assert_int_equal(loop.jobs, 1);
    for (size_t i = 0; i < results.size(); i++) {
        assert_true(results[i].has_value());
        assert_int_equal(results[i]->objects[0].modRevision, i + 1);
    }
}

void writes_arriving_during_a_commit_form_the_next_batch(void**) {
    Dir dir;
    TestLoop loop;
    loop.hold = true;
    auto store = openStore(optionsFor(dir), loop);
    std::vector<std::optional<WriteResult>> results(4);
    writeAsync(*store, createOp("/n/0", "v"), &results[0]);
    loop.run();
    assert_int_equal(loop.held(), 1);
    // The job runs (takes its call and commits); its completion is pending.
    std::vector<util::EventLoop::Task> dones = loop.runHeldJobsOnly();
    for (size_t i = 1; i < results.size(); i++) {
        writeAsync(*store, createOp("/n/" + std::to_string(i), "v"), &results[i]);
    }
    loop.run();
    // Still one commit in flight: the new calls wait.
    assert_int_equal(loop.jobs, 1);
    for (auto& done : dones) {
        done();
    }
    assert_true(results[0].has_value());
    assert_false(results[1].has_value());
    assert_int_equal(loop.jobs, 2);
    loop.release();
    for (size_t i = 0; i < results.size(); i++) {
        assert_true(results[i].has_value());
        assert_int_equal(results[i]->objects[0].modRevision, i + 1);
    }
}

void failing_call_in_a_batch_leaves_the_other_calls_committed(void**) {
    Dir dir;
    TestLoop loop;
    auto store = openStore(optionsFor(dir), loop);
    std::optional<WriteResult> a;
    std::optional<WriteResult> dup;
    std::optional<WriteResult> stale;
    std::optional<WriteResult> b;
    writeAsync(*store, createOp("/f/a", "a"), &a);
    writeAsync(*store, createOp("/f/a", "again"), &dup);
    writeAsync(*store, updateOp("/f/a", "x", 42), &stale);
    writeAsync(*store, createOp("/f/b", "b"), &b);
    loop.run();
    assert_int_equal(loop.jobs, 1);
    assertOk(*a);
    assert_int_equal(dup->error.code, ErrorCode::KeyExists);
    // It saw the create committed earlier in the same transaction.
    assert_int_equal(dup->objects[0].modRevision, 1);
    assert_int_equal(stale->error.code, ErrorCode::Conflict);
    assertOk(*b);
    assert_int_equal(b->objects[0].modRevision, 2);
    assert_string_equal(getNow(*store, "/f/a")->value.c_str(), "a");
    assert_int_equal(store->currentRevision(), 2);
}

void full_map_fails_writes_with_no_space_and_reads_keep_working(void**) {
    Dir dir;
    TestLoop loop;
    auto store = openStore(optionsFor(dir, 1ull << 20), loop);
    assertOk(writeSync(*store, loop, createOp("/s/small", "v")));

    std::optional<WriteResult> big;
    std::optional<WriteResult> bystander;
    writeAsync(*store, createOp("/s/big", std::string(2u << 20, 'x')), &big);
    writeAsync(*store, createOp("/s/other", "o"), &bystander);
    loop.run();
    assert_int_equal(big->error.code, ErrorCode::NoSpace);
    assert_non_null(strstr(big->error.message.c_str(), "full"));
    // The whole transaction was aborted: every call of the batch fails alike.
    assert_int_equal(bystander->error.code, ErrorCode::NoSpace);
    assert_int_equal(store->currentRevision(), 1);

    auto small = getNow(*store, "/s/small");
    assert_true(small.has_value());
    ErrorCode code = ErrorCode::Ok;
    assert_false(getNow(*store, "/s/other", &code).has_value());
    assert_int_equal(code, ErrorCode::NotFound);
    WriteResult after = writeSync(*store, loop, createOp("/s/after", "a"));
    assertOk(after);
    assert_int_equal(after.objects[0].modRevision, 2);
}

void map_grown_by_another_process_is_adopted_by_reads_and_writes(void**) {
    Dir dir;
    TestLoop loop;
    auto store = openStore(optionsFor(dir, 1ull << 20), loop);
    assertOk(writeSync(*store, loop, createOp("/m/small", "v")));

    const std::string bigValue(3u << 20, 'b');
    const int status = inChild([&]() -> int {
        testing::FakeLoop childLoop;
        std::string error;
        auto other = Store::open(optionsFor(dir, 32ull << 20), childLoop, &error);
        if (!other) {
            return 10;
        }
        std::optional<WriteResult> r;
        writeAsync(*other, createOp("/m/big", bigValue), &r);
        childLoop.run();
        return r && r->error.ok() ? 0 : 11;
    });
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);

    // A write goes first and is held in flight; a read meanwhile cannot remap
    // the map under the writer, so it waits for the commit to come back.
    loop.hold = true;
    std::optional<WriteResult> w;
    writeAsync(*store, createOp("/m/next", "n"), &w);
    loop.run();
    assert_int_equal(loop.held(), 1);
    std::optional<Object> big;
    store->get("/m/big", [&](const storage::Error& err, const storage::ObjectView* v) {
        assert_true(err.ok());
        big = Object{std::string(v->key), std::string(v->value), v->modRevision, v->createRevision};
    });
    assert_false(big.has_value());

    // The writer's begin reports the resize; the store adopts the new size,
    // runs the waiting read, and retries the same write.
    loop.release();
    assert_true(big.has_value());
    assert_int_equal(big->value.size(), bigValue.size());
    assert_int_equal(big->modRevision, 2);
    assert_false(w.has_value());
    assert_int_equal(loop.held(), 1);
    loop.release();
    assert_true(w.has_value());
    assertOk(*w);
    assert_int_equal(w->objects[0].modRevision, 3);
}

void stale_reader_of_a_killed_process_is_cleared(void**) {
    Dir dir;
    testing::FakeLoop loop;
    auto store = openStore(optionsFor(dir), loop);
    assertOk(writeSync(*store, loop, createOp("/r/k", "v")));
    assert_int_equal(store->checkStaleReaders(), 0);

    const int status = inChild([&]() -> int {
        testing::FakeLoop childLoop;
        std::string error;
        auto other = Store::open(optionsFor(dir), childLoop, &error);
        if (!other) {
            return 10;
        }
        // Dies holding a snapshot, as a crashed worker would.
        other->get("/r/k",
                   [](const storage::Error&, const storage::ObjectView*) { raise(SIGKILL); });
        return 11;
    });
    assert_true(WIFSIGNALED(status));
    assert_int_equal(store->checkStaleReaders(), 1);
    assert_int_equal(store->checkStaleReaders(), 0);
}

void history_before_the_compacted_revision_fails_with_compacted(void**) {
    Dir dir;
    {
        testing::FakeLoop loop;
        auto store = openStore(optionsFor(dir), loop);
        for (int i = 0; i < 4; i++) {
            writeSync(*store, loop, createOp("/h/" + std::to_string(i), "v"));
        }
    }
    rawPutCounter(dir.path, "compact_rev", 3);
    testing::FakeLoop loop;
    auto store = openStore(optionsFor(dir), loop);
    ErrorCode code = ErrorCode::Ok;
    store->history(1, 0, [&](const storage::Error& err, std::span<const storage::Event> es) {
        code = err.code;
        assert_int_equal(es.size(), 0);
    });
    assert_int_equal(code, ErrorCode::Compacted);
    size_t n = 0;
    store->history(2, 0, [&](const storage::Error& err, std::span<const storage::Event> es) {
        assert_true(err.ok());
        n = es.size();
        assert_int_equal(es[0].revision, 3);
    });
    assert_int_equal(n, 2);
}

void destroying_the_store_with_a_commit_in_flight_is_safe(void**) {
    Dir dir;
    TestLoop loop;
    loop.hold = true;
    auto store = openStore(optionsFor(dir), loop);
    bool called = false;
    store->write({createOp("/d/k", "v")}, [&](WriteResult&&) { called = true; });
    loop.run();
    assert_int_equal(loop.held(), 1);
    std::vector<util::EventLoop::Task> dones = loop.runHeldJobsOnly();
    // Queued after the job took its calls: never committed.
    store->write({createOp("/d/queued", "v")}, [&](WriteResult&&) { called = true; });
    loop.run();
    // The Store goes away; the job finished but its completion has not run.
    store.reset();
    for (auto& done : dones) {
        done();
    }
    loop.run();
    assert_false(called);
    assert_int_equal(loop.jobs, 1);

    // The commit itself happened: the job owned the environment.
    testing::FakeLoop again;
    auto reopened = openStore(optionsFor(dir), again);
    assert_true(getNow(*reopened, "/d/k").has_value());
    assert_false(getNow(*reopened, "/d/queued").has_value());
}

void commits_run_off_the_loop_thread_while_reads_go_on(void**) {
    Dir dir;
    ThreadLoop loop;
    auto store = openStore(optionsFor(dir), loop);
    int reads = 0;
    std::vector<Revision> revisions;
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 10; i++) {
            std::vector<WriteOp> ops;
            ops.push_back(createOp("/t/" + std::to_string(round * 10 + i), "v"));
            store->write(std::move(ops), [&](WriteResult&& r) {
                assertOk(r);
                revisions.push_back(r.objects[0].modRevision);
            });
        }
        loop.run([&] {
            store->get("/t/0", [&](const storage::Error& err, const storage::ObjectView*) {
                assert_true(err.ok() || err.code == ErrorCode::NotFound);
                reads++;
            });
        });
    }
    assert_int_equal(revisions.size(), 50);
    for (size_t i = 0; i < revisions.size(); i++) {
        assert_int_equal(revisions[i], i + 1);
    }
    assert_true(loop.jobThreads.size() >= 5);
    for (auto id : loop.jobThreads) {
        assert_true(id != std::this_thread::get_id());
    }
    assert_int_equal(store->currentRevision(), 50);
    print_message("reads during commits: %d\n", reads);
}

// Compacts and runs the loop until the callback has run; returns its error.
storage::Error compactSync(Store& store, testing::FakeLoop& loop, Revision revision) {
    std::optional<storage::Error> out;
    store.compact(revision, [&](const storage::Error& err) { out = err; });
    loop.run();
    assert_true(out.has_value());
    return *out;
}

void assertCompacted(Store& store, testing::FakeLoop& loop, Revision revision) {
    const storage::Error err = compactSync(store, loop, revision);
    if (!err.ok()) {
        fail_msg("compact(%llu): %s", static_cast<unsigned long long>(revision),
                 err.message.c_str());
    }
}

// The revisions history(after) returns; `*code` gets its error code.
std::vector<Revision> historyNow(Store& store, Revision after, ErrorCode* code) {
    std::vector<Revision> out;
    bool called = false;
    store.history(after, 0, [&](const storage::Error& err, std::span<const storage::Event> es) {
        called = true;
        *code = err.code;
        for (const auto& e : es) {
            out.push_back(e.revision);
        }
    });
    assert_true(called);
    return out;
}

// Writes `calls` calls of `ops` creates each, committing after each call.
void writeCreates(Store& store, testing::FakeLoop& loop, int calls, int ops) {
    for (int c = 0; c < calls; c++) {
        std::vector<WriteOp> batch;
        for (int i = 0; i < ops; i++) {
            batch.push_back(createOp("/c/" + std::to_string(c) + "/" + std::to_string(i), "v"));
        }
        std::optional<WriteResult> r;
        store.write(std::move(batch), [&](WriteResult&& w) { r = std::move(w); });
        loop.run();
        assert_true(r.has_value());
        assertOk(*r);
    }
}

void compacted_revision_and_deleted_entries_survive_reopening(void**) {
    Dir dir;
    {
        testing::FakeLoop loop;
        auto store = openStore(optionsFor(dir), loop);
        writeCreates(*store, loop, 10, 1);
        assertCompacted(*store, loop, 7);
        assert_int_equal(store->compactedRevision(), 7);
    }
    assert_true(rawGet(dir.path, "meta", "compact_rev") == be64(7));
    assert_false(rawGet(dir.path, "revlog", be64(6)).has_value());
    assert_true(rawGet(dir.path, "revlog", be64(7)).has_value());

    testing::FakeLoop loop;
    auto store = openStore(optionsFor(dir), loop);
    assert_int_equal(store->compactedRevision(), 7);
    ErrorCode code = ErrorCode::Ok;
    historyNow(*store, 5, &code);
    assert_int_equal(code, ErrorCode::Compacted);
    auto kept = historyNow(*store, 6, &code);
    assert_int_equal(code, ErrorCode::Ok);
    assert_int_equal(kept.size(), 4);
    assert_int_equal(kept[0], 7);
    // A lower compaction after reopening changes nothing.
    assertCompacted(*store, loop, 3);
    assert_int_equal(store->compactedRevision(), 7);
}

void compaction_deletes_in_chunks_that_take_turns_with_writes(void**) {
    Dir dir;
    TestLoop loop;
    Options options = optionsFor(dir);
    options.compactChunk = 100;
    auto store = openStore(options, loop);
    writeCreates(*store, loop, 9, 50);
    assert_int_equal(store->currentRevision(), 450);
    const int jobsBefore = loop.jobs;

    loop.hold = true;
    std::optional<storage::Error> compacted;
    store->compact(401, [&](const storage::Error& err) { compacted = err; });
    loop.run();
    assert_int_equal(loop.held(), 1);
    std::optional<WriteResult> w;
    writeAsync(*store, createOp("/x", "v"), &w);
    loop.run();
    // One job at a time: the write waits for the chunk in flight.
    assert_int_equal(loop.held(), 1);

    // Chunk 1 deletes revisions 1..100 and commits compact_rev 101 with them;
    // the write takes the next turn.
    loop.release();
    assert_int_equal(store->compactedRevision(), 101);
    assert_false(w.has_value());
    assert_false(compacted.has_value());
    ErrorCode code = ErrorCode::Ok;
    historyNow(*store, 99, &code);
    assert_int_equal(code, ErrorCode::Compacted);
    assert_int_equal(historyNow(*store, 100, &code).at(0), 101);

    loop.release();
    assert_true(w.has_value());
    assertOk(*w);
    assert_int_equal(w->objects[0].modRevision, 451);
    assert_int_equal(store->compactedRevision(), 101);

    loop.release();
    assert_int_equal(store->compactedRevision(), 201);
    loop.release();
    assert_int_equal(store->compactedRevision(), 301);
    assert_false(compacted.has_value());
    loop.release();
    assert_true(compacted.has_value());
    assert_true(compacted->ok());
    assert_int_equal(store->compactedRevision(), 401);
    assert_int_equal(loop.held(), 0);
    assert_int_equal(loop.jobs - jobsBefore, 5);

    historyNow(*store, 399, &code);
    assert_int_equal(code, ErrorCode::Compacted);
    auto kept = historyNow(*store, 400, &code);
    assert_int_equal(kept.size(), 51);
    assert_int_equal(kept.front(), 401);
    assert_int_equal(kept.back(), 451);
}

void destroying_the_store_during_a_compaction_stops_it_after_the_chunk(void**) {
    Dir dir;
    TestLoop loop;
    Options options = optionsFor(dir);
    options.compactChunk = 10;
    auto store = openStore(options, loop);
    writeCreates(*store, loop, 1, 50);
    const int jobsBefore = loop.jobs;

    loop.hold = true;
    bool called = false;
    store->compact(41, [&](const storage::Error&) { called = true; });
    loop.run();
    assert_int_equal(loop.held(), 1);
    std::vector<util::EventLoop::Task> dones = loop.runHeldJobsOnly();
    store.reset();
    for (auto& done : dones) {
        done();
    }
    loop.run();
    assert_false(called);
    assert_int_equal(loop.jobs - jobsBefore, 1);

    // The chunk in flight committed (the job owned the environment); no other ran.
    testing::FakeLoop again;
    auto reopened = openStore(optionsFor(dir), again);
    assert_int_equal(reopened->compactedRevision(), 11);
    ErrorCode code = ErrorCode::Ok;
    auto kept = historyNow(*reopened, 10, &code);
    assert_int_equal(code, ErrorCode::Ok);
    assert_int_equal(kept.size(), 40);
}

void compaction_by_another_process_is_seen_by_history(void**) {
    Dir dir;
    testing::FakeLoop loop;
    auto store = openStore(optionsFor(dir), loop);
    writeCreates(*store, loop, 10, 1);

    const int status = inChild([&]() -> int {
        testing::FakeLoop childLoop;
        std::string error;
        auto other = Store::open(optionsFor(dir), childLoop, &error);
        if (!other) {
            return 10;
        }
        std::optional<storage::Error> err;
        other->compact(8, [&](const storage::Error& e) { err = e; });
        childLoop.run();
        return err && err->ok() ? 0 : 11;
    });
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);

    assert_int_equal(store->compactedRevision(), 8);
    ErrorCode code = ErrorCode::Ok;
    historyNow(*store, 6, &code);
    assert_int_equal(code, ErrorCode::Compacted);
    assert_int_equal(historyNow(*store, 7, &code).size(), 3);
    assertCompacted(*store, loop, 5);
    assert_int_equal(store->compactedRevision(), 8);
}

// One round of churn: each of `keys` keys updated once with `value`, in calls
// of 20 ops, each call its own commit.
void churn(Store& store, testing::FakeLoop& loop, int keys, const std::string& value) {
    for (int k = 0; k < keys; k += 20) {
        std::vector<WriteOp> ops;
        for (int i = k; i < k + 20 && i < keys; i++) {
            ops.push_back(updateOp("/churn/" + std::to_string(i), value, 0));
        }
        std::optional<WriteResult> r;
        store.write(std::move(ops), [&](WriteResult&& w) { r = std::move(w); });
        loop.run();
        assert_true(r.has_value());
        assertOk(*r);
    }
}

// data.mdb's size after `rounds` rounds of churn on `keys` keys of 1 KB,
// compacting to the current revision after each round when `compact`.
uintmax_t fileSizeAfterChurn(const Dir& dir, int keys, int rounds, bool compact) {
    testing::FakeLoop loop;
    auto store = openStore(optionsFor(dir), loop);
    if (store->currentRevision() == 0) {
        std::vector<WriteOp> ops;
        for (int i = 0; i < keys; i++) {
            ops.push_back(createOp("/churn/" + std::to_string(i), std::string(1000, 'c')));
        }
        std::optional<WriteResult> r;
        store->write(std::move(ops), [&](WriteResult&& w) { r = std::move(w); });
        loop.run();
        assertOk(*r);
    }
    for (int round = 0; round < rounds; round++) {
        churn(*store, loop, keys, std::string(1000, static_cast<char>('a' + round % 26)));
        if (compact) {
            assertCompacted(*store, loop, store->currentRevision());
        }
    }
    return std::filesystem::file_size(dir.path + "/data.mdb");
}

void compaction_lets_the_file_stop_growing_under_churn(void**) {
    constexpr int kKeys = 200;
    Dir compacted;
    const uintmax_t warm = fileSizeAfterChurn(compacted, kKeys, 5, true);
    const uintmax_t after = fileSizeAfterChurn(compacted, kKeys, 30, true);
    // Without compaction the same churn grows the file by the whole log.
    Dir kept;
    const uintmax_t keptWarm = fileSizeAfterChurn(kept, kKeys, 5, false);
    const uintmax_t keptAfter = fileSizeAfterChurn(kept, kKeys, 30, false);
    print_message("data.mdb after 5 / 35 rounds: compacted %ju / %ju, not compacted %ju / %ju\n",
                  warm, after, keptWarm, keptAfter);
    // 30 rounds write 6,000 revisions of 1 KB: about 6 MB more when kept.
    assert_true(keptAfter - keptWarm > (4u << 20));
    // Compacted, the freed pages are reused: at most a few pages of slack.
    assert_true(after <= warm + warm / 10);
}

void compaction_and_writes_run_together_on_real_threads(void**) {
    Dir dir;
    ThreadLoop loop;
    Options options = optionsFor(dir);
    options.compactChunk = 50;
    auto store = openStore(options, loop);
    int failures = 0;
    int compactions = 0;
    Revision written = 0;
    int historyChecks = 0;
    for (int round = 0; round < 10; round++) {
        for (int i = 0; i < 20; i++) {
            std::vector<WriteOp> ops;
            for (int j = 0; j < 10; j++) {
                ops.push_back(createOp(
                    "/rt/" + std::to_string(round) + "/" + std::to_string(i * 10 + j), "v"));
            }
            store->write(std::move(ops), [&](WriteResult&& r) {
                failures += r.error.ok() ? 0 : 1;
                written = std::max(written, r.objects.back().modRevision);
            });
        }
        // A target below what is already committed, so the outcome does not
        // depend on whether this round's batch commits first.
        store->compact(written > 150 ? written - 150 : 0, [&](const storage::Error& err) {
            failures += err.ok() ? 0 : 1;
            compactions++;
        });
        // Whatever history returns while chunks and batches commit is gap-free
        // from the compacted revision on. (A chunk may commit between the two
        // reads: then Compacted is right, and the boundary has moved.)
        loop.run([&] {
            const Revision from = store->compactedRevision();
            ErrorCode code = ErrorCode::Ok;
            auto revs = historyNow(*store, from == 0 ? 0 : from - 1, &code);
            if (code == ErrorCode::Compacted) {
                assert_true(store->compactedRevision() > from);
                return;
            }
            assert_int_equal(code, ErrorCode::Ok);
            if (!revs.empty()) {
                assert_int_equal(revs.front(), std::max<Revision>(from, 1));
            }
            for (size_t i = 1; i < revs.size(); i++) {
                assert_int_equal(revs[i], revs[i - 1] + 1);
            }
            historyChecks++;
        });
    }
    assert_int_equal(failures, 0);
    assert_int_equal(compactions, 10);
    assert_int_equal(written, 2000);
    assert_int_equal(store->compactedRevision(), 1650);
    ErrorCode code = ErrorCode::Ok;
    auto kept = historyNow(*store, 1649, &code);
    assert_int_equal(kept.size(), 351);
    assert_int_equal(kept.back(), 2000);
    print_message("history checks during commits: %d\n", historyChecks);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(open_creates_the_directory_with_data_and_lock_files),
        cmocka_unit_test(open_fails_with_a_message_when_the_directory_cannot_be_made),
        cmocka_unit_test(stored_bytes_follow_the_documented_layout),
        cmocka_unit_test(reopened_store_keeps_objects_revisions_and_history),
        cmocka_unit_test(two_processes_on_one_directory_see_each_others_writes),
        cmocka_unit_test(queued_writes_share_one_transaction),
        cmocka_unit_test(batches_are_capped_at_max_batch_calls),
        cmocka_unit_test(writes_queued_while_the_writer_waits_for_the_lock_join_its_batch),
        cmocka_unit_test(writes_arriving_during_a_commit_form_the_next_batch),
        cmocka_unit_test(failing_call_in_a_batch_leaves_the_other_calls_committed),
        cmocka_unit_test(full_map_fails_writes_with_no_space_and_reads_keep_working),
        cmocka_unit_test(map_grown_by_another_process_is_adopted_by_reads_and_writes),
        cmocka_unit_test(stale_reader_of_a_killed_process_is_cleared),
        cmocka_unit_test(history_before_the_compacted_revision_fails_with_compacted),
        cmocka_unit_test(destroying_the_store_with_a_commit_in_flight_is_safe),
        cmocka_unit_test(commits_run_off_the_loop_thread_while_reads_go_on),
        cmocka_unit_test(compacted_revision_and_deleted_entries_survive_reopening),
        cmocka_unit_test(compaction_deletes_in_chunks_that_take_turns_with_writes),
        cmocka_unit_test(destroying_the_store_during_a_compaction_stops_it_after_the_chunk),
        cmocka_unit_test(compaction_by_another_process_is_seen_by_history),
        cmocka_unit_test(compaction_lets_the_file_stop_growing_under_churn),
        cmocka_unit_test(compaction_and_writes_run_together_on_real_threads),
    };
    return cmocka_run_group_tests_name("lmdb store", tests, nullptr, nullptr);
}
