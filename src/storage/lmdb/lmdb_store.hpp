#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "storage/event.hpp"
#include "storage/interface.hpp"
#include "storage/lmdb/group_commit.hpp"
#include "storage/lmdb/lmdb_env.hpp"
#include "storage/lmdb/snapshot.hpp"
#include "util/event_loop.hpp"

namespace kube::storage::lmdb {

// The embedded backend: one LMDB environment shared by every worker process
// of a host, opened in each worker after fork (spec/storage.md §1).
//
// Reads run inline on the loop in a snapshot that is reset before the read
// returns, so views handed to a callback point into the map and are valid
// only during that callback. Writes go through GroupCommit and call back
// after the commit is durable. Everything is called on the loop thread.
//
// Do not destroy a Store inside one of its own read callbacks. Destroying it
// otherwise is safe at any time: queued and in-flight write callbacks are
// dropped without being called.
class Store : public Interface {
public:
    using Options = lmdb::Options;

    // Creates `options.dir` if missing and opens the environment; null with
    // `*error` set on failure.
    static std::unique_ptr<Store> open(const Options& options, util::EventLoop& loop,
                                       std::string* error);

    ~Store() override;
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    void get(std::string_view key, GetCallback cb) override;
    void list(const ListOptions& opts, ListCallback cb) override;
    void write(std::vector<WriteOp> ops, WriteCallback cb) override;
    // meta.rev as committed by any process.
    Revision currentRevision() override;

    // The revision-log entries with revision > `after`, oldest first, at most
    // `limit` of them (0 = all); Compacted when some of them were compacted.
    void history(Revision after, size_t limit, HistoryCallback cb);

    // Frees the reader slots of dead processes (mdb_reader_check); returns
    // how many, or -1 when the check failed. Call it from a timer.
    int checkStaleReaders();

    // Runs on the loop after each batch this Store committed, with the
    // highest revision the batch wrote.
    void setCommitListener(std::function<void(Revision)> listener);

private:
    Store(std::shared_ptr<Env> env, util::EventLoop& loop, size_t maxBatch);

    // Opens `snap`. When another process has grown the map and nothing in
    // this process uses it, adopts the new size and retries; MDB_MAP_RESIZED
    // means "not now": the caller defers itself with deferRead().
    int openSnapshot(Snapshot& snap);
    void deferRead(std::function<void()> read);
    void settle();
    void committed(Revision revision);

    // Declared first: destroyed last, after the snapshots and the writer.
    std::shared_ptr<Env> env_;
    util::EventLoop& loop_;
    SnapshotPool snapshots_;
    GroupCommit commit_;
    // Reads waiting for the map to be remapped (see openSnapshot).
    std::vector<std::function<void()>> deferred_;
    bool settlePosted_ = false;
    // The highest meta.rev this Store has seen, for when the map is busy.
    Revision lastRevision_ = 0;
    std::function<void(Revision)> commitListener_;
    // Cleared by the destructor; posted tasks check it.
    std::shared_ptr<bool> alive_;
};

}  // namespace kube::storage::lmdb
