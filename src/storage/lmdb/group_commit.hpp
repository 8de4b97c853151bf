#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "storage/interface.hpp"
#include "storage/lmdb/lmdb_env.hpp"
#include "storage/lmdb/write_batch.hpp"
#include "util/event_loop.hpp"

namespace kube::storage::lmdb {

// The writer queue of one Store (spec/storage.md §4.2). write() calls queue
// up on the loop; whenever no commit is in flight, one off-loop job waits for
// the global write lock (other workers commit meanwhile) and only then takes
// up to maxBatch queued calls, so that everything that arrived while it
// waited shares one write transaction and one durable commit. Under load the
// batches grow by themselves.
//
// The same slot runs the Store's own write transactions (chores: compaction),
// one step per turn, taking turns with the batches, so that this process
// never has two write transactions at once and the map is never remapped
// under one (adoptMapSize needs every transaction of the process finished).
//
// Threads: every method runs on the loop. The job touches only the queue
// (under its mutex), its batch or chore and the environment; it co-owns the
// queue and the environment so that the Store may be destroyed while it runs,
// and the batch's callbacks (the chore's `done`) are then dropped, never
// called.
class GroupCommit {
public:
    // One step of a chore: a write transaction of its own, run off the loop.
    // Returns an LMDB error code; sets `*finished` once no step is left.
    using ChoreStep = std::function<int(const Env& env, bool* finished)>;
    // Runs on the loop after the last step, or the first failing one.
    using ChoreDone = std::function<void(int rc)>;

    GroupCommit(util::EventLoop& loop, std::shared_ptr<Env> env, size_t maxBatch);
    ~GroupCommit();
    GroupCommit(const GroupCommit&) = delete;
    GroupCommit& operator=(const GroupCommit&) = delete;

    // Queues one call; `cb` runs on the loop once its batch is committed.
    void submit(std::vector<WriteOp> ops, Interface::WriteCallback cb);

    // Queues a chore. Its steps run in the writer's slot until one reports it
    // finished or fails; write batches queued meanwhile get every other turn.
    // A step that meets MDB_MAP_RESIZED is retried once the map is adopted.
    void submitChore(ChoreStep step, ChoreDone done);

    // True while a batch's or a chore step's job has not come back to the loop.
    bool inFlight() const { return inFlight_; }

    // Runs after each committed batch with the highest revision it wrote.
    void setCommitListener(std::function<void(Revision)> listener) {
        commitListener_ = std::move(listener);
    }

    // Runs each time a batch has come back, before the next one starts: the
    // one moment this process has no write transaction and no read in
    // progress, so the map may be remapped.
    void setSettledHook(std::function<void()> hook) { settled_ = std::move(hook); }

private:
    struct Batch {
        std::vector<WriteCall> calls;
        BatchOutcome outcome;
    };

    // Filled on the loop, drained by the job once it holds the write lock.
    struct Queue {
        std::mutex mutex;
        std::deque<WriteCall> calls;
    };

    struct Chore {
        ChoreStep step;
        ChoreDone done;
        // Filled by the job.
        int rc = MDB_SUCCESS;
        bool finished = false;
    };

    void kick();
    void startNext();
    void startBatch();
    void startChore();
    void finish(const std::shared_ptr<Batch>& batch);
    void finishChore(const std::shared_ptr<Chore>& chore);
    // After a job came back: lets the Store settle, then starts the next job.
    // False when the Store was destroyed meanwhile.
    bool settleAndContinue();

    util::EventLoop& loop_;
    std::shared_ptr<Env> env_;
    size_t maxBatch_;
    std::shared_ptr<Queue> queue_;
    // Loop-only: chores run one at a time, the front one first.
    std::deque<std::shared_ptr<Chore>> chores_;
    // Whose turn it is when both batches and chores wait.
    bool choreTurn_ = false;
    bool inFlight_ = false;
    bool kickPosted_ = false;
    // Cleared by the destructor; posted tasks and job completions check it.
    std::shared_ptr<bool> alive_;
    std::function<void(Revision)> commitListener_;
    std::function<void()> settled_;
};

}  // namespace kube::storage::lmdb
