#pragma once

#include <chrono>
#include <memory>

#include "util/event_loop.hpp"
#include "util/fifo.hpp"

namespace kube::util {

// Long jobs on one loop (huge lists being written) take turns in one slice
// shared by all of them: whatever their number, a pass of the loop spends
// about `slice` on them before it serves its other connections again. The
// jobs ready to run wait in a round-robin queue; a turn runs one job until
// the slice's deadline, or several when the first ones block or end early.
class Turns {
  public:
    class Job {
      public:
        virtual ~Job() = default;

        // Works until `deadline` (at least one step, however late it is).
        // True when stopped by the deadline with more to do; false when done,
        // or waiting for something that will call ready() again.
        virtual bool runUntil(std::chrono::steady_clock::time_point deadline) = 0;

      private:
        friend class Turns;
        bool queued_ = false;
    };

    Turns(EventLoop& loop, std::chrono::microseconds slice);

    // `job` has work to do: it gets a turn on a later pass of the loop. A
    // job already waiting keeps its place; a job gone by its turn is skipped.
    void ready(const std::shared_ptr<Job>& job);

    std::chrono::microseconds slice() const { return slice_; }

  private:
    void post();
    void run();

    EventLoop& loop_;
    std::chrono::microseconds slice_;
    Fifo<std::weak_ptr<Job>> queue_;
    bool posted_ = false;
    // Posted tasks hold this weakly: a Turns destroyed first is not touched.
    std::shared_ptr<Turns*> self_;
};

}  // namespace kube::util
