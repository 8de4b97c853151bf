#include "storage/lmdb/tables.hpp"

#include "storage/lmdb/codec.hpp"

namespace kube::storage::lmdb {

int getObject(const Env& env, MDB_txn* txn, std::string_view key, ObjectView* out) {
    if (key.empty() || key.size() > env.maxKeySize()) {
        return MDB_NOTFOUND;
    }
    MDB_val k = toVal(key);
    MDB_val v;
    const int rc = mdb_get(txn, env.objects(), &k, &v);
    if (rc != MDB_SUCCESS) {
        return rc;
    }
    return decodeObject(key, toView(v), out) ? MDB_SUCCESS : MDB_CORRUPTED;
}

int putObject(const Env& env, MDB_txn* txn, const ObjectView& object) {
    MDB_val k = toVal(object.key);
    MDB_val v{objectSize(object.value.size()), nullptr};
    // MDB_RESERVE: encode straight into the page instead of a temporary.
    const int rc = mdb_put(txn, env.objects(), &k, &v, MDB_RESERVE);
    if (rc == MDB_SUCCESS) {
        encodeObject(static_cast<char*>(v.mv_data), object.modRevision, object.createRevision,
                     object.value);
    }
    return rc;
}

int getCounter(const Env& env, MDB_txn* txn, std::string_view name, Revision* out) {
    MDB_val k = toVal(name);
    MDB_val v;
    const int rc = mdb_get(txn, env.meta(), &k, &v);
    if (rc == MDB_NOTFOUND) {
        *out = 0;
        return MDB_SUCCESS;
    }
    if (rc != MDB_SUCCESS) {
        return rc;
    }
    return decodeBe64(toView(v), out) ? MDB_SUCCESS : MDB_CORRUPTED;
}

int putCounter(const Env& env, MDB_txn* txn, std::string_view name, Revision value) {
    MDB_val k = toVal(name);
    Be64 bytes = encodeBe64(value);
    MDB_val v{bytes.size(), bytes.data()};
    return mdb_put(txn, env.meta(), &k, &v, 0);
}

int appendRevlog(const Env& env, MDB_txn* txn, const Event& event) {
    Be64 keyBytes = encodeBe64(event.revision);
    MDB_val k{keyBytes.size(), keyBytes.data()};
    MDB_val v{revlogSize(event.key.size(), event.value.size()), nullptr};
    const int rc = mdb_put(txn, env.revlog(), &k, &v, MDB_APPEND | MDB_RESERVE);
    if (rc == MDB_SUCCESS) {
        encodeRevlog(static_cast<char*>(v.mv_data), event);
    }
    return rc;
}

}  // namespace kube::storage::lmdb
