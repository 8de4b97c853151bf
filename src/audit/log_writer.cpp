// The audit log's writer thread.

#include "audit/log_writer.hpp"

#include <unistd.h>
#include <cerrno>
#include <stdexcept>

namespace kube::audit {

namespace {

int duplicate(int fd) {
    int copy = ::dup(fd);
    if (copy < 0) {
        throw std::runtime_error("dup() of the audit log failed");
    }
    return copy;
}

}  // namespace

LogWriter::LogWriter(int fd, size_t maxQueued) : maxQueued_(maxQueued), fd_(duplicate(fd)) {
    thread_ = std::thread([this] { run(); });
}

LogWriter::~LogWriter() {
    close();
}

bool LogWriter::write(std::string_view line) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queuedBytes_ + line.size() > maxQueued_) {
        dropped_.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    if (queue_.empty() || queue_.back().fd != fd_) {
        queue_.push_back(Segment{fd_, {}, 0});
    }
    queue_.back().data.append(line);
    queue_.back().lines++;
    queuedBytes_ += line.size();
    cv_.notify_one();
    return true;
}

void LogWriter::reopen(int fd) {
    int copy = duplicate(fd);
    std::lock_guard<std::mutex> lock(mu_);
    int old = fd_;
    fd_ = copy;
    // the old descriptor closes once its last queued lines are out: mark it
    // with an empty segment the thread closes after writing what precedes
    queue_.push_back(Segment{old, {}, 0});
    queue_.push_back(Segment{-1, {}, 0});
    cv_.notify_one();
}

void LogWriter::close() {
    {
        std::unique_lock<std::mutex> lock(mu_);
        if (stopping_) {
            return;
        }
        stopping_ = true;
        cv_.notify_one();
    }
    if (thread_.joinable()) {
        thread_.join();
    }
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

void LogWriter::writeSegment(const Segment& s) {
    const char* p = s.data.data();
    size_t left = s.data.size();
    while (left > 0) {
        ssize_t n = ::write(s.fd, p, left);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            lastErrno_.store(n < 0 ? errno : EIO, std::memory_order_relaxed);
            failed_.fetch_add(s.lines, std::memory_order_relaxed);
            return;
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
    written_.fetch_add(s.lines, std::memory_order_relaxed);
}

void LogWriter::run() {
    std::vector<Segment> batch;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
        cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) {
            return;  // stopping, and everything is written
        }
        batch.swap(queue_);
        queuedBytes_ = 0;
        lock.unlock();

        // a data-less segment for fd F followed by one for -1 closes F
        for (size_t i = 0; i < batch.size(); ++i) {
            const Segment& s = batch[i];
            if (s.fd < 0) {
                continue;
            }
            if (s.lines == 0 && i + 1 < batch.size() && batch[i + 1].fd < 0) {
                ::close(s.fd);
                continue;
            }
            writeSegment(s);
        }
        batch.clear();

        lock.lock();
    }
}

}  // namespace kube::audit
