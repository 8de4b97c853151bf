#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kube::storage {

struct Event;

// The store's global revision; every object's resourceVersion.
using Revision = uint64_t;

enum class ErrorCode {
    Ok,
    NotFound,     // key absent (get, update, delete)
    KeyExists,    // create of a key that exists
    Conflict,     // precondition failed: mod revision differs
    Compacted,    // requested revision is older than the compacted one
    NoSpace,      // the backend is full (LMDB MDB_MAP_FULL, etcd NOSPACE)
    Unavailable,  // the backend cannot be reached or is shutting down
    Internal,
};

struct Error {
    ErrorCode code = ErrorCode::Ok;
    std::string message;

    bool ok() const { return code == ErrorCode::Ok; }
};

// A stored object as the backend sees it: opaque bytes under a key.
// Views stay valid only for the duration of the callback they are passed to.
struct ObjectView {
    std::string_view key;
    std::string_view value;
    Revision modRevision = 0;
    Revision createRevision = 0;
};

// An owned copy, for results that outlive a callback.
struct Object {
    std::string key;
    std::string value;
    Revision modRevision = 0;
    Revision createRevision = 0;

    ObjectView view() const { return {key, value, modRevision, createRevision}; }
};

// One write of an atomic batch (see Interface::write).
struct WriteOp {
    enum class Type { Create, Update, Delete };

    Type type = Type::Create;
    std::string key;
    // Update/Delete: the key's mod revision must equal this, or the batch
    // fails with Conflict. 0 means unconditional (the key must still exist).
    Revision expectedModRevision = 0;
    // Create/Update: the new bytes.
    std::string value;
    // Create/Update: where the assigned revision's decimal digits are spliced
    // into `value` before it is stored (the resourceVersion inside the JSON),
    // or npos to store `value` as is.
    size_t revisionOffset = std::string::npos;
    // Create/Update: the key expires this long after the write unless it is
    // written again (etcd: put under a lease, as kube's store does for
    // keys with a TTL); zero: never. Backends without expiry ignore it.
    std::chrono::seconds ttl{0};
};

struct WriteResult {
    Error error;
    // Index of the op that failed when !error.ok().
    size_t failedOp = 0;
    // Per op, the stored state: the new object for Create/Update (with the
    // revision spliced in), the last state for Delete (modRevision is the
    // deletion's revision). For a failed Conflict/NotFound batch, the entry
    // of the failed op holds the current object if there is one.
    std::vector<Object> objects;
};

struct ListOptions {
    // Every key starting with `prefix`.
    std::string prefix;
    // Start at this key (inclusive); empty = the start of the prefix.
    std::string startKey;
    // At most this many items; 0 = no limit.
    size_t limit = 0;
};

struct ListResult {
    std::span<const ObjectView> items;
    // The store's revision the list was read at.
    Revision revision = 0;
    // True when `limit` cut the list short; `remaining` items follow.
    bool more = false;
    uint64_t remaining = 0;
};

// Splices `revision` into `value` at `offset` (see WriteOp::revisionOffset).
std::string spliceRevision(std::string_view value, size_t offset, Revision revision);

// The storage contract the registry is written against; mirrors
// k8s.io/apiserver/pkg/storage.Interface, made asynchronous so that a network
// backend (etcd) and a group-committing local one (LMDB) fit alike.
//
// Threads: every method is called on the loop thread, and every callback runs
// on the loop thread. Reads may call back inline (LMDB reads are cheaper than
// a deferral); writes always call back later, after the write is durable.
class Interface {
  public:
    using GetCallback = std::function<void(const Error&, const ObjectView*)>;
    using ListCallback = std::function<void(const Error&, const ListResult&)>;
    using WriteCallback = std::function<void(WriteResult&&)>;
    // Revision-log entries after a revision, in revision order; error
    // Compacted when some that should follow it were compacted away.
    using HistoryCallback = std::function<void(const Error&, std::span<const Event>)>;
    using CommitListener = std::function<void(Revision)>;
    using CompactCallback = std::function<void(const Error&)>;
    using FreshCallback = std::function<void(const Error&)>;

    virtual ~Interface() = default;

    // NotFound when the key is absent (the view is then null).
    virtual void get(std::string_view key, GetCallback cb) = 0;

    // The keys under `prefix` in key order, from one consistent snapshot.
    virtual void list(const ListOptions& opts, ListCallback cb) = 0;

    // Applies `ops` atomically: either every op is stored, or none is (error
    // set, failedOp names the culprit: KeyExists for a Create of a present
    // key, NotFound for an Update/Delete of an absent one, Conflict for a mod
    // revision mismatch). The ops get revisions in op order: consecutive
    // ones, each op seeing the batch's earlier ones (memory, LMDB), or one
    // revision shared by all (etcd: one transaction, which cannot touch a key
    // twice nor hold more than etcd's --max-txn-ops, 128 by default).
    // The callback runs once the batch is durable.
    virtual void write(std::vector<WriteOp> ops, WriteCallback cb) = 0;

    // The latest committed revision this process knows of.
    virtual Revision currentRevision() = 0;

    // The change feed watch caches are built on: the revision-log entries
    // with revision > `after`, oldest first, at most `limit` of them (0 = all),
    // read from one snapshot. May call back inline.
    virtual void history(Revision after, size_t limit, HistoryCallback cb) = 0;

    // Runs on the loop after each batch this process committed, with the
    // highest revision it wrote. Writes by other processes are not reported
    // here; the caller learns of them by its own means (eventfd, polling).
    virtual void setCommitListener(CommitListener listener) = 0;

    // Drops the revision-log entries with revision < `revision`; history()
    // from before it then answers Compacted. Runs off the loop; the callback
    // runs on the loop. Compacting to a revision at or below the current
    // compacted one does nothing and succeeds.
    virtual void compact(Revision revision, CompactCallback cb) = 0;

    // The oldest revision history() can still return entries from (entries
    // below it were compacted); 0 when nothing was ever compacted.
    virtual Revision compactedRevision() = 0;

    // Consistent reads from this process's view (kube 1.31's consistent
    // list from the watch cache): calls back once get(), list() and
    // history() reflect every write committed before the call, by any
    // process or host. An error when that could not be had in time
    // (kube's 3 s) or the backend could not be asked: the caller then reads
    // with getLinearizable() / listLinearizable(). Backends whose reads are
    // always current call back inline.
    virtual void waitFresh(FreshCallback cb) { cb(Error{}); }

    // The most ops one write() may hold (etcd's --max-txn-ops, 128 by
    // default); 0: any number.
    virtual size_t maxOpsPerWrite() const { return 0; }

    // Whether get() and list() may lag writes that another process or host
    // made and had acknowledged (etcd's replica); false where every read
    // is current.
    virtual bool readsMayLag() const { return false; }

    // get(), except that where reads may lag, a NotFound is only answered
    // once this view has caught up with every write acknowledged before the
    // call (waitFresh(), or getLinearizable() when it fails): what
    // kube-apiserver does when its cache lacks a key it must not miss (it
    // reads etcd).
    void getLatest(std::string_view key, GetCallback cb);

    // get() and list() read from the backend itself rather than from this
    // process's view: a linearizable read (etcd: a Range), the fallback of
    // a consistent read whose waitFresh() failed.
    virtual void getLinearizable(std::string_view key, GetCallback cb) { get(key, std::move(cb)); }
    virtual void listLinearizable(const ListOptions& opts, ListCallback cb) {
        list(opts, std::move(cb));
    }

    // The backend's own metrics in the Prometheus text format (etcd: its
    // requests and the consistent reads); empty when it has none.
    virtual std::string metricsText() { return {}; }

    // Why the backend cannot serve now (etcd unreachable), for the health
    // check named after it; empty when it can.
    virtual std::string health() { return {}; }
};

}  // namespace kube::storage
