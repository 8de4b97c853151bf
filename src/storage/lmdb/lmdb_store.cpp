#include "storage/lmdb/lmdb_store.hpp"

#include <algorithm>
#include <limits>

#include "storage/lmdb/codec.hpp"
#include "storage/lmdb/compaction.hpp"
#include "storage/lmdb/tables.hpp"
#include "storage/write_plan.hpp"

namespace kube::storage::lmdb {

namespace {

Error readError(std::string_view what, int rc) {
    return {ErrorCode::Internal, lmdbError(what, rc)};
}

// Closes a read transaction's cursor, which LMDB leaves to the caller.
class CursorGuard {
public:
    explicit CursorGuard(MDB_cursor* cursor) : cursor_(cursor) {}
    ~CursorGuard() { mdb_cursor_close(cursor_); }
    CursorGuard(const CursorGuard&) = delete;
    CursorGuard& operator=(const CursorGuard&) = delete;

private:
    MDB_cursor* cursor_;
};

// The keys under opts.prefix from opts.startKey on, up to opts.limit of them
// decoded into `items`; the rest are only counted, never copied.
int scanPrefix(const Env& env, MDB_txn* txn, const ListOptions& opts,
               std::vector<ObjectView>* items, ListResult* result) {
    MDB_cursor* cursor = nullptr;
    int rc = mdb_cursor_open(txn, env.objects(), &cursor);
    if (rc != MDB_SUCCESS) {
        return rc;
    }
    CursorGuard guard(cursor);
    const std::string_view prefix = opts.prefix;
    const std::string_view from = std::max<std::string_view>(opts.startKey, prefix);
    MDB_val k{0, nullptr};
    MDB_val v{0, nullptr};
    if (from.empty()) {
        rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST);
    } else {
        // A start key longer than any storable key is positioned by its
        // storable part; the keys before it are skipped below.
        k = toVal(from.substr(0, env.maxKeySize()));
        rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE);
    }
    for (; rc == MDB_SUCCESS; rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
        const std::string_view key = toView(k);
        if (key < from) {
            continue;
        }
        if (!key.starts_with(prefix)) {
            break;
        }
        if (opts.limit != 0 && items->size() == opts.limit) {
            result->more = true;
            result->remaining++;
            continue;
        }
        ObjectView object;
        if (!decodeObject(key, toView(v), &object)) {
            return MDB_CORRUPTED;
        }
        items->push_back(object);
    }
    return rc == MDB_NOTFOUND ? MDB_SUCCESS : rc;
}

// The revlog entries after `after`, at most `limit` (0 = all).
int scanRevlog(const Env& env, MDB_txn* txn, Revision after, size_t limit,
               std::vector<Event>* events) {
    if (after == std::numeric_limits<Revision>::max()) {
        return MDB_SUCCESS;
    }
    MDB_cursor* cursor = nullptr;
    int rc = mdb_cursor_open(txn, env.revlog(), &cursor);
    if (rc != MDB_SUCCESS) {
        return rc;
    }
    CursorGuard guard(cursor);
    Be64 start = encodeBe64(after + 1);
    MDB_val k{start.size(), start.data()};
    MDB_val v{0, nullptr};
    rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE);
    for (; rc == MDB_SUCCESS && (limit == 0 || events->size() < limit);
         rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
        Revision revision = 0;
        Event event;
        if (!decodeBe64(toView(k), &revision) || !decodeRevlog(revision, toView(v), &event)) {
            return MDB_CORRUPTED;
        }
        events->push_back(event);
    }
    return rc == MDB_NOTFOUND || rc == MDB_SUCCESS ? MDB_SUCCESS : rc;
}

}  // namespace

std::unique_ptr<Store> Store::open(const Options& options, util::EventLoop& loop,
                                   std::string* error) {
    std::shared_ptr<Env> env = Env::open(options, error);
    if (!env) {
        return nullptr;
    }
    return std::unique_ptr<Store>(new Store(std::move(env), loop, options));
}

Store::Store(std::shared_ptr<Env> env, util::EventLoop& loop, const Options& options)
    : env_(std::move(env)),
      loop_(loop),
      snapshots_(env_->env()),
      commit_(loop, env_, options.maxBatch),
      compactChunk_(std::max<size_t>(options.compactChunk, 1)),
      alive_(std::make_shared<bool>(true)) {
    commit_.setSettledHook([this] { settle(); });
    commit_.setCommitListener([this](Revision r) { committed(r); });
}

Store::~Store() {
    *alive_ = false;
}

void Store::get(std::string_view key, GetCallback cb) {
    Snapshot snap(snapshots_);
    int rc = openSnapshot(snap);
    if (rc == MDB_MAP_RESIZED) {
        deferRead([this, key = std::string(key), cb = std::move(cb)]() mutable {
            get(key, std::move(cb));
        });
        return;
    }
    if (rc != MDB_SUCCESS) {
        cb(readError("begin read transaction", rc), nullptr);
        return;
    }
    ObjectView object;
    rc = getObject(*env_, snap.txn(), key, &object);
    if (rc == MDB_NOTFOUND) {
        cb(Error{ErrorCode::NotFound, "key \"" + std::string(key) + "\" not found"}, nullptr);
    } else if (rc != MDB_SUCCESS) {
        cb(readError("get", rc), nullptr);
    } else {
        cb(Error{}, &object);
    }
}

void Store::list(const ListOptions& opts, ListCallback cb) {
    Snapshot snap(snapshots_);
    int rc = openSnapshot(snap);
    if (rc == MDB_MAP_RESIZED) {
        deferRead([this, opts, cb = std::move(cb)]() mutable { list(opts, std::move(cb)); });
        return;
    }
    ListResult result;
    if (rc != MDB_SUCCESS) {
        cb(readError("begin read transaction", rc), result);
        return;
    }
    std::vector<ObjectView> items;
    rc = getCounter(*env_, snap.txn(), kMetaRevision, &result.revision);
    if (rc == MDB_SUCCESS) {
        rc = scanPrefix(*env_, snap.txn(), opts, &items, &result);
    }
    if (rc != MDB_SUCCESS) {
        cb(readError("list", rc), ListResult{});
        return;
    }
    lastRevision_ = std::max(lastRevision_, result.revision);
    result.items = items;
    cb(Error{}, result);
}

void Store::write(std::vector<WriteOp> ops, WriteCallback cb) {
    commit_.submit(std::move(ops), std::move(cb));
}

bool Store::readCounter(std::string_view name, Revision* out) {
    Snapshot snap(snapshots_);
    return openSnapshot(snap) == MDB_SUCCESS &&
           getCounter(*env_, snap.txn(), name, out) == MDB_SUCCESS;
}

Revision Store::currentRevision() {
    Revision revision = 0;
    if (readCounter(kMetaRevision, &revision)) {
        lastRevision_ = std::max(lastRevision_, revision);
    }
    return lastRevision_;
}

Revision Store::compactedRevision() {
    Revision compacted = 0;
    if (readCounter(kMetaCompactRevision, &compacted)) {
        compactedRevision_ = std::max(compactedRevision_, compacted);
    }
    return compactedRevision_;
}

void Store::history(Revision after, size_t limit, HistoryCallback cb) {
    Snapshot snap(snapshots_);
    int rc = openSnapshot(snap);
    if (rc == MDB_MAP_RESIZED) {
        deferRead([this, after, limit, cb = std::move(cb)]() mutable {
            history(after, limit, std::move(cb));
        });
        return;
    }
    if (rc != MDB_SUCCESS) {
        cb(readError("begin read transaction", rc), {});
        return;
    }
    Revision compacted = 0;
    rc = getCounter(*env_, snap.txn(), kMetaCompactRevision, &compacted);
    if (rc != MDB_SUCCESS) {
        cb(readError("read meta.compact_rev", rc), {});
        return;
    }
    // Entries below the compacted revision are gone: a reader that needs
    // one of them must relist (etcd's ErrCompacted, HTTP 410).
    if (after + 1 < compacted) {
        cb(compactedError(after, compacted), {});
        return;
    }
    std::vector<Event> events;
    rc = scanRevlog(*env_, snap.txn(), after, limit, &events);
    if (rc != MDB_SUCCESS) {
        cb(readError("read revlog", rc), {});
        return;
    }
    cb(Error{}, events);
}

int Store::checkStaleReaders() {
    return env_->checkStaleReaders();
}

void Store::setCommitListener(CommitListener listener) {
    commitListener_ = std::move(listener);
}

void Store::compact(Revision revision, CompactCallback cb) {
    // Nothing to delete: answered without taking the write lock.
    if (std::min(revision, currentRevision()) <= compactedRevision()) {
        loop_.post([alive = alive_, cb = std::move(cb)] {
            if (*alive) {
                cb(Error{});
            }
        });
        return;
    }
    commit_.submitChore(
        [revision, chunk = compactChunk_](const Env& env, bool* finished) {
            return compactStep(env, revision, chunk, finished);
        },
        [this, alive = alive_, cb = std::move(cb)](int rc) {
            if (!*alive) {
                return;
            }
            if (rc == MDB_SUCCESS) {
                compactedRevision();
                cb(Error{});
            } else if (rc == MDB_MAP_FULL) {
                cb(Error{ErrorCode::NoSpace, lmdbError("compact the revision log", rc)});
            } else {
                cb(Error{ErrorCode::Internal, lmdbError("compact the revision log", rc)});
            }
        });
}

void Store::committed(Revision revision) {
    lastRevision_ = std::max(lastRevision_, revision);
    if (commitListener_) {
        commitListener_(revision);
    }
}

int Store::openSnapshot(Snapshot& snap) {
    int rc = snap.open();
    // Remapping is safe only when no transaction of this process is running:
    // no commit in flight, no snapshot open further up the stack.
    if (rc == MDB_MAP_RESIZED && !commit_.inFlight() && snapshots_.active() == 0) {
        rc = env_->adoptMapSize();
        if (rc == MDB_SUCCESS) {
            rc = snap.open();
        }
    }
    return rc;
}

void Store::deferRead(std::function<void()> read) {
    deferred_.push_back(std::move(read));
    // While a commit is in flight, its completion calls settle().
    if (commit_.inFlight() || settlePosted_) {
        return;
    }
    settlePosted_ = true;
    loop_.post([this, alive = alive_] {
        if (*alive) {
            settlePosted_ = false;
            settle();
        }
    });
}

void Store::settle() {
    if (deferred_.empty() || commit_.inFlight()) {
        return;
    }
    std::vector<std::function<void()>> reads = std::move(deferred_);
    deferred_.clear();
    std::shared_ptr<bool> alive = alive_;
    for (auto& read : reads) {
        if (!*alive) {
            return;
        }
        read();
    }
}

}  // namespace kube::storage::lmdb
