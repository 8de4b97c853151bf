#include "storage/lmdb/group_commit.hpp"

#include <algorithm>

namespace kube::storage::lmdb {

GroupCommit::GroupCommit(util::EventLoop& loop, std::shared_ptr<Env> env, size_t maxBatch)
    : loop_(loop),
      env_(std::move(env)),
      maxBatch_(std::max<size_t>(maxBatch, 1)),
      queue_(std::make_shared<Queue>()),
      alive_(std::make_shared<bool>(true)) {}

GroupCommit::~GroupCommit() {
    *alive_ = false;
}

void GroupCommit::submit(std::vector<WriteOp> ops, Interface::WriteCallback cb) {
    {
        std::lock_guard<std::mutex> lock(queue_->mutex);
        queue_->calls.push_back({std::move(ops), std::move(cb)});
    }
    kick();
}

void GroupCommit::submitChore(ChoreStep step, ChoreDone done) {
    auto chore = std::make_shared<Chore>();
    chore->step = std::move(step);
    chore->done = std::move(done);
    chores_.push_back(std::move(chore));
    kick();
}

void GroupCommit::kick() {
    if (inFlight_ || kickPosted_) {
        return;
    }
    // Deferred rather than started here, so that every call made during this
    // loop iteration joins the same batch.
    kickPosted_ = true;
    loop_.post([this, alive = alive_] {
        if (*alive) {
            kickPosted_ = false;
            startNext();
        }
    });
}

void GroupCommit::startNext() {
    if (inFlight_) {
        return;
    }
    bool writes = false;
    {
        std::lock_guard<std::mutex> lock(queue_->mutex);
        writes = !queue_->calls.empty();
    }
    // Turns alternate, so a long compaction neither stalls this process's
    // writes nor starves behind them.
    if (!chores_.empty() && (!writes || choreTurn_)) {
        choreTurn_ = false;
        startChore();
    } else if (writes) {
        choreTurn_ = true;
        startBatch();
    }
}

void GroupCommit::startBatch() {
    auto batch = std::make_shared<Batch>();
    inFlight_ = true;
    // The job takes its calls once it holds the write lock. Both closures
    // co-own the environment: whichever is destroyed last closes it, after
    // the job, even when the Store is already gone.
    auto take = [queue = queue_, max = maxBatch_](std::vector<WriteCall>& into) {
        std::lock_guard<std::mutex> lock(queue->mutex);
        const size_t n = std::min(max, queue->calls.size());
        into.reserve(n);
        for (size_t i = 0; i < n; i++) {
            into.push_back(std::move(queue->calls.front()));
            queue->calls.pop_front();
        }
    };
    loop_.runBlocking(
        [env = env_, batch, take] { batch->outcome = commitBatch(*env, batch->calls, take); },
        [this, alive = alive_, env = env_, batch] {
            if (*alive) {
                finish(batch);
            }
        });
}

void GroupCommit::startChore() {
    std::shared_ptr<Chore> chore = chores_.front();
    inFlight_ = true;
    loop_.runBlocking(
        [env = env_, chore] {
            chore->finished = false;
            chore->rc = chore->step(*env, &chore->finished);
        },
        [this, alive = alive_, env = env_, chore] {
            if (*alive) {
                finishChore(chore);
            }
        });
}

bool GroupCommit::settleAndContinue() {
    // User code below may destroy the Store (and this).
    std::shared_ptr<bool> alive = alive_;
    if (settled_) {
        settled_();
    }
    if (!*alive) {
        return false;
    }
    startNext();
    return true;
}

void GroupCommit::finishChore(const std::shared_ptr<Chore>& chore) {
    inFlight_ = false;
    int rc = chore->rc;
    if (rc == MDB_MAP_RESIZED) {
        // As for a batch: nothing of this process uses the map now.
        rc = env_->adoptMapSize();
        if (rc == MDB_SUCCESS) {
            settleAndContinue();
            return;
        }
    }
    if (rc == MDB_SUCCESS && !chore->finished) {
        // The next step takes a later turn.
        settleAndContinue();
        return;
    }
    chores_.pop_front();
    settleAndContinue();
    chore->done(rc);
}

void GroupCommit::finish(const std::shared_ptr<Batch>& batch) {
    inFlight_ = false;
    BatchOutcome& outcome = batch->outcome;
    if (outcome.rc == MDB_MAP_RESIZED) {
        // Another process grew the map. Nothing of this process uses it now:
        // adopt the new size and retry the same calls first.
        const int rc = env_->adoptMapSize();
        if (rc == MDB_SUCCESS) {
            std::lock_guard<std::mutex> lock(queue_->mutex);
            for (auto it = batch->calls.rbegin(); it != batch->calls.rend(); ++it) {
                queue_->calls.push_front(std::move(*it));
            }
            batch->calls.clear();
            outcome = BatchOutcome{};
        } else {
            outcome.error = {ErrorCode::Internal, lmdbError("adopt the new map size", rc)};
        }
    }
    if (outcome.rc != MDB_SUCCESS) {
        outcome.results.clear();
        for (const WriteCall& call : batch->calls) {
            outcome.results.push_back(failedCall(call, outcome.error));
        }
    }

    // The next commit starts before the answers, so the writer works while
    // the loop runs the callbacks.
    if (settleAndContinue() && outcome.lastRevision != 0 && commitListener_) {
        commitListener_(outcome.lastRevision);
    }
    for (size_t i = 0; i < batch->calls.size(); i++) {
        batch->calls[i].cb(std::move(outcome.results[i]));
    }
}

}  // namespace kube::storage::lmdb
