#include "storage/etcd/txn_batcher.hpp"

#include <algorithm>
#include <iterator>

#include "storage/etcd/client.hpp"

namespace kube::storage::etcd {

// One transaction waiting to be sent, or out in a batch.
struct TxnBatcher::Pending {
    etcdserverpb::TxnRequest txn;
    std::vector<std::string> keys;
    size_t bytes = 0;
    // The most ops of one of its lists (comparisons, success, failure).
    size_t ops = 0;
    Done done;
};

struct TxnBatcher::Batch {
    std::vector<std::unique_ptr<Pending>> txns;
    std::set<std::string, std::less<>> keys;
    size_t bytes = 0;
    size_t maxOps = 0;

    // Whether `p` may join: no key written twice, and within etcd's limits
    // for the nested transaction this makes.
    bool fits(const Pending& p) const {
        if (bytes + p.bytes > kMaxBatchBytes ||
            txns.size() + 1 + std::max(maxOps, p.ops) > kMaxTxnOps) {
            return false;
        }
        return std::none_of(p.keys.begin(), p.keys.end(),
                            [this](const std::string& k) { return keys.count(k) != 0; });
    }

    void take(std::unique_ptr<Pending> p) {
        keys.insert(std::make_move_iterator(p->keys.begin()),
                    std::make_move_iterator(p->keys.end()));
        p->keys.clear();
        bytes += p->bytes;
        maxOps = std::max(maxOps, p->ops);
        txns.push_back(std::move(p));
    }
};

TxnBatcher::TxnBatcher(Client& client, util::EventLoop& loop)
    : client_(client), loop_(loop), alive_(std::make_shared<bool>(true)) {}

TxnBatcher::~TxnBatcher() {
    *alive_ = false;
}

void TxnBatcher::add(etcdserverpb::TxnRequest txn, std::vector<std::string> keys, Done done) {
    auto p = std::make_unique<Pending>();
    p->bytes = txn.ByteSizeLong();
    p->ops =
        static_cast<size_t>(std::max({txn.compare_size(), txn.success_size(), txn.failure_size()}));
    p->txn = std::move(txn);
    p->keys = std::move(keys);
    p->done = std::move(done);
    if (queued_.empty() || !queued_.back()->fits(*p)) {
        queued_.push_back(std::make_unique<Batch>());
    }
    queued_.back()->take(std::move(p));
    if (!flushPosted_) {
        flushPosted_ = true;
        loop_.post([this, alive = alive_] {
            if (*alive) {
                flushPosted_ = false;
                flush();
            }
        });
    }
}

bool TxnBatcher::gathered() const {
    return queued_.size() > 1 || queued_.front()->txns.size() >= gatherFor_;
}

void TxnBatcher::flush() {
    while (inFlight_ < kMaxInFlight && !queued_.empty() && gathered()) {
        sendNext();
    }
    if (queued_.empty()) {
        stallTimer_.reset();
    } else if (!stallTimer_) {
        stallTimer_ = loop_.startTimer(kStallAfter, [this, alive = alive_] {
            if (!*alive) {
                return;
            }
            stallTimer_.reset();
            if (!queued_.empty()) {
                sendNext();
            }
            flush();
        });
    }
}

void TxnBatcher::sendNext() {
    gatherFor_ = 0;
    gatherTimer_.reset();
    std::unique_ptr<Batch> batch = std::move(queued_.front());
    queued_.pop_front();
    send(std::move(batch));
}

void TxnBatcher::cameBack(size_t writes) {
    inFlight_--;
    // Progress: the stall timer counts from here again.
    stallTimer_.reset();
    size_t waiting = 0;
    for (const auto& b : queued_) {
        waiting += b->txns.size();
    }
    if (waiting + writes > 1) {
        gatherFor_ = waiting + writes;
        gatherTimer_ = loop_.startTimer(kGatherFor, [this, alive = alive_] {
            if (*alive) {
                gatherTimer_.reset();
                gatherFor_ = 0;
                flush();
            }
        });
    }
}

void TxnBatcher::sendAlone(std::unique_ptr<Pending> p) {
    inFlight_++;
    std::shared_ptr<Pending> shared(std::move(p));
    client_.txn(shared->txn,
                [this, p = shared](const grpc::Status& status, etcdserverpb::TxnResponse& resp) {
                    cameBack(1);
                    std::shared_ptr<bool> alive = alive_;
                    Done done = std::move(p->done);
                    done(status, resp, resp.header().revision());
                    if (*alive) {
                        flush();
                    }
                });
}

void TxnBatcher::send(std::unique_ptr<Batch> batch) {
    if (batch->txns.size() == 1) {
        sendAlone(std::move(batch->txns.front()));
        return;
    }
    // The nested transactions are moved into the request and back out once
    // it is serialized (the Client does that before txn() returns), to be
    // sent alone should etcd refuse the batch.
    etcdserverpb::TxnRequest outer;
    for (auto& p : batch->txns) {
        outer.add_success()->mutable_request_txn()->Swap(&p->txn);
    }
    batches_++;
    batchedTxns_ += batch->txns.size();
    inFlight_++;
    std::shared_ptr<Batch> out(std::move(batch));
    client_.txn(outer, [this, batch = out](const grpc::Status& status,
                                           etcdserverpb::TxnResponse& resp) {
        size_t n = batch->txns.size();
        cameBack(n);
        std::shared_ptr<bool> alive = alive_;
        if (!status.ok() && !unreachable(status)) {
            for (auto& p : batch->txns) {
                sendAlone(std::move(p));
            }
            return;
        }
        grpc::Status answered = status;
        if (status.ok() && static_cast<size_t>(resp.responses_size()) != n) {
            answered = grpc::Status(grpc::StatusCode::INTERNAL,
                                    "etcd answered a batch of " + std::to_string(n) +
                                        " transactions with " +
                                        std::to_string(resp.responses_size()) + " responses");
        }
        int64_t revision = resp.header().revision();
        for (size_t i = 0; i < n && *alive; i++) {
            etcdserverpb::TxnResponse none;
            etcdserverpb::TxnResponse& own =
                answered.ok() ? *resp.mutable_responses(static_cast<int>(i))->mutable_response_txn()
                              : none;
            Done done = std::move(batch->txns[i]->done);
            done(answered, own, revision);
        }
        if (*alive) {
            flush();
        }
    });
    // Back out of the request (its continuation runs in a later drain()).
    for (size_t i = 0; i < out->txns.size(); i++) {
        out->txns[i]->txn.Swap(outer.mutable_success(static_cast<int>(i))->mutable_request_txn());
    }
}

}  // namespace kube::storage::etcd
