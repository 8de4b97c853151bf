#pragma once

#include <lmdb.h>

#include <string_view>

#include "storage/event.hpp"
#include "storage/interface.hpp"
#include "storage/lmdb/lmdb_env.hpp"

// Typed access to the three databases inside a transaction, in the layout of
// codec.hpp. Every function returns an LMDB error code; a stored value that
// does not decode gives MDB_CORRUPTED. Views point into the map and live as
// long as the transaction (for a write transaction, until its next write).
namespace kube::storage::lmdb {

inline MDB_val toVal(std::string_view s) {
    return MDB_val{s.size(), const_cast<char*>(s.data())};
}

inline std::string_view toView(const MDB_val& v) {
    return {static_cast<const char*>(v.mv_data), v.mv_size};
}

// MDB_NOTFOUND when the key is absent.
int getObject(const Env& env, MDB_txn* txn, std::string_view key, ObjectView* out);

int putObject(const Env& env, MDB_txn* txn, const ObjectView& object);

// A meta counter (kMetaRevision, kMetaCompactRevision); 0 when absent.
int getCounter(const Env& env, MDB_txn* txn, std::string_view name, Revision* out);

int putCounter(const Env& env, MDB_txn* txn, std::string_view name, Revision value);

// Appends the revlog entry for event.revision, which must exceed every
// revision already logged (MDB_KEYEXIST otherwise).
int appendRevlog(const Env& env, MDB_txn* txn, const Event& event);

}  // namespace kube::storage::lmdb
