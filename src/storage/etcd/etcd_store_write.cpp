// The etcd store's writes: each write() is one etcd transaction (a create
// puts if the key is absent, an update or delete compares the mod revision
// it read), put under the leases its keys need, sent through the batcher,
// and answered once the replica's watch brought its revision back.
#include "storage/etcd/etcd_store.hpp"

#include "storage/etcd/client.hpp"
#include "storage/etcd/compactor.hpp"
#include "storage/etcd/lease_manager.hpp"
#include "storage/etcd/txn_batcher.hpp"
#include "storage/write_plan.hpp"

namespace kube::storage::etcd {

namespace {

// The registry's folder of the keys written with the event TTL.
constexpr std::string_view kEvents = "/registry/events/";

}  // namespace

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

}  // namespace kube::storage::etcd
