#pragma once

#include <chrono>
#include <functional>
#include <memory>

namespace kube::util {

// The loop src/ code runs on. module/ implements it with nginx's event loop
// (posted events, nginx thread pools); t/unit implements it with a small
// synchronous loop and a fake clock.
//
// Every method is called on the loop thread only. Callbacks run on the loop
// thread, never inline inside the call that scheduled them.
class EventLoop {
public:
    using Task = std::function<void()>;

    // A pending timer; destroying it cancels the task if it has not run.
    class Timer {
    public:
        virtual ~Timer() = default;
    };

    virtual ~EventLoop() = default;

    // Runs `task` on the loop soon, after the current handler returns.
    virtual void post(Task task) = 0;

    // Runs `job` on a thread off the loop, then `done` on the loop. `job`
    // may block (fsync, lock waits) and must touch nothing the loop owns.
    virtual void runBlocking(Task job, Task done) = 0;

    // Runs `task` once on the loop after `delay`, unless the returned Timer
    // is destroyed first. Timers never keep a worker that is shutting down
    // alive (nginx's cancelable timers).
    virtual std::unique_ptr<Timer> startTimer(std::chrono::milliseconds delay, Task task) = 0;

    // Wall-clock time, for creationTimestamp and table ages.
    virtual std::chrono::system_clock::time_point now() const = 0;
};

}  // namespace kube::util
