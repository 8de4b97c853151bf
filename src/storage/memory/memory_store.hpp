#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "storage/event.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"

namespace kube::storage::memory {

// An in-process store for unit tests, with the same observable behaviour as
// the LMDB backend: one revision per op, atomic batches, a revision log with
// compaction, a commit listener. Each write() call is a batch of its own.
// Reads call back inline with views of copies taken before the callback, so a
// callback may write to the store; write and compaction callbacks are posted
// to the loop. Once the Store is destroyed, posted write callbacks still run
// (they need nothing of it), while the commit listener and compaction
// callbacks are dropped.
class Store : public Interface {
public:
    explicit Store(util::EventLoop& loop);
    ~Store() override;
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    void get(std::string_view key, GetCallback cb) override;
    void list(const ListOptions& opts, ListCallback cb) override;
    void write(std::vector<WriteOp> ops, WriteCallback cb) override;
    Revision currentRevision() override;
    void history(Revision after, size_t limit, HistoryCallback cb) override;
    void setCommitListener(CommitListener listener) override;
    // Applied when the posted task runs, clamped to the revision then.
    void compact(Revision revision, CompactCallback cb) override;
    Revision compactedRevision() override;

private:
    struct Entry {
        std::string value;
        Revision modRevision = 0;
        Revision createRevision = 0;
    };

    struct LogEntry {
        Event::Type type = Event::Put;
        Revision revision = 0;
        bool created = false;
        std::string key;
        std::string value;
    };

    WriteResult apply(const std::vector<WriteOp>& ops);

    util::EventLoop& loop_;
    std::map<std::string, Entry, std::less<>> objects_;
    // In revision order; compaction drops its front.
    std::deque<LogEntry> log_;
    Revision revision_ = 0;
    Revision compacted_ = 0;
    CommitListener commitListener_;
    // Cleared by the destructor; posted tasks check it.
    std::shared_ptr<bool> alive_;
};

}  // namespace kube::storage::memory
