#include "flowcontrol/max_in_flight.hpp"

namespace kube::flowcontrol {

namespace {

std::shared_ptr<const Level> limitLevel(std::string_view name, int limit) {
    auto l = std::make_shared<Level>();
    l->name = std::string(name);
    l->exempt = limit <= 0;
    l->reject = true;
    l->nominalSeats = limit;
    l->lendableSeats = 0;
    l->borrowingSeats = 0;
    return l;
}

}  // namespace

std::shared_ptr<const Configuration> maxInFlightConfiguration(int readOnlyLimit,
                                                              int mutatingLimit) {
    auto c = std::make_shared<Configuration>();
    c->serverConcurrencyLimit = readOnlyLimit + mutatingLimit;
    c->levels.push_back(limitLevel(kReadOnlyLevel, readOnlyLimit));
    c->levels.push_back(limitLevel(kMutatingLevel, mutatingLimit));
    return c;
}

bool isMutatingVerb(std::string_view verb) {
    return verb != "get" && verb != "list" && verb != "watch";
}

bool isLongRunning(const endpoints::RequestInfo& info) {
    std::string_view verb = info.verb;
    if (verb == "watch" || verb == "proxy") {
        return true;
    }
    if (!info.isResourceRequest || info.subresource.empty()) {
        return false;
    }
    for (std::string_view s : {"attach", "exec", "proxy", "log", "portforward"}) {
        if (info.subresource == s) {
            return true;
        }
    }
    return false;
}

}  // namespace kube::flowcontrol
