#include "storage/compactor.hpp"

namespace kube::storage {

Compactor::Compactor(Interface& storage, util::EventLoop& loop,
                     std::chrono::milliseconds interval)
    : storage_(storage),
      loop_(loop),
      interval_(interval),
      previous_(storage.currentRevision()),
      alive_(std::make_shared<bool>(true)) {
    arm();
}

void Compactor::arm() {
    timer_ = loop_.startTimer(interval_, [this, alive = std::weak_ptr<bool>(alive_)] {
        if (alive.lock()) {
            tick();
        }
    });
}

void Compactor::tick() {
    Revision target = previous_;
    previous_ = storage_.currentRevision();
    if (!inFlight_ && target > compacted_) {
        inFlight_ = true;
        // Entries below `target` go; the one at `target` stays, so a watch
        // from the revision a client read a whole interval ago still works.
        storage_.compact(target, [this, target, alive = std::weak_ptr<bool>(alive_)](
                                     const Error& err) {
            if (!alive.lock()) {
                return;
            }
            inFlight_ = false;
            if (err.ok()) {
                compacted_ = target;
            }
        });
    }
    arm();
}

}  // namespace kube::storage
