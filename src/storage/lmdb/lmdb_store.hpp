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
// compact() deletes the revision log in chunks (Options::compactChunk
// entries per write transaction), each chunk a turn of the writer that
// alternates with this process's write batches.
//
// Do not destroy a Store inside one of its own read callbacks. Destroying it
// otherwise is safe at any time: queued and in-flight write and compaction
// callbacks are dropped without being called, and a compaction stops after
// the chunk in flight.
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

    // Read inline from one snapshot. Compacted when after + 1 is below
    // meta.compact_rev.
    void history(Revision after, size_t limit, HistoryCallback cb) override;

    // Runs on the loop after each batch this Store committed, with the
    // highest revision the batch wrote, before the batch's write callbacks.
    void setCommitListener(CommitListener listener) override;

    // Clamped to meta.rev; the callback gets NoSpace when even deleting does
    // not fit in the map, Internal for other LMDB errors.
    void compact(Revision revision, CompactCallback cb) override;

    // meta.compact_rev as committed by any process.
    Revision compactedRevision() override;

    // Frees the reader slots of dead processes (mdb_reader_check); returns
    // how many, or -1 when the check failed. Call it from a timer.
    int checkStaleReaders();

private:
    Store(std::shared_ptr<Env> env, util::EventLoop& loop, const Options& options);

    // Reads a meta counter in a snapshot; false when the map is busy or the
    // read failed.
    bool readCounter(std::string_view name, Revision* out);

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
    size_t compactChunk_;
    // The highest meta.rev and meta.compact_rev this Store has seen, for when
    // the map is busy.
    Revision lastRevision_ = 0;
    Revision compactedRevision_ = 0;
    CommitListener commitListener_;
    // Cleared by the destructor; posted tasks check it.
    std::shared_ptr<bool> alive_;
};

}  // namespace kube::storage::lmdb
