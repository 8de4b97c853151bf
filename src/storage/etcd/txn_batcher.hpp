#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "util/event_loop.hpp"

namespace etcdserverpb {
class TxnRequest;
class TxnResponse;
}  // namespace etcdserverpb
namespace grpc {
class Status;
}

namespace kube::storage::etcd {

class Client;

// Group commit for etcd: the transactions of writes that come together are
// sent as one, each nested in it (etcd's RequestOp.request_txn) with its own
// comparisons and branches, so that each write still succeeds or fails on
// its own while etcd commits, fsyncs and sends the watch events of all of
// them once, at one revision. That is what one write() of several ops
// already is; the watch caches take several events of one revision.
//
// A transaction is added on the loop; the batcher sends the queued ones
// after the handler that added them returns, one batch at a time: while one
// is out, what comes meanwhile gathers into the next (on this machine two
// out at a time made smaller batches and fewer writes a second, as etcd and
// the server spend their CPU per transaction). When a batch comes back,
// the next goes out once it holds as many writes as were out and waiting
// then, or kGatherFor after the answer: the writers just answered tend to
// write again, and without the wait each batch carried only the writes
// that came during the last one's flight, about half of the writers
// (measured at 32 connections on 2 workers: 7 writes a batch and 5,000 to
// 5,400 creates/s without, 13 and 5,800 to 6,700 with, and lower latency
// from 2 connections up). A writer alone waits for nothing. A batch never
// writes a key twice (etcd refuses that), stays within etcd's limits on
// operations per transaction and request size, and a batch of one is sent
// as the plain transaction. When etcd refuses a batch for anything but being out of
// reach (a lease it no longer knows, a limit), each of its transactions is
// sent again on its own, so that batching never changes what a write
// answers.
//
// Threads: the loop only (the Client's continuations run in its drain()).
class TxnBatcher {
  public:
    // The transaction's own response (its `succeeded` and `responses`, the
    // nested one of a batch) and the revision etcd answered at: the
    // revision of its writes when it succeeded.
    using Done = std::function<void(const grpc::Status&, etcdserverpb::TxnResponse&, int64_t)>;

    TxnBatcher(Client& client, util::EventLoop& loop);
    ~TxnBatcher();
    TxnBatcher(const TxnBatcher&) = delete;
    TxnBatcher& operator=(const TxnBatcher&) = delete;

    // Queues `txn`, whose puts and deletes name `keys`; `done` runs once,
    // on the loop, after etcd answered (never inside add()).
    void add(etcdserverpb::TxnRequest txn, std::vector<std::string> keys, Done done);

    // Transactions sent as batches of several, and those batches.
    uint64_t batchedTxns() const { return batchedTxns_; }
    uint64_t batches() const { return batches_; }
    // Transactions (batches or single ones) sent and not answered yet.
    size_t inFlight() const { return inFlight_; }

    // Batches out at once, unless none came back for kStallAfter: then the
    // next goes out beside them (etcd slow or out of reach), so that a
    // write waits on its own deadline, not on those of the writes before.
    static constexpr size_t kMaxInFlight = 1;
    static constexpr std::chrono::milliseconds kStallAfter{200};
    // How long the next batch waits, at most, for as many writes as were
    // out and waiting when the last one came back.
    static constexpr std::chrono::milliseconds kGatherFor{1};
    // etcd's --max-txn-ops (128) bounds a transaction's ops and, in a
    // nested one, the outer ops plus the nested ones' own.
    static constexpr size_t kMaxTxnOps = 128;
    // Below etcd's --max-request-bytes (1.5 MiB) with room for the framing.
    static constexpr size_t kMaxBatchBytes = 1 << 20;

  private:
    struct Pending;
    struct Batch;

    void flush();
    // Whether the next batch goes out now: it is full, it holds gatherFor_
    // writes, or kGatherFor passed.
    bool gathered() const;
    void sendNext();
    // A batch of `writes` came back: the next waits for as many and those
    // queued, for kGatherFor at most.
    void cameBack(size_t writes);
    void send(std::unique_ptr<Batch> batch);
    void sendAlone(std::unique_ptr<Pending> p);

    Client& client_;
    util::EventLoop& loop_;
    std::deque<std::unique_ptr<Batch>> queued_;
    size_t inFlight_ = 0;
    bool flushPosted_ = false;
    std::unique_ptr<util::EventLoop::Timer> stallTimer_;
    // Writes the next batch waits for (0: none), until gatherTimer_ fires.
    size_t gatherFor_ = 0;
    std::unique_ptr<util::EventLoop::Timer> gatherTimer_;
    uint64_t batchedTxns_ = 0;
    uint64_t batches_ = 0;
    // Cleared by the destructor; posted tasks and continuations check it.
    std::shared_ptr<bool> alive_;
};

}  // namespace kube::storage::etcd
