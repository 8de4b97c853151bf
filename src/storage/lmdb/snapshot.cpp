#include "storage/lmdb/snapshot.hpp"

namespace kube::storage::lmdb {

SnapshotPool::~SnapshotPool() {
    for (MDB_txn* txn : idle_) {
        mdb_txn_abort(txn);
    }
}

int SnapshotPool::acquire(MDB_txn** txn) {
    *txn = nullptr;
    if (!idle_.empty()) {
        MDB_txn* t = idle_.back();
        const int rc = mdb_txn_renew(t);
        if (rc != MDB_SUCCESS) {
            // A failed renew leaves the transaction reset and renewable.
            return rc;
        }
        idle_.pop_back();
        *txn = t;
    } else {
        const int rc = mdb_txn_begin(env_, nullptr, MDB_RDONLY, txn);
        if (rc != MDB_SUCCESS) {
            *txn = nullptr;
            return rc;
        }
    }
    active_++;
    return MDB_SUCCESS;
}

void SnapshotPool::release(MDB_txn* txn) {
    mdb_txn_reset(txn);
    idle_.push_back(txn);
    active_--;
}

void Snapshot::close() {
    if (txn_ != nullptr) {
        pool_.release(txn_);
        txn_ = nullptr;
    }
}

}  // namespace kube::storage::lmdb
