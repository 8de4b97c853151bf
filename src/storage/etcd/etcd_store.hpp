#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "storage/etcd/key_layout.hpp"
#include "storage/etcd/value_codec.hpp"
#include "storage/event.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"

// gRPC stays out of this header: module/ includes it without the generated
// code's include path.
namespace etcdserverpb {
class TxnResponse;
class WatchResponse;
}  // namespace etcdserverpb
namespace mvccpb {
class Event;
class KeyValue;
}  // namespace mvccpb
namespace grpc {
class Status;
}

namespace kube::storage::etcd {

class Client;
class Compactor;
class LeaseManager;
class TxnBatcher;

struct Options {
    // "http://host:port" of each etcd member.
    std::vector<std::string> endpoints;
    // Where kube's tree lives in etcd: the "/registry" of the keys the
    // registry builds is replaced by it (kube-apiserver's --etcd-prefix).
    std::string prefix = "/registry";
    // Deadline of each etcd call.
    std::chrono::milliseconds timeout{std::chrono::seconds(30)};
    // For "https://" endpoints: PEM files of the authorities that sign
    // etcd's certificate (empty: the system's), and of the client
    // certificate and key this server presents (empty: none); read by open().
    std::string caFile;
    std::string certFile;
    std::string keyFile;
    // Events ("/registry/events/...") are written with an etcd lease of this
    // TTL, so that etcd deletes them (kube-apiserver's --event-ttl, 1 h);
    // zero keeps them until they are deleted.
    std::chrono::seconds eventTtl{std::chrono::hours(1)};
    // Nonzero on one Store of a host (the owner worker): it takes part in
    // kube-apiserver's compaction protocol every interval (Compactor), so
    // that etcd is compacted once per interval whoever shares it.
    std::chrono::milliseconds compactionInterval{0};
    // Told why the first read of the replica at start failed (the load goes
    // on, retrying); on the loop.
    std::function<void(const std::string& why)> loadFailed;
    // Change-feed entries kept for history(); older ones answer Compacted.
    size_t maxLogEvents = 100 * 1024;
    // How values are stored (kube's encoding when the server sets it).
    ValueCodec codec;
    // How long a consistent read waits for the replica to reach etcd's
    // revision before it reads etcd instead (kube's 3 s).
    std::chrono::milliseconds freshTimeout{3000};
};

// What a Store asked of etcd and how its consistent reads were served, for
// /metrics (kube's etcd_requests_total and
// apiserver_watch_cache_consistent_read_total).
struct Stats {
    // Ranges that read objects: the replica's load, reads through to etcd.
    uint64_t ranges = 0;
    // Ranges that only asked for etcd's revision (consistent reads) or
    // checked the replica against it.
    uint64_t revisionRanges = 0;
    uint64_t txns = 0;
    // Consistent reads served from the replica once it caught up, and those
    // that read etcd instead (it did not, in time).
    uint64_t consistentReads = 0;
    uint64_t consistentFallbacks = 0;
};

// The etcd v3 backend: several hosts share one etcd cluster (issue 17).
//
// Each worker keeps a replica of the keys under the prefix, loaded in the
// background with one consistent (paged) read at start and kept current by
// one etcd watch on the whole prefix. Reads (get, list, history) answer
// inline from the replica, as the watch caches need; the replica of a
// worker is never behind its own writes: a write calls back once etcd has
// committed it and the watch has brought its revision into the replica.
// Writes are etcd transactions, as kube's etcd3 store makes them: a create
// puts if the key's mod_revision is 0, an update or delete compares the
// mod_revision the caller read; all the ops of one write() share one
// transaction and so one revision (the watch caches take several events of
// one revision), and so do the writes that come together (TxnBatcher: group
// commit, each write's transaction nested in one).
//
// Keys are in kube-apiserver's layout (KeyLayout); values in what the codec
// makes of the registry's JSON (kube's encoding when the server sets it),
// with no resourceVersion: it is the key's mod_revision, filled in whenever
// a value is read back, as kube's etcd3 store does. The replica holds the
// registry's form, decoded once as etcd sends a value; a value the codec
// cannot decode fails its own reads (Internal) and is left out of lists and
// the change feed, so that the rest of its resource still serves.
// What a write answers is decoded from what it stored, as kube's store
// answers, so that every host reads the same object.
//
// The commit listener runs whenever the replica moves on, whoever wrote:
// other hosts' writes reach this worker only through its watch.
//
// Threads: every method runs on the loop; gRPC's completion queue has a
// thread of its own (Client), which calls `notify`; the loop then calls
// drain(). Do not destroy the Store inside one of its callbacks.
//
// Files: etcd_store.cpp (opening, the replica, reads, compaction, metrics),
// etcd_store_write.cpp (writes and their leases), and
// etcd_store_consistent_read.cpp (consistent reads).
class Store : public Interface {
  public:
    // Starts loading the replica in the background and returns at once
    // (nothing blocks the loop); once loaded, the watch opens. A failed read
    // is retried with backoff (etcd may come up later). Until the replica is
    // loaded every read and write fails Unavailable ("etcd has not been read
    // yet") and health() says why, as the server's /readyz then does; the
    // server starts from whenLoaded(). Null with `*error` set for options
    // that can never work.
    static std::unique_ptr<Store> open(const Options& options, util::EventLoop& loop,
                                       std::function<void()> notify, std::string* error);

    // Whether the replica was loaded; `cb` runs on the loop once it is (at
    // once when it is already).
    bool loaded() const { return loaded_; }
    void whenLoaded(std::function<void()> cb);

    ~Store() override;
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    // Runs what etcd answered since the last call; on the loop, after
    // `notify`.
    void drain();

    void get(std::string_view key, GetCallback cb) override;
    void list(const ListOptions& opts, ListCallback cb) override;
    void write(std::vector<WriteOp> ops, WriteCallback cb) override;
    // The revision the replica reflects.
    Revision currentRevision() override;
    // The replica's change feed; the events of one revision are never split.
    void history(Revision after, size_t limit, HistoryCallback cb) override;
    void setCommitListener(CommitListener listener) override;
    // Compacts etcd (a revision etcd compacted already is success) and drops
    // the feed below `revision`. The server's own compactor is not used with
    // etcd: Options::compactionInterval runs kube's protocol instead.
    void compact(Revision revision, CompactCallback cb) override;
    Revision compactedRevision() override;
    // Empty while etcd answers; why not once the watch fails or before the
    // replica is loaded (kube-apiserver's "etcd" health check).
    std::string health() override;

    // Asks etcd for its revision (one Range shared by every read that came
    // before it was sent) and calls back once the replica has reached it:
    // the read is then linearizable, whichever host wrote. When etcd's
    // revision moved by writes outside the prefix, which the watch does not
    // bring, the replica is checked against etcd at that revision (its keys
    // modified since and its count). Fails after Options::freshTimeout.
    void waitFresh(FreshCallback cb) override;
    // The replica learns of other hosts' and workers' writes by its watch.
    bool readsMayLag() const override { return true; }
    // etcd's default --max-txn-ops.
    size_t maxOpsPerWrite() const override;
    // A Range of etcd itself (consistent reads that fell back).
    void getLinearizable(std::string_view key, GetCallback cb) override;
    void listLinearizable(const ListOptions& opts, ListCallback cb) override;
    std::string metricsText() override;
    const Stats& stats() const { return stats_; }

    // The etcd key of a registry key, and back.
    std::string etcdKey(std::string_view key) const;
    std::string registryKey(std::string_view etcdKey) const;

  private:
    struct Entry {
        std::string value;
        Revision modRevision = 0;
        Revision createRevision = 0;
        // Why etcd's value could not be decoded; the entry then fails its
        // reads and is left out of lists.
        std::string corrupt;
    };
    struct LogEntry {
        Event::Type type = Event::Put;
        Revision revision = 0;
        bool created = false;
        std::string key;
        std::string value;
    };
    // A consistent read waiting for the replica to reach `wanted`.
    struct FreshWaiter {
        Revision wanted = 0;
        FreshCallback cb;
        std::chrono::steady_clock::time_point deadline;
    };
    // A write etcd committed, waiting for the replica to reach its revision.
    struct Waiting {
        Revision revision = 0;
        std::vector<WriteOp> ops;
        // With a codec that decodes: what etcd stored of each put, decoded
        // into the result by committed() unless the replica has it.
        std::vector<std::string> stored;
        WriteResult result;
        WriteCallback cb;
    };

    Store(const Options& options, util::EventLoop& loop, std::function<void()> notify,
          const std::string& target, bool tls, const std::string& rootCerts,
          const std::string& certChain, const std::string& privateKey);

    void startWatch();
    void watched(etcdserverpb::WatchResponse& resp);
    void watchClosed(const grpc::Status& status);
    void reload();
    void reloadPage(Revision revision, std::string from,
                    std::shared_ptr<std::map<std::string, Entry, std::less<>>> objects);
    void retryLater(std::function<void()> task);
    void applyEvent(const mvccpb::Event& event);
    void advanceTo(Revision revision);
    void committed(Waiting& w);
    void trimLog();
    // The registry's form of a value etcd holds, at its mod revision; empty
    // with `*corrupt` set when the codec cannot decode it.
    std::string decoded(std::string_view key, std::string_view stored, Revision modRevision,
                        std::string* corrupt = nullptr) const;
    Entry entryOf(const std::string& key, const mvccpb::KeyValue& kv) const;
    // Whether a put of `key` carries a lease (an event, with a TTL set).
    bool leased(std::string_view key) const;
    // The transaction of write(), once `values` are encoded and `lease`
    // granted (0: none); a lease etcd no longer knows is asked anew once.
    void sendTxn(std::vector<WriteOp> ops, std::vector<std::string> values,
                 std::vector<int64_t> leases, bool retried, WriteCallback cb);
    // What a transaction etcd answered makes of its write: committed, or
    // failed at the first op whose comparison did not hold.
    Waiting txnSucceeded(std::vector<WriteOp> ops, std::vector<std::string> values,
                         const etcdserverpb::TxnResponse& resp, Revision rev) const;
    Waiting txnFailed(const std::vector<WriteOp>& ops, const etcdserverpb::TxnResponse& resp) const;
    // The TTL `op` is written with (its own, or the event TTL); 0: none.
    std::chrono::seconds ttlOf(const WriteOp& op) const;
    LeaseManager& leaseManager(std::chrono::seconds ttl);
    // Grants (or reuses) the leases `ops` need, then sends their transaction.
    struct PendingLeases;
    void grantLeases(std::shared_ptr<PendingLeases> p);
    void leaseAndSend(std::vector<WriteOp> ops, std::vector<std::string> values, bool retried,
                      WriteCallback cb);
    // Consistent reads: the next revision Range, the waiters it released,
    // the check of the replica when etcd's revision moved outside the prefix.
    void askRevision();
    void releaseFresh();
    void armFreshTimer();
    void verifyReplica();
    bool freshAt(Revision wanted) const;
    void fail(WriteCallback cb, size_t ops, Error error, size_t failedOp = 0);
    // The feed keeps nothing below `revision`, which etcd compacted.
    void dropBelow(Revision revision);
    // What reads and writes fail with before the replica is loaded.
    Error notLoaded() const;

    Options options_;
    KeyLayout layout_;
    util::EventLoop& loop_;
    std::string rangeEnd_;
    std::unique_ptr<Client> client_;
    std::unique_ptr<TxnBatcher> batcher_;
    // One per TTL: events' hour, the API servers' leases' seconds.
    std::map<std::chrono::seconds, std::unique_ptr<LeaseManager>> leases_;
    std::unique_ptr<Compactor> compactor_;

    std::map<std::string, Entry, std::less<>> objects_;
    std::deque<LogEntry> log_;
    // Every change with revision > logStart_ is in log_.
    Revision logStart_ = 0;
    Revision revision_ = 0;
    std::deque<Waiting> waiting_;
    CommitListener commitListener_;
    std::unique_ptr<util::EventLoop::Timer> retry_;
    std::chrono::milliseconds backoff_{100};
    bool reloading_ = false;
    bool loaded_ = false;
    bool loadFailureTold_ = false;
    std::vector<std::function<void()>> whenLoaded_;
    // Why etcd is not answering (the last failure of the load or the watch);
    // cleared by the next answer.
    std::string down_;
    // Consistent reads: those waiting for the next revision Range (one in
    // flight at a time), and those waiting for the replica.
    std::vector<FreshCallback> freshAsked_;
    bool askingRevision_ = false;
    std::deque<FreshWaiter> freshWaiting_;
    std::unique_ptr<util::EventLoop::Timer> freshTimer_;
    bool verifying_ = false;
    // etcd's state at verified_ is the replica's, as long as the replica
    // has not changed since (changes_ == verifiedChanges_).
    Revision verified_ = 0;
    uint64_t verifiedChanges_ = 0;
    // Bumped whenever the replica changes.
    uint64_t changes_ = 0;
    Stats stats_;
    // Cleared by the destructor; timers and posted tasks check it.
    std::shared_ptr<bool> alive_;
};

// `value` with `revision` in its empty resourceVersion slot, or as is when
// it has none.
std::string withRevision(std::string_view value, Revision revision);

}  // namespace kube::storage::etcd
