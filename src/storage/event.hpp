#pragma once

#include <functional>
#include <span>
#include <string_view>

#include "storage/interface.hpp"

namespace kube::storage {

// One entry of a backend's revision log, the change feed watch caches are
// fed from; mirrors the etcd mvccpb.Event a kube watch is built on.
// Views stay valid only for the duration of the callback they are passed to.
struct Event {
    enum Type { Put, Delete };

    Type type = Put;
    Revision revision = 0;
    std::string_view key;
    // Put: the stored bytes. Delete: the object's last state before deletion.
    std::string_view value;
};

// Receives the revision-log entries after a revision, in revision order.
// Error Compacted when entries that should follow that revision were compacted away.
using HistoryCallback = std::function<void(const Error&, std::span<const Event>)>;

}  // namespace kube::storage
