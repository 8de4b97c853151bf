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
// How long consistent reads wait for the watch before the replica is
// checked against etcd (etcd's revision may have moved outside the prefix).
constexpr std::chrono::milliseconds kVerifyDelay{50};
constexpr std::string_view kRevisionSlot = "\"resourceVersion\":\"\"";
// The registry's folder of the keys written with the event TTL.
constexpr std::string_view kEvents = "/registry/events/";

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

// The end of the etcd range holding every key that starts with `prefix`.
std::string prefixEnd(std::string prefix) {
    while (!prefix.empty()) {
        unsigned char last = static_cast<unsigned char>(prefix.back());
        if (last < 0xff) {
            prefix.back() = static_cast<char>(last + 1);
            return prefix;
        }
        prefix.pop_back();
    }
    return std::string(1, '\0');
}

Error grpcError(const grpc::Status& s, std::string_view what) {
    std::string message = "etcd " + std::string(what) + ": " + s.error_message();
    if (unreachable(s)) {
        return {ErrorCode::Unavailable, message};
    }
    switch (s.error_code()) {
        case grpc::StatusCode::RESOURCE_EXHAUSTED:
            if (s.error_message().find("space exceeded") != std::string::npos) {
                return {ErrorCode::NoSpace, message};
            }
            return {ErrorCode::Internal, message};
        case grpc::StatusCode::OUT_OF_RANGE:
            if (s.error_message().find("compacted") != std::string::npos) {
                return {ErrorCode::Compacted, message};
            }
            return {ErrorCode::Internal, message};
        default:
            return {ErrorCode::Internal, message};
    }
}

Revision revisionOf(int64_t r) {
    return r > 0 ? static_cast<Revision>(r) : 0;
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

LeaseManager& Store::leaseManager(std::chrono::seconds ttl) {
    std::unique_ptr<LeaseManager>& m = leases_[ttl];
    if (!m) {
        m = std::make_unique<LeaseManager>([this](std::chrono::seconds granted,
                                                  LeaseManager::Granted done) {
            etcdserverpb::LeaseGrantRequest req;
            req.set_ttl(granted.count());
            client_->leaseGrant(
                req, [done = std::move(done)](const grpc::Status& status,
                                              etcdserverpb::LeaseGrantResponse& resp) {
                    if (!status.ok()) {
                        done(grpcError(status, "lease grant"), 0);
                    } else if (!resp.error().empty() || resp.id() == 0) {
                        done(Error{ErrorCode::Unavailable, "etcd lease grant: " + resp.error()}, 0);
                    } else {
                        done(Error{}, resp.id());
                    }
                });
        });
    }
    return *m;
}

Store::~Store() {
    *alive_ = false;
    retry_.reset();
    freshTimer_.reset();
    compactor_.reset();
    batcher_.reset();
    // Joins the completion queue's thread; what it had not handed over is
    // dropped.
    client_.reset();
}

bool Store::leased(std::string_view key) const {
    return options_.eventTtl.count() > 0 && key.starts_with(kEvents);
}

std::chrono::seconds Store::ttlOf(const WriteOp& op) const {
    if (op.type == WriteOp::Type::Delete) {
        return std::chrono::seconds(0);
    }
    if (op.ttl.count() > 0) {
        return op.ttl;
    }
    return leased(op.key) ? options_.eventTtl : std::chrono::seconds(0);
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

void Store::fail(WriteCallback cb, size_t ops, Error error, size_t failedOp) {
    WriteResult r;
    r.error = std::move(error);
    r.failedOp = failedOp;
    r.objects.assign(ops, Object{});
    loop_.post([alive = alive_, cb = std::move(cb), r = std::move(r)]() mutable {
        if (*alive) {
            cb(std::move(r));
        }
    });
}

void Store::write(std::vector<WriteOp> ops, WriteCallback cb) {
    if (!loaded_) {
        fail(std::move(cb), ops.size(), notLoaded());
        return;
    }
    // What etcd is to store for each op (kube's encoding of the registry's
    // JSON); a value the codec refuses fails the batch before etcd sees it.
    std::vector<std::string> values(ops.size());
    for (size_t i = 0; i < ops.size(); i++) {
        const WriteOp& op = ops[i];
        if (op.type == WriteOp::Type::Delete) {
            continue;
        }
        std::string error;
        if (!options_.codec.encode) {
            values[i] = op.value;
        } else if (!options_.codec.encode(op.key, op.value, &values[i], &error)) {
            fail(std::move(cb), ops.size(),
                 keyError(ErrorCode::Internal, op.key, "cannot be encoded: " + error), i);
            return;
        }
    }
    leaseAndSend(std::move(ops), std::move(values), false, std::move(cb));
}

// A write waiting for the leases its keys are put under.
struct Store::PendingLeases {
    std::vector<WriteOp> ops;
    std::vector<std::string> values;
    std::vector<std::chrono::seconds> ttls;
    // Per TTL the transaction needs, the lease granted (0: not yet).
    std::map<std::chrono::seconds, int64_t> granted;
    bool retried = false;
    WriteCallback cb;
};

void Store::leaseAndSend(std::vector<WriteOp> ops, std::vector<std::string> values, bool retried,
                         WriteCallback cb) {
    // An event is written with a lease, as kube's store writes it: a create
    // and every update (kube's TTLFunc of events), so that an event expires
    // the TTL after it was last written; so is a key written with a TTL of
    // its own (the API servers' leases).
    auto p = std::make_shared<PendingLeases>();
    for (const WriteOp& op : ops) {
        std::chrono::seconds ttl = ttlOf(op);
        p->ttls.push_back(ttl);
        if (ttl.count() > 0) {
            p->granted.emplace(ttl, 0);
        }
    }
    p->ops = std::move(ops);
    p->values = std::move(values);
    p->retried = retried;
    p->cb = std::move(cb);
    grantLeases(std::move(p));
}

// The leases of one transaction are had one TTL after the other.
void Store::grantLeases(std::shared_ptr<PendingLeases> p) {
    for (auto& [ttl, id] : p->granted) {
        if (id != 0) {
            continue;
        }
        std::chrono::seconds want = ttl;
        leaseManager(want).getLease(want, [this, p, want](const Error& err, int64_t got) {
            if (!err.ok()) {
                fail(std::move(p->cb), p->ops.size(), err);
                return;
            }
            p->granted[want] = got;
            grantLeases(p);
        });
        return;
    }
    std::vector<int64_t> leases;
    for (std::chrono::seconds ttl : p->ttls) {
        leases.push_back(ttl.count() > 0 ? p->granted[ttl] : 0);
    }
    sendTxn(std::move(p->ops), std::move(p->values), std::move(leases), p->retried,
            std::move(p->cb));
}

void Store::sendTxn(std::vector<WriteOp> ops, std::vector<std::string> values,
                    std::vector<int64_t> leases, bool retried, WriteCallback cb) {
    etcdserverpb::TxnRequest txn;
    std::vector<std::string> keys;
    keys.reserve(ops.size());
    for (size_t i = 0; i < ops.size(); i++) {
        const WriteOp& op = ops[i];
        const std::string& key = keys.emplace_back(etcdKey(op.key));
        etcdserverpb::Compare* c = txn.add_compare();
        c->set_key(key);
        if (op.type == WriteOp::Type::Create) {
            c->set_target(etcdserverpb::Compare::MOD);
            c->set_result(etcdserverpb::Compare::EQUAL);
            c->set_mod_revision(0);
        } else if (op.expectedModRevision != 0) {
            c->set_target(etcdserverpb::Compare::MOD);
            c->set_result(etcdserverpb::Compare::EQUAL);
            c->set_mod_revision(static_cast<int64_t>(op.expectedModRevision));
        } else {
            c->set_target(etcdserverpb::Compare::VERSION);
            c->set_result(etcdserverpb::Compare::GREATER);
            c->set_version(0);
        }
        if (op.type == WriteOp::Type::Delete) {
            etcdserverpb::DeleteRangeRequest* del =
                txn.add_success()->mutable_request_delete_range();
            del->set_key(key);
            del->set_prev_kv(true);
        } else {
            etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
            put->set_key(key);
            put->set_value(values[i]);
            if (i < leases.size() && leases[i] != 0) {
                put->set_lease(leases[i]);
            }
        }
        txn.add_failure()->mutable_request_range()->set_key(key);
    }
    stats_.txns++;
    batcher_->add(
        std::move(txn), std::move(keys),
        [this, ops = std::move(ops), values = std::move(values), leases = std::move(leases),
         retried, cb = std::move(cb)](const grpc::Status& status, etcdserverpb::TxnResponse& resp,
                                      int64_t revision) mutable {
            bool leased =
                std::any_of(leases.begin(), leases.end(), [](int64_t id) { return id != 0; });
            if (!status.ok() && leased && !retried &&
                status.error_code() == grpc::StatusCode::NOT_FOUND) {
                // "requested lease not found": revoked, or etcd was
                // restored; the write asks for new ones, once.
                for (size_t i = 0; i < ops.size(); i++) {
                    if (leases[i] != 0) {
                        leaseManager(ttlOf(ops[i])).forget(leases[i]);
                    }
                }
                leaseAndSend(std::move(ops), std::move(values), true, std::move(cb));
                return;
            }
            Waiting w;
            if (!status.ok()) {
                w.result.error = grpcError(status, "transaction");
                w.result.objects.assign(ops.size(), Object{});
            } else if (resp.succeeded()) {
                w = txnSucceeded(std::move(ops), std::move(values), resp, revisionOf(revision));
            } else {
                w = txnFailed(ops, resp);
            }
            w.cb = std::move(cb);
            if (w.revision <= revision_) {
                committed(w);
                return;
            }
            waiting_.push_back(std::move(w));
        });
}

Store::Waiting Store::txnSucceeded(std::vector<WriteOp> ops, std::vector<std::string> values,
                                   const etcdserverpb::TxnResponse& resp, Revision rev) const {
    Waiting w;
    for (size_t i = 0; i < ops.size(); i++) {
        const WriteOp& op = ops[i];
        Object o;
        o.key = op.key;
        o.modRevision = rev;
        if (op.type == WriteOp::Type::Delete) {
            const etcdserverpb::DeleteRangeResponse& del =
                resp.responses(static_cast<int>(i)).response_delete_range();
            if (del.prev_kvs_size() > 0) {
                const mvccpb::KeyValue& prev = del.prev_kvs(0);
                o.value = decoded(op.key, prev.value(), revisionOf(prev.mod_revision()));
                o.createRevision = revisionOf(prev.create_revision());
            }
        } else {
            // What the other hosts will read: the stored bytes decoded, once
            // the replica has them (committed()).
            if (!options_.codec.decode) {
                o.value = spliceRevision(op.value, op.revisionOffset, rev);
            }
            o.createRevision = op.type == WriteOp::Type::Create ? rev : 0;
        }
        w.result.objects.push_back(std::move(o));
    }
    w.revision = rev;
    w.ops = std::move(ops);
    if (options_.codec.decode) {
        w.stored = std::move(values);
    }
    return w;
}

// The failure branch read every key: the first op whose precondition does
// not hold is named, with the key's current state.
Store::Waiting Store::txnFailed(const std::vector<WriteOp>& ops,
                                const etcdserverpb::TxnResponse& resp) const {
    Waiting w;
    w.result.objects.assign(ops.size(), Object{});
    w.result.error = {ErrorCode::Conflict, "etcd transaction failed its comparisons"};
    for (size_t i = 0; i < ops.size(); i++) {
        const WriteOp& op = ops[i];
        const etcdserverpb::RangeResponse& r = resp.responses(static_cast<int>(i)).response_range();
        const mvccpb::KeyValue* cur = r.kvs_size() > 0 ? &r.kvs(0) : nullptr;
        Error err;
        if (op.type == WriteOp::Type::Create) {
            if (cur) {
                err = keyError(ErrorCode::KeyExists, op.key, "already exists");
            }
        } else if (!cur) {
            err = keyError(ErrorCode::NotFound, op.key, "not found");
        } else if (op.expectedModRevision != 0 &&
                   revisionOf(cur->mod_revision()) != op.expectedModRevision) {
            err = keyError(ErrorCode::Conflict, op.key,
                           "has mod revision " + std::to_string(cur->mod_revision()) +
                               ", expected " + std::to_string(op.expectedModRevision));
        }
        if (err.ok()) {
            continue;
        }
        w.result.error = err;
        w.result.failedOp = i;
        if (cur) {
            Revision mod = revisionOf(cur->mod_revision());
            w.result.objects[i] = Object{op.key, decoded(op.key, cur->value(), mod), mod,
                                         revisionOf(cur->create_revision())};
            // A caller that reads again must find at least this.
            w.revision = mod;
        }
        break;
    }
    return w;
}

size_t Store::maxOpsPerWrite() const {
    return TxnBatcher::kMaxTxnOps;
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
