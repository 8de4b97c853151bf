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
    // Put: the key did not exist before this revision (kube's ADDED; etcd's
    // CreateRevision == ModRevision).
    bool created = false;
    std::string_view key;
    // Put: the stored bytes. Delete: the object's last state before deletion.
    std::string_view value;
};

using HistoryCallback = Interface::HistoryCallback;

}  // namespace kube::storage
