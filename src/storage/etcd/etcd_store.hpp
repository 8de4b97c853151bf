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
class WatchResponse;
}
namespace mvccpb {
class Event;
class KeyValue;
}
namespace grpc {
class Status;
}

namespace kube::storage::etcd {

class Client;
class Compactor;
class LeaseManager;

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
// one revision).
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
    // A write etcd committed, waiting for the replica to reach its revision.
    struct Waiting {
        Revision revision = 0;
        std::vector<WriteOp> ops;
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
    void sendTxn(std::vector<WriteOp> ops, std::vector<std::string> values, int64_t lease,
                 bool retried, WriteCallback cb);
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
    std::unique_ptr<LeaseManager> leases_;
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
    // Cleared by the destructor; timers and posted tasks check it.
    std::shared_ptr<bool> alive_;
};

// `value` with `revision` in its empty resourceVersion slot, or as is when
// it has none.
std::string withRevision(std::string_view value, Revision revision);

}  // namespace kube::storage::etcd
