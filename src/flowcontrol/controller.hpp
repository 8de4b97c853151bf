#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "flowcontrol/decision.hpp"
#include "storage/cacher/follower.hpp"
#include "util/json.hpp"

namespace kube::flowcontrol {

// The server's total concurrency limit by default: kube's
// --max-requests-inflight (400) plus --max-mutating-requests-inflight (200).
inline constexpr int kDefaultServerConcurrencyLimit = 600;

// One FlowSchema's Dangling condition is not what the PriorityLevelConfigurations
// say it should be: `dangling` is the status it should have.
struct DanglingChange {
    std::string flowSchema;
    std::string level;  // the PriorityLevelConfiguration it names
    bool dangling = false;
};

// The classifier of one worker; mirrors the configuration side of kube's
// apf_controller.go. It follows the watch caches of FlowSchemas and
// PriorityLevelConfigurations (as RbacAuthorizer follows the RBAC caches):
// every event a cache applies rebuilds the sorted schemas and the levels at
// once, so a change written by any worker is used here as soon as this
// worker's cacher has polled it. No request reads the store. Loop thread only.
class Controller : public Classifier {
public:
    Controller();
    ~Controller() override;
    Controller(const Controller&) = delete;
    Controller& operator=(const Controller&) = delete;

    // Fills from what the caches hold and follows their events from now on.
    // Both caches must outlive the controller.
    void follow(storage::cacher::WatchCache& flowSchemas, storage::cacher::WatchCache& levels);

    // The total the levels' seats are shares of; recomputes the seats.
    void setServerConcurrencyLimit(int total);
    int serverConcurrencyLimit() const { return serverLimit_; }

    // Called after every rebuild with the FlowSchemas whose Dangling condition
    // is missing or wrong (worker 0 writes them; kube's config controller).
    void onDanglingChanges(std::function<void(const std::vector<DanglingChange>&)> fn) {
        danglingChanged_ = std::move(fn);
    }

    const Decision* classify(const authz::Attributes& request) const override;
    const std::shared_ptr<const Configuration>& configuration() const override { return config_; }

    // The objects as parsed stored JSON, by name; for the followers and tests.
    void put(bool flowSchema, const util::json::Value& obj);
    void remove(bool flowSchema, const std::string& name);
    void clear(bool flowSchema);
    // Rebuilds the schemas and levels from the objects (the followers call it).
    void rebuild();

    struct Schema;

private:
    // Keep one kind (FlowSchemas or levels) in step with its cache.
    storage::cacher::Follower::JsonHandlers handlers(bool flowSchemas);

    std::map<std::string, std::shared_ptr<const util::json::Document>> flowSchemas_;
    std::map<std::string, std::shared_ptr<const util::json::Document>> levels_;
    std::vector<std::shared_ptr<const Schema>> schemas_;  // sorted: precedence, then name
    std::shared_ptr<const Configuration> config_;
    int serverLimit_ = kDefaultServerConcurrencyLimit;
    bool read_ = false;
    std::function<void(const std::vector<DanglingChange>&)> danglingChanged_;
    std::vector<std::unique_ptr<storage::cacher::Follower>> followers_;
    // Decisions by the request's attributes that classification reads (a
    // request stream repeats a few users and resources): a repeated request
    // costs one lookup instead of a walk of the schemas and a SHA-256.
    // Emptied by every rebuild, and when it reaches kMaxDecisions.
    static constexpr size_t kMaxDecisions = 4096;
    mutable std::unordered_map<std::string, Decision> decisions_;
    mutable std::string key_;  // the lookup's key, its buffer reused
};

// Mirrors hashFlowID: the first 8 bytes, little-endian, of the SHA-256 of the
// schema's name, a zero byte and the distinguisher.
std::uint64_t hashFlowID(std::string_view flowSchema, std::string_view distinguisher);

// Mirrors the seat computation of apf_controller: nominal =
// ceil(total * shares / sum of shares), lendable = round(nominal * lendablePercent
// / 100), borrowing = round(nominal * borrowingLimitPercent / 100) (-1 without
// a limit). Fills the computed fields of `levels` in place.
void computeSeats(int serverConcurrencyLimit, std::vector<std::shared_ptr<Level>>& levels);

}  // namespace kube::flowcontrol
