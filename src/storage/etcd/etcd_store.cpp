#include "storage/etcd/etcd_store.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "storage/etcd/client.hpp"
#include "storage/etcd/compactor.hpp"
#include "storage/etcd/lease_manager.hpp"
#include "storage/etcd/txn_batcher.hpp"

#include "storage/write_plan.hpp"

namespace kube::storage::etcd {

namespace {

// Keys read per Range page: large enough to load quickly, small enough that
// a page of big objects stays a modest message.
constexpr int64_t kPageSize = 500;
constexpr std::chrono::milliseconds kMaxBackoff{5000};
constexpr std::string_view kRevisionSlot = "\"resourceVersion\":\"\"";

// The contents of the PEM file `path` for `what`; false with `*error` set.
bool readPem(const std::string& path, std::string_view what, std::string* out, std::string* error) {
    if (path.empty()) {
        return true;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    if (in) {
        text << in.rdbuf();
    }
    if (!in || text.str().find("-----BEGIN ") == std::string::npos) {
        *error = "cannot read " + std::string(what) + " \"" + path + "\"";
        return false;
    }
    *out = text.str();
    return true;
}

}  // namespace

std::string withRevision(std::string_view value, Revision revision) {
    size_t slot = value.find(kRevisionSlot);
    if (slot == std::string_view::npos) {
        return std::string(value);
    }
    return spliceRevision(value, slot + kRevisionSlot.size() - 1, revision);
}

std::unique_ptr<Store> Store::open(const Options& options, util::EventLoop& loop,
                                   std::function<void()> notify, std::string* error) {
    bool tls = false;
    std::string target = Client::target(options.endpoints, &tls, error);
    if (target.empty()) {
        return nullptr;
    }
    if (!options.prefix.starts_with('/') || options.prefix.ends_with('/')) {
        *error = "prefix \"" + options.prefix + "\" must start with \"/\" and not end with it";
        return nullptr;
    }
    bool tlsFiles =
        !options.caFile.empty() || !options.certFile.empty() || !options.keyFile.empty();
    if (tlsFiles && !tls) {
        *error = "cacert=, cert= and key= need \"https://\" endpoints";
        return nullptr;
    }
    if (options.certFile.empty() != options.keyFile.empty()) {
        *error = "cert= and key= go together";
        return nullptr;
    }
    // Read once, at start (the worker is not serving yet).
    std::string rootCerts;
    std::string certChain;
    std::string privateKey;
    if (!readPem(options.caFile, "cacert", &rootCerts, error) ||
        !readPem(options.certFile, "cert", &certChain, error) ||
        !readPem(options.keyFile, "key", &privateKey, error)) {
        return nullptr;
    }
    std::unique_ptr<Store> store(
        new Store(options, loop, std::move(notify), target, tls, rootCerts, certChain, privateKey));
    // The worker serves meanwhile (nothing blocks its loop), answering
    // Unavailable for what it would read or write; a failed read is retried
    // with backoff, as etcd may come up later.
    store->reload();
    return store;
}

void Store::whenLoaded(std::function<void()> cb) {
    if (loaded_) {
        cb();
        return;
    }
    whenLoaded_.push_back(std::move(cb));
}

std::string Store::health() {
    if (!loaded_) {
        return notLoaded().message;
    }
    return down_;
}

Store::Store(const Options& options, util::EventLoop& loop, std::function<void()> notify,
             const std::string& target, bool tls, const std::string& rootCerts,
             const std::string& certChain, const std::string& privateKey)
    : options_(options),
      layout_(options.prefix),
      loop_(loop),
      rangeEnd_(prefixEnd(options.prefix + "/")),
      alive_(std::make_shared<bool>(true)) {
    Client::Options copts;
    copts.endpoints = options.endpoints;
    copts.timeout = options.timeout;
    copts.tls = tls;
    copts.rootCerts = rootCerts;
    copts.certChain = certChain;
    copts.privateKey = privateKey;
    client_ = std::make_unique<Client>(target, copts, std::move(notify));
    batcher_ = std::make_unique<TxnBatcher>(*client_, loop_);
    if (options.compactionInterval.count() > 0) {
        compactor_ = std::make_unique<Compactor>(*client_, loop_, options.compactionInterval,
                                                 [this](Revision r) { dropBelow(r); });
    }
}

std::string Store::etcdKey(std::string_view key) const {
    return layout_.etcdKey(key);
}

std::string Store::registryKey(std::string_view key) const {
    return layout_.registryKey(key);
}

std::string Store::decoded(std::string_view key, std::string_view stored, Revision modRevision,
                           std::string* corrupt) const {
    if (!options_.codec.decode) {
        return withRevision(stored, modRevision);
    }
    std::string out;
    std::string error;
    if (!options_.codec.decode(key, stored, &out, &error)) {
        if (corrupt) {
            *corrupt = "etcd's value at \"" + etcdKey(key) + "\" cannot be decoded: " + error;
        }
        return {};
    }
    return withRevision(out, modRevision);
}

Store::Entry Store::entryOf(const std::string& key, const mvccpb::KeyValue& kv) const {
    Entry e;
    e.modRevision = revisionOf(kv.mod_revision());
    e.createRevision = revisionOf(kv.create_revision());
    e.value = decoded(key, kv.value(), e.modRevision, &e.corrupt);
    return e;
}

void Store::drain() {
    client_->drain();
}

void Store::startWatch() {
    etcdserverpb::WatchCreateRequest create;
    create.set_key(options_.prefix + "/");
    create.set_range_end(rangeEnd_);
    create.set_start_revision(static_cast<int64_t>(revision_ + 1));
    client_->watch(create, Client::WatchHandlers{
                               [this](etcdserverpb::WatchResponse& r) { watched(r); },
                               [this](const grpc::Status& s) { watchClosed(s); },
                           });
}

void Store::watched(etcdserverpb::WatchResponse& resp) {
    if (!resp.canceled()) {
        down_.clear();
    }
    if (resp.canceled()) {
        client_->closeWatch();
        if (resp.compact_revision() > 0) {
            // The replica fell behind etcd's compaction: read it afresh.
            reload();
        } else {
            retryLater([this] { startWatch(); });
        }
        return;
    }
    backoff_ = std::chrono::milliseconds(100);
    if (resp.events().empty()) {
        return;
    }
    for (const mvccpb::Event& e : resp.events()) {
        applyEvent(e);
    }
    advanceTo(revisionOf(resp.events(resp.events_size() - 1).kv().mod_revision()));
}

void Store::watchClosed(const grpc::Status& status) {
    down_ = grpcError(status, "watch").message;
    retryLater([this] {
        if (!reloading_) {
            startWatch();
        }
    });
}

void Store::retryLater(std::function<void()> task) {
    retry_ = loop_.startTimer(backoff_, [alive = alive_, task = std::move(task)] {
        if (*alive) {
            task();
        }
    });
    backoff_ = std::min(backoff_ * 2, kMaxBackoff);
}

void Store::reload() {
    reloading_ = true;
    reloadPage(0, options_.prefix + "/",
               std::make_shared<std::map<std::string, Entry, std::less<>>>());
}

void Store::reloadPage(Revision at, std::string from,
                       std::shared_ptr<std::map<std::string, Entry, std::less<>>> objects) {
    etcdserverpb::RangeRequest req;
    req.set_key(from);
    req.set_range_end(rangeEnd_);
    req.set_limit(kPageSize);
    req.set_revision(static_cast<int64_t>(at));
    stats_.ranges++;
    client_->range(req, [this, at, objects](const grpc::Status& status,
                                            etcdserverpb::RangeResponse& resp) mutable {
        if (!status.ok()) {
            // A page at a revision compacted meanwhile starts over.
            down_ = grpcError(status, "read of \"" + options_.prefix + "/\"").message;
            if (!loaded_ && !loadFailureTold_ && options_.loadFailed) {
                loadFailureTold_ = true;
                options_.loadFailed(down_);
            }
            retryLater([this] { reload(); });
            return;
        }
        if (at == 0) {
            at = revisionOf(resp.header().revision());
        }
        for (const mvccpb::KeyValue& kv : resp.kvs()) {
            std::string key = registryKey(kv.key());
            Entry entry = entryOf(key, kv);
            (*objects)[std::move(key)] = std::move(entry);
        }
        if (resp.more() && !resp.kvs().empty()) {
            reloadPage(at, resp.kvs(resp.kvs_size() - 1).key() + '\0', objects);
            return;
        }
        objects_ = std::move(*objects);
        changes_++;
        // The feed restarts here: readers of older revisions relist.
        log_.clear();
        logStart_ = std::max(at, revision_);
        reloading_ = false;
        loaded_ = true;
        down_.clear();
        backoff_ = std::chrono::milliseconds(100);
        revision_ = std::max(revision_, at);
        if (commitListener_) {
            commitListener_(revision_);
        }
        advanceTo(revision_);
        startWatch();
        std::vector<std::function<void()>> ready;
        ready.swap(whenLoaded_);
        for (auto& cb : ready) {
            loop_.post([alive = alive_, cb = std::move(cb)] {
                if (*alive) {
                    cb();
                }
            });
        }
    });
}

void Store::applyEvent(const mvccpb::Event& e) {
    changes_++;
    std::string key = registryKey(e.kv().key());
    Revision rev = revisionOf(e.kv().mod_revision());
    if (e.type() == mvccpb::Event::PUT) {
        Entry next = entryOf(key, e.kv());
        Entry& entry = objects_[key];
        bool wasReadable = entry.modRevision != 0 && entry.corrupt.empty();
        std::swap(entry, next);
        if (entry.corrupt.empty()) {
            // Readable again after a corrupt value: new to the watch caches.
            bool created = entry.createRevision == rev || (next.modRevision != 0 && !wasReadable);
            log_.push_back(LogEntry{Event::Put, rev, created, key, entry.value});
        } else if (wasReadable) {
            // Unreadable now: gone, for the watch caches.
            log_.push_back(
                LogEntry{Event::Delete, rev, false, std::move(key), std::move(next.value)});
        }
        return;
    }
    std::string last;
    bool wasReadable = false;
    if (auto it = objects_.find(key); it != objects_.end()) {
        wasReadable = it->second.corrupt.empty();
        last = std::move(it->second.value);
        objects_.erase(it);
    }
    if (wasReadable) {
        log_.push_back(LogEntry{Event::Delete, rev, false, std::move(key), std::move(last)});
    }
}

void Store::advanceTo(Revision revision) {
    if (revision > revision_) {
        revision_ = revision;
        trimLog();
        if (commitListener_) {
            commitListener_(revision_);
        }
    }
    std::vector<Waiting> ready;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (it->revision <= revision_) {
            ready.push_back(std::move(*it));
            it = waiting_.erase(it);
        } else {
            ++it;
        }
    }
    std::shared_ptr<bool> alive = alive_;
    for (Waiting& w : ready) {
        if (!*alive) {
            return;
        }
        committed(w);
    }
    if (*alive && !freshWaiting_.empty()) {
        releaseFresh();
    }
}

void Store::trimLog() {
    while (log_.size() > options_.maxLogEvents) {
        Revision front = log_.front().revision;
        while (!log_.empty() && log_.front().revision == front) {
            log_.pop_front();
        }
        logStart_ = std::max(logStart_, front);
    }
}

void Store::committed(Waiting& w) {
    // What a put answers is what the replica now holds of it (decoded once,
    // as the watch brought it), unless the key changed again meanwhile;
    // the create revision of an updated key, which the transaction did not
    // return, comes from there too.
    if (w.result.error.ok()) {
        for (size_t i = 0; i < w.ops.size(); i++) {
            const WriteOp& op = w.ops[i];
            if (op.type == WriteOp::Type::Delete) {
                continue;
            }
            Object& o = w.result.objects[i];
            auto it = objects_.find(o.key);
            bool held = it != objects_.end() && it->second.modRevision == o.modRevision &&
                        it->second.corrupt.empty();
            if (op.type == WriteOp::Type::Update && it != objects_.end()) {
                o.createRevision = it->second.createRevision;
            }
            if (i < w.stored.size()) {
                o.value = held ? it->second.value : decoded(o.key, w.stored[i], o.modRevision);
            }
        }
    }
    WriteCallback cb = std::move(w.cb);
    cb(std::move(w.result));
}

Error Store::notLoaded() const {
    std::string why = down_.empty() ? "it is being read" : down_;
    return {ErrorCode::Unavailable, "etcd has not been read yet: " + why};
}

void Store::get(std::string_view key, GetCallback cb) {
    if (!loaded_) {
        cb(notLoaded(), nullptr);
        return;
    }
    auto it = objects_.find(key);
    if (it == objects_.end()) {
        cb(keyError(ErrorCode::NotFound, key, "not found"), nullptr);
        return;
    }
    if (!it->second.corrupt.empty()) {
        cb(Error{ErrorCode::Internal, it->second.corrupt}, nullptr);
        return;
    }
    ObjectView view{it->first, it->second.value, it->second.modRevision, it->second.createRevision};
    cb(Error{}, &view);
}

void Store::list(const ListOptions& opts, ListCallback cb) {
    if (!loaded_) {
        cb(notLoaded(), ListResult{});
        return;
    }
    const std::string_view prefix = opts.prefix;
    const std::string_view from = std::max<std::string_view>(opts.startKey, prefix);
    std::vector<ObjectView> items;
    ListResult result;
    result.revision = revision_;
    for (auto it = objects_.lower_bound(from);
         it != objects_.end() && std::string_view(it->first).starts_with(prefix); ++it) {
        if (!it->second.corrupt.empty()) {
            continue;
        }
        if (opts.limit != 0 && items.size() == opts.limit) {
            result.more = true;
            result.remaining++;
            continue;
        }
        items.push_back(ObjectView{it->first, it->second.value, it->second.modRevision,
                                   it->second.createRevision});
    }
    result.items = items;
    cb(Error{}, result);
}

Revision Store::currentRevision() {
    return revision_;
}

void Store::history(Revision after, size_t limit, HistoryCallback cb) {
    if (!loaded_) {
        cb(notLoaded(), {});
        return;
    }
    if (after < logStart_) {
        cb(compactedError(after, logStart_ + 1), {});
        return;
    }
    auto it = std::partition_point(log_.begin(), log_.end(),
                                   [after](const LogEntry& e) { return e.revision <= after; });
    std::vector<Event> events;
    for (; it != log_.end(); ++it) {
        if (limit != 0 && events.size() >= limit && it->revision != events.back().revision) {
            break;
        }
        events.push_back(Event{it->type, it->revision, it->created, it->key, it->value});
    }
    cb(Error{}, events);
}

void Store::setCommitListener(CommitListener listener) {
    commitListener_ = std::move(listener);
}

void Store::compact(Revision revision, CompactCallback cb) {
    revision = std::min(revision, revision_);
    if (!loaded_ || revision <= logStart_ + 1) {
        loop_.post([alive = alive_, err = loaded_ ? Error{} : notLoaded(), cb = std::move(cb)] {
            if (*alive) {
                cb(err);
            }
        });
        return;
    }
    etcdserverpb::CompactionRequest req;
    req.set_revision(static_cast<int64_t>(revision));
    client_->compact(req, [this, revision, cb = std::move(cb)](const grpc::Status& status,
                                                               etcdserverpb::CompactionResponse&) {
        Error err;
        if (!status.ok()) {
            err = grpcError(status, "compaction");
            // Another host (or kube-apiserver) compacted as far already.
            if (err.code == ErrorCode::Compacted) {
                err = Error{};
            }
        }
        if (err.ok()) {
            dropBelow(revision);
        }
        cb(err);
    });
}

void Store::dropBelow(Revision revision) {
    while (!log_.empty() && log_.front().revision < revision) {
        log_.pop_front();
    }
    if (revision > 0) {
        logStart_ = std::max(logStart_, revision - 1);
    }
}

Revision Store::compactedRevision() {
    return logStart_ + 1;
}

std::string Store::metricsText() {
    std::string out =
        "# HELP etcd_requests_total [ALPHA] Etcd request counts for each operation, in the "
        "worker that answered the scrape: range (objects read), revision (consistent reads "
        "asking etcd's revision, checks of the replica), txn (writes).\n"
        "# TYPE etcd_requests_total counter\n";
    out += "etcd_requests_total{operation=\"range\"} " + std::to_string(stats_.ranges) + "\n";
    out += "etcd_requests_total{operation=\"revision\"} " + std::to_string(stats_.revisionRanges) +
           "\n";
    out += "etcd_requests_total{operation=\"txn\"} " + std::to_string(stats_.txns) + "\n";
    out +=
        "# HELP etcd_batched_transactions_total Transactions that carried the writes of "
        "several requests (group commit), in the worker that answered the scrape.\n"
        "# TYPE etcd_batched_transactions_total counter\n"
        "etcd_batched_transactions_total " +
        std::to_string(batcher_->batches()) +
        "\n"
        "# HELP etcd_batched_writes_total Writes those transactions carried.\n"
        "# TYPE etcd_batched_writes_total counter\n"
        "etcd_batched_writes_total " +
        std::to_string(batcher_->batchedTxns()) +
        "\n"
        "# HELP etcd_transactions_in_flight Transactions sent to etcd and not answered yet.\n"
        "# TYPE etcd_transactions_in_flight gauge\n"
        "etcd_transactions_in_flight " +
        std::to_string(batcher_->inFlight()) + "\n";
    out +=
        "# HELP apiserver_watch_cache_consistent_read_total [ALPHA] Counter for consistent reads "
        "from cache, in the worker that answered the scrape: served from the watch cache once "
        "it caught up with etcd, or read from etcd (fallback) when it did not in time.\n"
        "# TYPE apiserver_watch_cache_consistent_read_total counter\n";
    out += "apiserver_watch_cache_consistent_read_total{fallback=\"false\",success=\"true\"} " +
           std::to_string(stats_.consistentReads) + "\n";
    out += "apiserver_watch_cache_consistent_read_total{fallback=\"true\",success=\"false\"} " +
           std::to_string(stats_.consistentFallbacks) + "\n";
    return out;
}

}  // namespace kube::storage::etcd
