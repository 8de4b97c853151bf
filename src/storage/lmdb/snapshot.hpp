#pragma once

#include <lmdb.h>

#include <cstddef>
#include <vector>

namespace kube::storage::lmdb {

// The loop's read transactions. Each is begun once and then cycled with
// mdb_txn_renew/mdb_txn_reset, which avoids the reader-table lock that a
// begin/abort per read takes (spec/storage.md §1.3). Usually one is enough;
// a read started inside another read's callback takes a second one.
//
// Threads: the loop thread only. Must be destroyed before the environment.
class SnapshotPool {
public:
    explicit SnapshotPool(MDB_env* env) : env_(env) {}
    ~SnapshotPool();
    SnapshotPool(const SnapshotPool&) = delete;
    SnapshotPool& operator=(const SnapshotPool&) = delete;

    // Renews an idle transaction, or begins a new one; an LMDB error code
    // (MDB_MAP_RESIZED when another process has grown the map).
    int acquire(MDB_txn** txn);
    // Resets `txn` (releasing its snapshot) and keeps it for the next read.
    void release(MDB_txn* txn);

    // Transactions acquired and not yet released.
    size_t active() const { return active_; }

private:
    MDB_env* env_;
    std::vector<MDB_txn*> idle_;
    size_t active_ = 0;
};

// One read, scoped: the snapshot is reset when this goes out of scope, so
// it is never held across a return to the loop.
class Snapshot {
public:
    explicit Snapshot(SnapshotPool& pool) : pool_(pool) {}
    ~Snapshot() { close(); }
    Snapshot(const Snapshot&) = delete;
    Snapshot& operator=(const Snapshot&) = delete;

    // An LMDB error code.
    int open() { return pool_.acquire(&txn_); }
    void close();

    MDB_txn* txn() const { return txn_; }

private:
    SnapshotPool& pool_;
    MDB_txn* txn_ = nullptr;
};

}  // namespace kube::storage::lmdb
