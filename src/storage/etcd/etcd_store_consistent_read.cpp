// The etcd store's consistent reads: served from the replica once it has
// caught up with etcd's revision at the time of the read (kube 1.31's
// consistent reads from the watch cache), else read from etcd itself.
#include "storage/etcd/etcd_store.hpp"

#include "storage/etcd/client.hpp"
#include "storage/write_plan.hpp"

namespace kube::storage::etcd {

namespace {

// How long consistent reads wait for the watch before the replica is
// checked against etcd (etcd's revision may have moved outside the prefix).
constexpr std::chrono::milliseconds kVerifyDelay{50};

}  // namespace

bool Store::freshAt(Revision wanted) const {
    return revision_ >= wanted || (verified_ >= wanted && verifiedChanges_ == changes_);
}

void Store::waitFresh(FreshCallback cb) {
    if (!loaded_) {
        stats_.consistentFallbacks++;
        cb(notLoaded());
        return;
    }
    freshAsked_.push_back(std::move(cb));
    if (!askingRevision_) {
        askRevision();
    }
}

// One Range at a time asks etcd's revision for every read that came before
// it was sent (a read that comes while it is in flight waits for the next:
// a write acknowledged before the read may be newer than what is in flight).
// It reads one key without its value: only the header's revision matters,
// from a linearizable read (etcd's ReadIndex).
void Store::askRevision() {
    askingRevision_ = true;
    auto asked = std::make_shared<std::vector<FreshCallback>>();
    asked->swap(freshAsked_);
    auto deadline = std::chrono::steady_clock::now() + options_.freshTimeout;
    etcdserverpb::RangeRequest req;
    req.set_key(options_.prefix + "/");
    req.set_count_only(true);
    stats_.revisionRanges++;
    client_->range(req, [this, asked, deadline](const grpc::Status& status,
                                                etcdserverpb::RangeResponse& resp) {
        askingRevision_ = false;
        if (!status.ok()) {
            Error err = grpcError(status, "read of the revision");
            std::shared_ptr<bool> alive = alive_;
            for (FreshCallback& cb : *asked) {
                stats_.consistentFallbacks++;
                cb(err);
                if (!*alive) {
                    return;
                }
            }
        } else {
            Revision wanted = revisionOf(resp.header().revision());
            for (FreshCallback& cb : *asked) {
                freshWaiting_.push_back(FreshWaiter{wanted, std::move(cb), deadline});
            }
            releaseFresh();
        }
        if (!askingRevision_ && !freshAsked_.empty()) {
            askRevision();
        }
    });
}

void Store::releaseFresh() {
    std::vector<FreshCallback> ready;
    std::vector<FreshCallback> late;
    Revision lateWanted = 0;
    auto now = std::chrono::steady_clock::now();
    for (auto it = freshWaiting_.begin(); it != freshWaiting_.end();) {
        if (loaded_ && freshAt(it->wanted)) {
            ready.push_back(std::move(it->cb));
        } else if (now >= it->deadline) {
            lateWanted = std::max(lateWanted, it->wanted);
            late.push_back(std::move(it->cb));
        } else {
            ++it;
            continue;
        }
        it = freshWaiting_.erase(it);
    }
    armFreshTimer();
    std::shared_ptr<bool> alive = alive_;
    for (FreshCallback& cb : ready) {
        stats_.consistentReads++;
        cb(Error{});
        if (!*alive) {
            return;
        }
    }
    if (late.empty()) {
        return;
    }
    Error err{ErrorCode::Unavailable, "the replica of etcd did not reach revision " +
                                          std::to_string(lateWanted) + " in time (it is at " +
                                          std::to_string(revision_) + ")"};
    for (FreshCallback& cb : late) {
        stats_.consistentFallbacks++;
        cb(err);
        if (!*alive) {
            return;
        }
    }
}

void Store::armFreshTimer() {
    if (freshWaiting_.empty()) {
        freshTimer_.reset();
        return;
    }
    if (freshTimer_) {
        return;
    }
    freshTimer_ = loop_.startTimer(kVerifyDelay, [this, alive = alive_] {
        if (!*alive) {
            return;
        }
        freshTimer_.reset();
        verifyReplica();
        releaseFresh();
    });
}

// etcd's revision moved past the replica's and the watch has brought
// nothing: either its events are on their way, or the revision moved by
// writes outside the prefix (kube's compact_rev_key, other programs), which
// the watch never brings. The replica holds etcd's state at the wanted
// revision when no key under the prefix was modified after the replica's
// revision and the number of keys is the same (a deletion lowers it, a
// creation or an update is a modified key); its reads are then
// linearizable without waiting for the watch. etcd reads the prefix's keys
// for this (min_mod_revision filters after the read), so it is asked only
// after kVerifyDelay and once at a time.
void Store::verifyReplica() {
    if (verifying_ || freshWaiting_.empty() || !loaded_) {
        return;
    }
    Revision target = 0;
    for (const FreshWaiter& w : freshWaiting_) {
        target = std::max(target, w.wanted);
    }
    if (target <= revision_) {
        return;
    }
    Revision at = revision_;
    uint64_t changes = changes_;
    size_t count = objects_.size();
    etcdserverpb::RangeRequest req;
    req.set_key(options_.prefix + "/");
    req.set_range_end(rangeEnd_);
    req.set_revision(static_cast<int64_t>(target));
    req.set_keys_only(true);
    req.set_min_mod_revision(static_cast<int64_t>(at + 1));
    verifying_ = true;
    stats_.revisionRanges++;
    client_->range(req, [this, target, changes, count](const grpc::Status& status,
                                                       etcdserverpb::RangeResponse& resp) {
        verifying_ = false;
        if (!status.ok() || changes != changes_) {
            return;
        }
        if (resp.kvs_size() == 0 && resp.count() >= 0 &&
            static_cast<size_t>(resp.count()) == count) {
            verified_ = target;
            verifiedChanges_ = changes;
            releaseFresh();
        }
    });
}

void Store::getLinearizable(std::string_view key, GetCallback cb) {
    etcdserverpb::RangeRequest req;
    req.set_key(etcdKey(key));
    stats_.ranges++;
    client_->range(req, [this, key = std::string(key), cb = std::move(cb)](
                            const grpc::Status& status, etcdserverpb::RangeResponse& resp) {
        if (!status.ok()) {
            cb(grpcError(status, "read of \"" + etcdKey(key) + "\""), nullptr);
            return;
        }
        if (resp.kvs().empty()) {
            cb(keyError(ErrorCode::NotFound, key, "not found"), nullptr);
            return;
        }
        Entry e = entryOf(key, resp.kvs(0));
        if (!e.corrupt.empty()) {
            cb(Error{ErrorCode::Internal, e.corrupt}, nullptr);
            return;
        }
        ObjectView view{key, e.value, e.modRevision, e.createRevision};
        cb(Error{}, &view);
    });
}

void Store::listLinearizable(const ListOptions& opts, ListCallback cb) {
    const std::string_view from = std::max<std::string_view>(opts.startKey, opts.prefix);
    etcdserverpb::RangeRequest req;
    req.set_key(etcdKey(from));
    req.set_range_end(prefixEnd(etcdKey(opts.prefix)));
    req.set_limit(static_cast<int64_t>(opts.limit));
    stats_.ranges++;
    client_->range(req, [this, prefix = opts.prefix, cb = std::move(cb)](
                            const grpc::Status& status, etcdserverpb::RangeResponse& resp) {
        if (!status.ok()) {
            cb(grpcError(status, "read of \"" + etcdKey(prefix) + "\""), ListResult{});
            return;
        }
        std::vector<std::pair<std::string, Entry>> read;
        read.reserve(static_cast<size_t>(resp.kvs_size()));
        for (const mvccpb::KeyValue& kv : resp.kvs()) {
            std::string key = registryKey(kv.key());
            Entry e = entryOf(key, kv);
            if (e.corrupt.empty()) {
                read.emplace_back(std::move(key), std::move(e));
            }
        }
        std::vector<ObjectView> items;
        items.reserve(read.size());
        for (const auto& [key, e] : read) {
            items.push_back(ObjectView{key, e.value, e.modRevision, e.createRevision});
        }
        ListResult result;
        result.items = items;
        result.revision = revisionOf(resp.header().revision());
        result.more = resp.more();
        if (resp.more() && resp.count() > resp.kvs_size()) {
            result.remaining = static_cast<uint64_t>(resp.count() - resp.kvs_size());
        }
        cb(Error{}, result);
    });
}

}  // namespace kube::storage::etcd
