#include "storage/memory/memory_store.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace kube::storage::memory {

namespace {

Error keyError(ErrorCode code, const std::string& key, std::string_view what) {
    return {code, "key \"" + key + "\" " + std::string(what)};
}

}  // namespace

Store::Store(util::EventLoop& loop) : loop_(loop) {}

void Store::get(std::string_view key, GetCallback cb) {
    auto it = objects_.find(key);
    if (it == objects_.end()) {
        cb(keyError(ErrorCode::NotFound, std::string(key), "not found"), nullptr);
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

// Checks every op against the stored state plus the effect of the earlier
// ops of the same batch, and only then applies them all.
WriteResult Store::apply(const std::vector<WriteOp>& ops) {
    WriteResult result;
    result.objects.resize(ops.size());
    // Per key touched by this batch, the index of its latest op.
    std::unordered_map<std::string_view, size_t> staged;
    for (size_t i = 0; i < ops.size(); i++) {
        const WriteOp& op = ops[i];
        std::optional<Object> current;
        if (auto s = staged.find(op.key); s != staged.end()) {
            if (ops[s->second].type != WriteOp::Type::Delete) {
                current = result.objects[s->second];
            }
        } else if (auto it = objects_.find(op.key); it != objects_.end()) {
            current = Object{it->first, it->second.value, it->second.modRevision,
                             it->second.createRevision};
        }

        Error err;
        if (op.type == WriteOp::Type::Create && current) {
            err = keyError(ErrorCode::KeyExists, op.key, "already exists");
        } else if (op.type != WriteOp::Type::Create && !current) {
            err = keyError(ErrorCode::NotFound, op.key, "not found");
        } else if (op.type != WriteOp::Type::Create && op.expectedModRevision != 0 &&
                   current->modRevision != op.expectedModRevision) {
            err = keyError(ErrorCode::Conflict, op.key,
                           "has mod revision " + std::to_string(current->modRevision) +
                               ", expected " + std::to_string(op.expectedModRevision));
        }
        if (!err.ok()) {
            WriteResult failed;
            failed.error = std::move(err);
            failed.failedOp = i;
            failed.objects.resize(ops.size());
            if (current) {
                failed.objects[i] = std::move(*current);
            }
            return failed;
        }

        const Revision rev = revision_ + i + 1;
        Object& out = result.objects[i];
        out.key = op.key;
        out.modRevision = rev;
        switch (op.type) {
            case WriteOp::Type::Create:
                out.value = spliceRevision(op.value, op.revisionOffset, rev);
                out.createRevision = rev;
                break;
            case WriteOp::Type::Update:
                out.value = spliceRevision(op.value, op.revisionOffset, rev);
                out.createRevision = current->createRevision;
                break;
            case WriteOp::Type::Delete:
                out.value = std::move(current->value);
                out.createRevision = current->createRevision;
                break;
        }
        staged[op.key] = i;
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
