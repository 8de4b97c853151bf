#pragma once

#include <chrono>
#include <functional>

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

    virtual ~EventLoop() = default;

    // Runs `task` on the loop soon, after the current handler returns.
    virtual void post(Task task) = 0;

    // Runs `job` on a thread off the loop, then `done` on the loop. `job`
    // may block (fsync, lock waits) and must touch nothing the loop owns.
    virtual void runBlocking(Task job, Task done) = 0;

    // Wall-clock time, for creationTimestamp and table ages.
    virtual std::chrono::system_clock::time_point now() const = 0;
};

}  // namespace kube::util
