#pragma once

#include <map>
#include <string>
#include <vector>

#include "storage/event.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"

namespace kube::storage::memory {

// An in-process store for unit tests, with the same observable behaviour as
// the LMDB backend: one revision per op, atomic batches, a revision log.
// Reads call back inline with views of copies taken before the callback, so a
// callback may write to the store; write callbacks are posted to the loop.
class Store : public Interface {
public:
    explicit Store(util::EventLoop& loop);

    void get(std::string_view key, GetCallback cb) override;
    void list(const ListOptions& opts, ListCallback cb) override;
    void write(std::vector<WriteOp> ops, WriteCallback cb) override;
    Revision currentRevision() override;

    // The revision-log entries with revision > `after`, oldest first, at most
    // `limit` of them (0 = all).
    void history(Revision after, size_t limit, HistoryCallback cb);

private:
    struct Entry {
        std::string value;
        Revision modRevision = 0;
        Revision createRevision = 0;
    };

    struct LogEntry {
        Event::Type type = Event::Put;
        Revision revision = 0;
        std::string key;
        std::string value;
    };

    WriteResult apply(const std::vector<WriteOp>& ops);

    util::EventLoop& loop_;
    std::map<std::string, Entry, std::less<>> objects_;
    std::vector<LogEntry> log_;
    Revision revision_ = 0;
};

}  // namespace kube::storage::memory
