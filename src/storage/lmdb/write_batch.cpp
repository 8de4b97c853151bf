#include "storage/lmdb/write_batch.hpp"

#include <algorithm>
#include <optional>

#include "storage/lmdb/codec.hpp"
#include "storage/lmdb/tables.hpp"
#include "storage/write_plan.hpp"

namespace kube::storage::lmdb {

namespace {

Error txnError(const Env& env, std::string_view what, int rc) {
    if (rc == MDB_MAP_FULL) {
        return {ErrorCode::NoSpace, "storage is full: the LMDB map of " +
                                        std::to_string(env.mapSize()) +
                                        " bytes has no room left for this write; "
                                        "raise the map size or compact the revision log"};
    }
    return {ErrorCode::Internal, lmdbError(what, rc)};
}

// Plans one call with planWrite() against the transaction's state; a key
// LMDB cannot store fails the call like a precondition. The return value is an
// LMDB error that dooms the whole transaction.
int planCall(const Env& env, MDB_txn* txn, const std::vector<WriteOp>& ops, Revision base,
             WriteResult* result) {
    const size_t maxKey = std::min(env.maxKeySize(), kMaxRevlogKeySize);
    int rc = MDB_SUCCESS;
    auto lookup = [&](const std::string& key, std::optional<Object>& current) -> Error {
        if (key.empty() || key.size() > maxKey) {
            return keyError(ErrorCode::Internal, key,
                            "is empty or longer than " + std::to_string(maxKey) + " bytes");
        }
        ObjectView view;
        rc = getObject(env, txn, key, &view);
        if (rc == MDB_SUCCESS) {
            // Copied: the pages under `view` may be rewritten by later puts.
            current = Object{key, std::string(view.value), view.modRevision, view.createRevision};
        } else if (rc == MDB_NOTFOUND) {
            rc = MDB_SUCCESS;
        } else {
            return txnError(env, "write", rc);
        }
        return Error{};
    };
    planWrite(ops, base, lookup, *result);
    return rc;
}

// Stores a planned call: objects and one revlog entry per op.
int applyCall(const Env& env, MDB_txn* txn, const std::vector<WriteOp>& ops,
              const std::vector<Object>& objects) {
    for (size_t i = 0; i < ops.size(); i++) {
        const Object& o = objects[i];
        Event event;
        event.revision = o.modRevision;
        event.key = o.key;
        event.value = o.value;
        int rc;
        if (ops[i].type == WriteOp::Type::Delete) {
            MDB_val k = toVal(o.key);
            rc = mdb_del(txn, env.objects(), &k, nullptr);
            event.type = Event::Delete;
        } else {
            rc = putObject(env, txn, o.view());
            // Only a Create may find the key absent (planWrite checked it).
            event.created = ops[i].type == WriteOp::Type::Create;
        }
        if (rc == MDB_SUCCESS) {
            rc = appendRevlog(env, txn, event);
        }
        if (rc != MDB_SUCCESS) {
            return rc;
        }
    }
    return MDB_SUCCESS;
}

BatchOutcome failBatch(const Env& env, std::string_view what, int rc) {
    BatchOutcome out;
    out.rc = rc;
    out.error = txnError(env, what, rc);
    return out;
}

}  // namespace

WriteResult failedCall(const WriteCall& call, const Error& error) {
    WriteResult r;
    r.error = error;
    r.objects.resize(call.ops.size());
    return r;
}

BatchOutcome commitBatch(const Env& env, std::vector<WriteCall>& calls, const TakeCalls& take) {
    MDB_txn* txn = nullptr;
    int rc = mdb_txn_begin(env.env(), nullptr, 0, &txn);
    if (rc != MDB_SUCCESS) {
        if (rc != MDB_MAP_RESIZED) {
            take(calls);
        }
        return failBatch(env, "begin write transaction", rc);
    }
    take(calls);
    if (calls.empty()) {
        mdb_txn_abort(txn);
        return BatchOutcome{};
    }
    Revision first = 0;
    rc = getCounter(env, txn, kMetaRevision, &first);
    if (rc != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return failBatch(env, "read meta.rev", rc);
    }

    BatchOutcome out;
    out.results.reserve(calls.size());
    Revision rev = first;
    for (const WriteCall& call : calls) {
        WriteResult result;
        rc = planCall(env, txn, call.ops, rev, &result);
        if (rc == MDB_SUCCESS && result.error.ok()) {
            rc = applyCall(env, txn, call.ops, result.objects);
            rev += call.ops.size();
        }
        if (rc != MDB_SUCCESS) {
            mdb_txn_abort(txn);
            return failBatch(env, "write", rc);
        }
        out.results.push_back(std::move(result));
    }

    if (rev == first) {
        // Every call failed or was empty: nothing to make durable.
        mdb_txn_abort(txn);
        return out;
    }
    rc = putCounter(env, txn, kMetaRevision, rev);
    if (rc != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return failBatch(env, "write meta.rev", rc);
    }
    rc = mdb_txn_commit(txn);
    if (rc != MDB_SUCCESS) {
        return failBatch(env, "commit", rc);
    }
    out.lastRevision = rev;
    return out;
}

}  // namespace kube::storage::lmdb
