#include "controller/serviceallocation/range_repair.hpp"

#include <vector>

namespace kube::controller::serviceallocation {

RangeRepair::RangeRepair(util::EventLoop& loop, storage::Interface& storage,
                         registry::service::ServiceAllocators& allocators,
                         std::string servicesPrefix)
    : loop_(loop),
      storage_(storage),
      allocators_(allocators),
      servicesPrefix_(std::move(servicesPrefix)) {}

RangeRepair::~RangeRepair() {
    *alive_ = false;
}

void RangeRepair::start(std::function<void()> firstDone) {
    firstDone_ = std::move(firstDone);
    pass();
}

void RangeRepair::again(std::chrono::milliseconds delay) {
    timer_ = loop_.startTimer(delay, [this, alive = alive_] {
        if (*alive) {
            pass();
        }
    });
}

// The ranges first, then the services: a service written after the ranges
// were read changed a range, and the pass's compare-and-swap then fails.
void RangeRepair::pass() {
    allocators_.readRanges([this, alive = alive_](const storage::Error& err,
                                                  registry::service::ServiceAllocators::Snapshot
                                                      snapshot) {
        if (!*alive) {
            return;
        }
        if (!err.ok()) {
            again(std::chrono::seconds(1));
            return;
        }
        storage::ListOptions opts;
        opts.prefix = servicesPrefix_;
        storage_.list(opts, [this, alive, snapshot](const storage::Error& err,
                                                    const storage::ListResult& res) {
            if (!*alive) {
                return;
            }
            if (!err.ok()) {
                again(std::chrono::seconds(1));
                return;
            }
            std::vector<std::string> services;
            services.reserve(res.items.size());
            for (const storage::ObjectView& item : res.items) {
                services.emplace_back(item.value);
            }
            allocators_.repair(snapshot, services, [this, alive](bool written) {
                if (!*alive) {
                    return;
                }
                if (!written) {
                    again(std::chrono::seconds(1));
                    return;
                }
                if (firstDone_) {
                    auto done = std::move(firstDone_);
                    firstDone_ = nullptr;
                    done();
                }
                again(kInterval);
            });
        });
    });
}

}  // namespace kube::controller::serviceallocation
