#pragma once

#include <lmdb.h>

#include <memory>
#include <string>
#include <string_view>

namespace kube::storage::lmdb {

struct Options {
    // The environment directory (data.mdb, lock.mdb); created if missing.
    std::string dir;
    // Bytes of address space for the map; the file grows only with use.
    size_t mapSize = 8ull << 30;
    // Reader-table slots shared by every process on the environment.
    unsigned maxReaders = 1024;
    // At most this many write() calls go into one write transaction.
    size_t maxBatch = 1000;
    // compact() deletes at most this many revision-log entries per write
    // transaction (~3 ms each, spec/storage.md §1.5).
    size_t compactChunk = 10000;
};

// One process's handle on an LMDB environment and its three named databases.
// Open it after fork (in each worker), never before: an environment must not
// cross fork(). Several processes may hold the same directory open at once.
//
// Threads: read transactions may run on any thread (MDB_NOTLS); a write
// transaction stays on the thread that began it. adoptMapSize() needs every
// transaction of this process to be finished or reset.
class Env {
public:
    static std::shared_ptr<Env> open(const Options& options, std::string* error);

    ~Env();
    Env(const Env&) = delete;
    Env& operator=(const Env&) = delete;

    MDB_env* env() const { return env_; }
    MDB_dbi objects() const { return objects_; }
    MDB_dbi revlog() const { return revlog_; }
    MDB_dbi meta() const { return meta_; }

    // The longest key LMDB accepts (511 bytes with the default build).
    size_t maxKeySize() const { return maxKeySize_; }
    size_t mapSize() const;

    // Frees reader slots of processes that died inside a read transaction;
    // returns how many, or -1 when the check itself failed.
    int checkStaleReaders();

    // Takes over the map size another process has grown the environment to
    // (after MDB_MAP_RESIZED); returns an LMDB error code.
    int adoptMapSize();

private:
    Env() = default;

    MDB_env* env_ = nullptr;
    MDB_dbi objects_ = 0;
    MDB_dbi revlog_ = 0;
    MDB_dbi meta_ = 0;
    size_t maxKeySize_ = 0;
};

// "lmdb: <what>: <mdb_strerror(rc)>".
std::string lmdbError(std::string_view what, int rc);

}  // namespace kube::storage::lmdb
