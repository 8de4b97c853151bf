#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "authz/authorizer.hpp"

namespace kube::flowcontrol {

// The contract between API Priority and Fairness's configuration side
// (FlowSchema and PriorityLevelConfiguration objects, classification) and its
// dispatching side (seats and queues in shared memory, parking requests).
// Mirrors the parts of kube's apf_controller.go the dispatcher reads.

// How a limited level answers a request it cannot seat at once:
// limitResponse.type Queue (with its queuing) or Reject.
struct Queuing {
    int queues = 64;
    int handSize = 8;
    int queueLengthLimit = 50;
};

// One PriorityLevelConfiguration as the dispatcher uses it. The seat figures
// are computed from the server's total concurrency limit as kube's
// apf_controller does (nominal = ceil(total * shares / sum of shares)).
struct Level {
    std::string name;
    std::string uid;
    bool exempt = false;
    bool reject = false;  // limitResponse.type Reject; queuing unused then
    Queuing queuing;
    int nominalConcurrencyShares = 0;
    int lendablePercent = 0;
    std::optional<int> borrowingLimitPercent;  // unset: may borrow without limit
    // Computed:
    int nominalSeats = 0;
    int lendableSeats = 0;
    int borrowingSeats = -1;  // -1: no limit
};

// What classifying one request decided.
struct Decision {
    std::string flowSchemaName;
    std::string flowSchemaUid;
    std::shared_ptr<const Level> level;
    // The flow: the FlowSchema's name and its distinguisher's value (user or
    // namespace name, "" without one); queues are dealt by flowHash.
    std::string flowDistinguisher;
    std::uint64_t flowHash = 0;
};

// All the levels of one configuration, in a stable order, with the total the
// seats were computed from. A new Configuration replaces the old one whole
// whenever an object changes.
struct Configuration {
    int serverConcurrencyLimit = 0;
    std::vector<std::shared_ptr<const Level>> levels;
};

// What the dispatcher asks of the configuration side. One per worker, fed
// from that worker's watch caches of the two flowcontrol resources; loop
// thread only.
class Classifier {
public:
    virtual ~Classifier() = default;

    // The FlowSchema with the lowest matchingPrecedence that matches (ties
    // broken by name), and its level; null until the configuration has been
    // read (the dispatcher then lets the request through). Classification
    // reads the user's name and groups, not its uid or extra. The decision
    // stays valid until the configuration changes (loop thread only).
    virtual const Decision* classify(const authz::Attributes& request) const = 0;

    // The current levels; replaced whole on every change.
    virtual const std::shared_ptr<const Configuration>& configuration() const = 0;
};

}  // namespace kube::flowcontrol
