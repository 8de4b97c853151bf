#include "registry/service/ip_address_allocation.hpp"

#include "registry/service/ip_address_objects.hpp"

namespace kube::registry::service {

namespace {

// One read at a time, claims first, then releases. Reads may call back
// inline (LMDB): the loop in run() takes those without growing the stack,
// a later callback starts it again.
class Walk : public std::enable_shared_from_this<Walk> {
  public:
    Walk(storage::Interface& storage, std::shared_ptr<std::vector<ClusterIPClaim>> claims,
         std::vector<ClusterIPRelease> releases, PickAnotherFn pickAnother,
         std::chrono::system_clock::time_point now,
         std::function<void(const storage::Error&, IPAddressPlan)> done)
        : storage_(storage),
          claims_(std::move(claims)),
          releases_(std::move(releases)),
          pickAnother_(std::move(pickAnother)),
          now_(now),
          done_(std::move(done)) {}

    void run() {
        while (!finished_) {
            if (next_ == claims_->size() + releases_.size()) {
                finish({});
                return;
            }
            inCall_ = true;
            arrived_ = false;
            auto self = shared_from_this();
            storage_.get(ipAddressKey(currentIP()),
                         [self](const storage::Error& err, const storage::ObjectView* obj) {
                             self->onRead(err, obj);
                             if (self->inCall_) {
                                 self->arrived_ = true;
                             } else {
                                 self->run();
                             }
                         });
            inCall_ = false;
            if (!arrived_) {
                return;
            }
        }
    }

  private:
    const std::string& currentIP() const {
        return next_ < claims_->size() ? (*claims_)[next_].ip
                                       : releases_[next_ - claims_->size()].ip;
    }

    void onRead(const storage::Error& err, const storage::ObjectView* obj) {
        if (!err.ok() && err.code != storage::ErrorCode::NotFound) {
            finish(err);
            return;
        }
        if (next_ < claims_->size()) {
            onClaim((*claims_)[next_], err.ok() ? obj : nullptr);
        } else {
            onRelease(releases_[next_ - claims_->size()], err.ok() ? obj : nullptr);
        }
    }

    void onClaim(ClusterIPClaim& claim, const storage::ObjectView* held) {
        if (!held) {
            plan_.ops.push_back(ipAddressWrite(claim.ip, claim.ns, claim.name, now_));
            next_++;
            return;
        }
        if (claim.requested) {
            plan_.taken = next_;
            finish({});
            return;
        }
        // allocateFromRange: an address with an IPAddress is skipped.
        std::optional<std::string> other = pickAnother_();
        if (!other) {
            plan_.full = true;
            finish({});
            return;
        }
        claim.ip = std::move(*other);
    }

    void onRelease(const ClusterIPRelease& release, const storage::ObjectView* held) {
        next_++;
        if (!held) {
            return;
        }
        std::optional<IPAddressRecord> record = decodeIPAddress(held->value);
        if (!record || !record->refersTo(release.ns, release.name)) {
            return;
        }
        plan_.ops.push_back(ipAddressDelete(release.ip, held->modRevision));
    }

    void finish(const storage::Error& err) {
        finished_ = true;
        auto done = std::move(done_);
        done(err, err.ok() ? std::move(plan_) : IPAddressPlan{});
    }

    storage::Interface& storage_;
    std::shared_ptr<std::vector<ClusterIPClaim>> claims_;
    std::vector<ClusterIPRelease> releases_;
    PickAnotherFn pickAnother_;
    std::chrono::system_clock::time_point now_;
    std::function<void(const storage::Error&, IPAddressPlan)> done_;
    IPAddressPlan plan_;
    size_t next_ = 0;
    bool finished_ = false;
    bool inCall_ = false;
    bool arrived_ = false;
};

}  // namespace

void planIPAddresses(storage::Interface& storage,
                     std::shared_ptr<std::vector<ClusterIPClaim>> claims,
                     std::vector<ClusterIPRelease> releases, PickAnotherFn pickAnother,
                     std::chrono::system_clock::time_point now,
                     std::function<void(const storage::Error&, IPAddressPlan)> done) {
    std::make_shared<Walk>(storage, std::move(claims), std::move(releases), std::move(pickAnother),
                           now, std::move(done))
        ->run();
}

}  // namespace kube::registry::service
