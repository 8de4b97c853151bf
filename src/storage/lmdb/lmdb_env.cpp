#include "storage/lmdb/lmdb_env.hpp"

#include <filesystem>
#include <system_error>

#include "storage/lmdb/codec.hpp"

namespace kube::storage::lmdb {

namespace {

// Writes 0 to the meta counters that do not exist yet.
int seedMeta(MDB_txn* txn, MDB_dbi meta) {
    for (std::string_view name : {kMetaRevision, kMetaCompactRevision}) {
        MDB_val key{name.size(), const_cast<char*>(name.data())};
        Be64 zero = encodeBe64(0);
        MDB_val val{zero.size(), zero.data()};
        const int rc = mdb_put(txn, meta, &key, &val, MDB_NOOVERWRITE);
        if (rc != MDB_SUCCESS && rc != MDB_KEYEXIST) {
            return rc;
        }
    }
    return MDB_SUCCESS;
}

// Opens the three databases in a transaction that is then committed, so the
// handles stay valid for the life of the environment. A read transaction
// suffices once they exist, which keeps a worker start from queueing behind
// another worker's commit; the first start creates them in a write
// transaction and seeds the meta counters.
int openDatabases(MDB_env* env, MDB_dbi* objects, MDB_dbi* revlog, MDB_dbi* meta,
                  std::string* what) {
    for (unsigned flags : {static_cast<unsigned>(MDB_RDONLY), 0u}) {
        const unsigned create = flags == 0 ? MDB_CREATE : 0;
        MDB_txn* txn = nullptr;
        int rc = mdb_txn_begin(env, nullptr, flags, &txn);
        if (rc != MDB_SUCCESS) {
            *what = "begin transaction";
            return rc;
        }
        *what = "open databases";
        rc = mdb_dbi_open(txn, "objects", create, objects);
        if (rc == MDB_SUCCESS) {
            rc = mdb_dbi_open(txn, "revlog", create, revlog);
        }
        if (rc == MDB_SUCCESS) {
            rc = mdb_dbi_open(txn, "meta", create, meta);
        }
        if (rc == MDB_NOTFOUND && flags == MDB_RDONLY) {
            mdb_txn_abort(txn);
            continue;
        }
        if (rc == MDB_SUCCESS && flags == 0) {
            rc = seedMeta(txn, *meta);
        }
        if (rc != MDB_SUCCESS) {
            mdb_txn_abort(txn);
            return rc;
        }
        *what = "commit";
        return mdb_txn_commit(txn);
    }
    return MDB_NOTFOUND;
}

}  // namespace

std::string lmdbError(std::string_view what, int rc) {
    return "lmdb: " + std::string(what) + ": " + mdb_strerror(rc);
}

std::shared_ptr<Env> Env::open(const Options& options, std::string* error) {
    std::error_code ec;
    std::filesystem::create_directories(options.dir, ec);
    if (ec) {
        *error = "lmdb: cannot create directory \"" + options.dir + "\": " + ec.message();
        return nullptr;
    }

    std::shared_ptr<Env> env(new Env());
    int rc = mdb_env_create(&env->env_);
    if (rc != MDB_SUCCESS) {
        env->env_ = nullptr;
        *error = lmdbError("create environment", rc);
        return nullptr;
    }
    rc = mdb_env_set_maxdbs(env->env_, 3);
    if (rc == MDB_SUCCESS) {
        rc = mdb_env_set_mapsize(env->env_, options.mapSize);
    }
    if (rc == MDB_SUCCESS) {
        rc = mdb_env_set_maxreaders(env->env_, options.maxReaders);
    }
    if (rc != MDB_SUCCESS) {
        *error = lmdbError("configure environment", rc);
        return nullptr;
    }
    // MDB_NOTLS: a reader slot belongs to a transaction, not a thread, so the
    // loop can hold several snapshots and reset/renew them.
    rc = mdb_env_open(env->env_, options.dir.c_str(), MDB_NOTLS, 0644);
    if (rc != MDB_SUCCESS) {
        *error = lmdbError("open \"" + options.dir + "\"", rc);
        return nullptr;
    }
    std::string what;
    rc = openDatabases(env->env_, &env->objects_, &env->revlog_, &env->meta_, &what);
    if (rc != MDB_SUCCESS) {
        *error = lmdbError(what + " in \"" + options.dir + "\"", rc);
        return nullptr;
    }
    env->maxKeySize_ = static_cast<size_t>(mdb_env_get_maxkeysize(env->env_));
    // A worker that was killed inside a read pins old pages until its slot is freed.
    env->checkStaleReaders();
    return env;
}

Env::~Env() {
    if (env_ != nullptr) {
        mdb_env_close(env_);
    }
}

size_t Env::mapSize() const {
    MDB_envinfo info;
    if (mdb_env_info(env_, &info) != MDB_SUCCESS) {
        return 0;
    }
    return info.me_mapsize;
}

int Env::checkStaleReaders() {
    int dead = 0;
    return mdb_reader_check(env_, &dead) == MDB_SUCCESS ? dead : -1;
}

int Env::adoptMapSize() {
    return mdb_env_set_mapsize(env_, 0);
}

}  // namespace kube::storage::lmdb
