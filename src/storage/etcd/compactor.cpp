#include "storage/etcd/compactor.hpp"

#include <string>

#include "storage/etcd/client.hpp"

namespace kube::storage::etcd {

namespace {

// kube-apiserver's key: every server sharing the etcd must use this one.
constexpr std::string_view kCompactRevKey = "compact_rev_key";

}  // namespace

Compactor::Compactor(Client& client, util::EventLoop& loop, std::chrono::milliseconds interval,
                     std::function<void(Revision)> compacted)
    : client_(client),
      loop_(loop),
      interval_(interval),
      compacted_(std::move(compacted)),
      alive_(std::make_shared<bool>(true)) {
    arm();
}

Compactor::~Compactor() {
    *alive_ = false;
}

void Compactor::arm() {
    timer_ = loop_.startTimer(interval_, [this, alive = alive_] {
        if (*alive) {
            tick();
        }
    });
}

void Compactor::tick() {
    etcdserverpb::TxnRequest txn;
    etcdserverpb::Compare* c = txn.add_compare();
    c->set_key(std::string(kCompactRevKey));
    c->set_target(etcdserverpb::Compare::VERSION);
    c->set_result(etcdserverpb::Compare::EQUAL);
    c->set_version(version_);
    etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
    put->set_key(std::string(kCompactRevKey));
    put->set_value(std::to_string(revision_));
    txn.add_failure()->mutable_request_range()->set_key(std::string(kCompactRevKey));

    client_.txn(
        txn, [this, alive = alive_](const grpc::Status& status, etcdserverpb::TxnResponse& resp) {
            if (!*alive) {
                return;
            }
            if (!status.ok()) {
                // Tried again next interval, from the same knowledge.
                arm();
                return;
            }
            int64_t target = revision_;
            revision_ = resp.header().revision();
            if (!resp.succeeded()) {
                // Another compactor had this interval: learn its clock.
                const etcdserverpb::RangeResponse& r = resp.responses(0).response_range();
                version_ = r.kvs_size() > 0 ? r.kvs(0).version() : 0;
                arm();
                return;
            }
            version_++;
            if (target == 0) {
                arm();
                return;
            }
            etcdserverpb::CompactionRequest req;
            req.set_revision(target);
            client_.compact(req, [this, alive, target](const grpc::Status& status,
                                                       etcdserverpb::CompactionResponse&) {
                if (!*alive) {
                    return;
                }
                // "required revision has been compacted": etcd is compacted as
                // far already, which is as good.
                if (status.ok() || status.error_code() == grpc::StatusCode::OUT_OF_RANGE) {
                    compacted_(static_cast<Revision>(target));
                }
                arm();
            });
        });
}

}  // namespace kube::storage::etcd
