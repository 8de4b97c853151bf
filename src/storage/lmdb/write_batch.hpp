#pragma once

#include <span>
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

// Runs one write transaction for all `calls` and commits it durably. Each
// call is atomic on its own: its preconditions are checked against the
// transaction's state (earlier calls included) before any of its ops is
// applied, and a call that fails changes nothing while the others commit.
// Revisions follow meta.rev, one per op, in order.
//
// Blocks (the global write lock, fsync): run it off the loop. Reads only
// `calls`; callbacks are not invoked.
BatchOutcome commitBatch(const Env& env, std::span<const WriteCall> calls);

// The result every call of a batch gets when the transaction failed.
WriteResult failedCall(const WriteCall& call, const Error& error);

}  // namespace kube::storage::lmdb
