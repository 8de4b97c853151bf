#include "storage/memory/memory_store.hpp"

#include <algorithm>
#include <optional>

#include "storage/write_plan.hpp"

namespace kube::storage::memory {

Store::Store(util::EventLoop& loop) : loop_(loop), alive_(std::make_shared<bool>(true)) {}

Store::~Store() {
    *alive_ = false;
}

void Store::get(std::string_view key, GetCallback cb) {
    auto it = objects_.find(key);
    if (it == objects_.end()) {
        cb(keyError(ErrorCode::NotFound, key, "not found"), nullptr);
        return;
    }
    const Object copy{it->first, it->second.value, it->second.modRevision,
                      it->second.createRevision};
    const ObjectView view = copy.view();
    cb(Error{}, &view);
}

void Store::list(const ListOptions& opts, ListCallback cb) {
    const std::string& from = std::max(opts.startKey, opts.prefix);
    std::vector<Object> copies;
    ListResult result;
    result.revision = revision_;
    for (auto it = objects_.lower_bound(from); it != objects_.end(); ++it) {
        if (!it->first.starts_with(opts.prefix)) {
            break;
        }
        if (opts.limit != 0 && copies.size() == opts.limit) {
            result.more = true;
            result.remaining++;
            continue;
        }
        copies.push_back(
            {it->first, it->second.value, it->second.modRevision, it->second.createRevision});
    }
    std::vector<ObjectView> views;
    views.reserve(copies.size());
    for (const Object& o : copies) {
        views.push_back(o.view());
    }
    result.items = views;
    cb(Error{}, result);
}

void Store::write(std::vector<WriteOp> ops, WriteCallback cb) {
    WriteResult result = apply(ops);
    // The highest revision written, as LMDB reports a committed batch.
    const Revision last = result.error.ok() && !ops.empty() ? revision_ : 0;
    loop_.post(
        [this, alive = alive_, last, cb = std::move(cb), result = std::move(result)]() mutable {
            if (last != 0 && *alive && commitListener_) {
                commitListener_(last);
            }
            cb(std::move(result));
        });
}

// Plans the whole batch with planWrite() against the stored state, and only
// then applies it.
WriteResult Store::apply(const std::vector<WriteOp>& ops) {
    auto lookup = [this](const std::string& key, std::optional<Object>& current) {
        if (auto it = objects_.find(key); it != objects_.end()) {
            current = Object{it->first, it->second.value, it->second.modRevision,
                             it->second.createRevision};
        }
        return Error{};
    };
    WriteResult result;
    if (!planWrite(ops, revision_, lookup, result)) {
        return result;
    }

    for (size_t i = 0; i < ops.size(); i++) {
        const Object& o = result.objects[i];
        if (ops[i].type == WriteOp::Type::Delete) {
            objects_.erase(o.key);
            log_.push_back({Event::Delete, o.modRevision, false, o.key, o.value});
        } else {
            objects_[o.key] = Entry{o.value, o.modRevision, o.createRevision};
            const bool created = ops[i].type == WriteOp::Type::Create;
            log_.push_back({Event::Put, o.modRevision, created, o.key, o.value});
        }
    }
    revision_ += ops.size();
    return result;
}

Revision Store::currentRevision() {
    return revision_;
}

void Store::history(Revision after, size_t limit, HistoryCallback cb) {
    if (after + 1 < compacted_) {
        cb(compactedError(after, compacted_), {});
        return;
    }
    auto it = std::upper_bound(log_.begin(), log_.end(), after,
                               [](Revision r, const LogEntry& e) { return r < e.revision; });
    std::vector<LogEntry> copies;
    for (; it != log_.end() && (limit == 0 || copies.size() < limit); ++it) {
        copies.push_back(*it);
    }
    std::vector<Event> events;
    events.reserve(copies.size());
    for (const LogEntry& e : copies) {
        events.push_back({e.type, e.revision, e.created, e.key, e.value});
    }
    cb(Error{}, events);
}

void Store::setCommitListener(CommitListener listener) {
    commitListener_ = std::move(listener);
}

void Store::compact(Revision revision, CompactCallback cb) {
    loop_.post([this, alive = alive_, revision, cb = std::move(cb)] {
        if (!*alive) {
            return;
        }
        // As LMDB: never past the current revision, never lower.
        const Revision target = std::min(revision, revision_);
        if (target > compacted_) {
            auto end =
                std::lower_bound(log_.begin(), log_.end(), target,
                                 [](const LogEntry& e, Revision r) { return e.revision < r; });
            log_.erase(log_.begin(), end);
            compacted_ = target;
        }
        cb(Error{});
    });
}

Revision Store::compactedRevision() {
    return compacted_;
}

}  // namespace kube::storage::memory
