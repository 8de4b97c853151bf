#include "storage/memory/memory_store.hpp"

#include <algorithm>
#include <optional>

#include "storage/write_plan.hpp"

namespace kube::storage::memory {

Store::Store(util::EventLoop& loop) : loop_(loop) {}

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
    loop_.post(
        [cb = std::move(cb), result = std::move(result)]() mutable { cb(std::move(result)); });
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
            log_.push_back({Event::Delete, o.modRevision, o.key, o.value});
        } else {
            objects_[o.key] = Entry{o.value, o.modRevision, o.createRevision};
            log_.push_back({Event::Put, o.modRevision, o.key, o.value});
        }
    }
    revision_ += ops.size();
    return result;
}

Revision Store::currentRevision() {
    return revision_;
}

void Store::history(Revision after, size_t limit, HistoryCallback cb) {
    auto it = std::upper_bound(log_.begin(), log_.end(), after,
                               [](Revision r, const LogEntry& e) { return r < e.revision; });
    std::vector<LogEntry> copies;
    for (; it != log_.end() && (limit == 0 || copies.size() < limit); ++it) {
        copies.push_back(*it);
    }
    std::vector<Event> events;
    events.reserve(copies.size());
    for (const LogEntry& e : copies) {
        events.push_back({e.type, e.revision, e.key, e.value});
    }
    cb(Error{}, events);
}

}  // namespace kube::storage::memory
