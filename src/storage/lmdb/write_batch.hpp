#pragma once

#include <functional>
#include <vector>

#include "storage/interface.hpp"
#include "storage/lmdb/lmdb_env.hpp"

namespace kube::storage::lmdb {

// One queued Interface::write() call.
struct WriteCall {
    std::vector<WriteOp> ops;
    Interface::WriteCallback cb;
};

struct BatchOutcome {
    // MDB_SUCCESS, or the LMDB error that aborted the whole transaction; then
    // nothing was written and every call fails with `error`.
    int rc = MDB_SUCCESS;
    Error error;
    // One per call, in call order, when rc is MDB_SUCCESS.
    std::vector<WriteResult> results;
    // The highest revision written; 0 when no call succeeded.
    Revision lastRevision = 0;
};

// Moves the calls to commit into `into`; called once the write lock is held.
using TakeCalls = std::function<void(std::vector<WriteCall>& into)>;

// Runs one write transaction and commits it durably. The calls are taken
// (`take` into `calls`) only once the transaction has begun, that is once
// this process holds the global write lock: everything that queued up while
// it waited joins this batch (group commit). Each call is atomic on its own:
// its preconditions are checked against the transaction's state (earlier
// calls included) before any of its ops is applied, and a call that fails
// changes nothing while the others commit. Revisions follow meta.rev, one
// per op, in order. When the transaction cannot begin, the calls are taken
// to fail with it, except on MDB_MAP_RESIZED: they stay queued for a retry.
//
// Blocks (the global write lock, fsync): run it off the loop. Callbacks are
// not invoked.
BatchOutcome commitBatch(const Env& env, std::vector<WriteCall>& calls, const TakeCalls& take);

// The result every call of a batch gets when the transaction failed.
WriteResult failedCall(const WriteCall& call, const Error& error);

}  // namespace kube::storage::lmdb
