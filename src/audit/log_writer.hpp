#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace kube::audit {

// Writes event lines to a file from its own thread, so that the event loop
// only appends to a buffer; plays the part of kube's log backend
// (plugin/pkg/audit/log) behind its buffered backend. Lines queued together
// go out in one write(2), so lines of several workers appending to the same
// file (O_APPEND) never interleave. At most `maxQueued` bytes wait for the
// thread: a line beyond that is dropped and counted, as kube's buffered
// backend drops what does not fit its buffer; the loop never waits.
//
// Threads: write(), reopen() and close() are called from one thread (the
// event loop); counters may be read from any.
class LogWriter {
  public:
    // Writes to a duplicate of `fd`, which the caller keeps.
    LogWriter(int fd, size_t maxQueued);
    // Writes what is queued, then stops the thread.
    ~LogWriter();

    LogWriter(const LogWriter&) = delete;
    LogWriter& operator=(const LogWriter&) = delete;

    // Queues one line (with its newline); false when it was dropped.
    bool write(std::string_view line);

    // Lines queued from now on go to a duplicate of `fd` (the file nginx
    // reopened); those queued before still go to the old file.
    void reopen(int fd);

    // Writes everything queued and waits for it; the writer then stops.
    void close();

    // Lines dropped because the queue was full.
    uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
    // Lines that write(2) failed to write; errno of the last failure.
    uint64_t failed() const { return failed_.load(std::memory_order_relaxed); }
    int lastErrno() const { return lastErrno_.load(std::memory_order_relaxed); }
    // Lines written.
    uint64_t written() const { return written_.load(std::memory_order_relaxed); }

  private:
    // Lines bound for one file.
    struct Segment {
        int fd = -1;
        std::string data;
        uint64_t lines = 0;
    };

    void run();
    void writeSegment(const Segment& s);

    const size_t maxQueued_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<Segment> queue_;  // guarded by mu_
    size_t queuedBytes_ = 0;      // guarded by mu_
    bool stopping_ = false;       // guarded by mu_
    int fd_ = -1;                 // the file new lines go to; loop thread only
    std::atomic<uint64_t> dropped_{0};
    std::atomic<uint64_t> failed_{0};
    std::atomic<uint64_t> written_{0};
    std::atomic<int> lastErrno_{0};
    std::thread thread_;
};

}  // namespace kube::audit
