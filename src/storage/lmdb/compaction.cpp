#include "storage/lmdb/compaction.hpp"

#include <algorithm>

#include "storage/lmdb/codec.hpp"
#include "storage/lmdb/tables.hpp"

namespace kube::storage::lmdb {

namespace {

// Deletes revlog entries below `target`, oldest first, at most `max` of them.
// `*kept` becomes the oldest revision left below `target`, or `target` when
// none is left.
int deleteOldest(const Env& env, MDB_txn* txn, Revision target, size_t max, Revision* kept) {
    MDB_cursor* cursor = nullptr;
    int rc = mdb_cursor_open(txn, env.revlog(), &cursor);
    if (rc != MDB_SUCCESS) {
        return rc;
    }
    *kept = target;
    for (size_t deleted = 0;; deleted++) {
        MDB_val k{0, nullptr};
        MDB_val v{0, nullptr};
        // The first entry is always the oldest one left.
        rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST);
        if (rc == MDB_NOTFOUND) {
            rc = MDB_SUCCESS;
            break;
        }
        if (rc != MDB_SUCCESS) {
            break;
        }
        Revision revision = 0;
        if (!decodeBe64(toView(k), &revision)) {
            rc = MDB_CORRUPTED;
            break;
        }
        if (revision >= target) {
            break;
        }
        if (deleted == max) {
            *kept = revision;
            break;
        }
        rc = mdb_cursor_del(cursor, 0);
        if (rc != MDB_SUCCESS) {
            break;
        }
    }
    mdb_cursor_close(cursor);
    return rc;
}

}  // namespace

int compactStep(const Env& env, Revision target, size_t maxEntries, bool* finished) {
    *finished = false;
    MDB_txn* txn = nullptr;
    int rc = mdb_txn_begin(env.env(), nullptr, 0, &txn);
    if (rc != MDB_SUCCESS) {
        return rc;
    }
    Revision current = 0;
    Revision compacted = 0;
    rc = getCounter(env, txn, kMetaRevision, &current);
    if (rc == MDB_SUCCESS) {
        rc = getCounter(env, txn, kMetaCompactRevision, &compacted);
    }
    if (rc != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return rc;
    }
    target = std::min(target, current);
    if (target <= compacted) {
        mdb_txn_abort(txn);
        *finished = true;
        return MDB_SUCCESS;
    }
    Revision kept = target;
    rc = deleteOldest(env, txn, target, std::max<size_t>(maxEntries, 1), &kept);
    // Should entries linger below compact_rev, they go too; the counter never
    // decreases.
    const Revision next = std::max(kept, compacted);
    if (rc == MDB_SUCCESS && next != compacted) {
        rc = putCounter(env, txn, kMetaCompactRevision, next);
    }
    if (rc != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return rc;
    }
    rc = mdb_txn_commit(txn);
    if (rc == MDB_SUCCESS) {
        *finished = next == target;
    }
    return rc;
}

}  // namespace kube::storage::lmdb
