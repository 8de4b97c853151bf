#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/interface.hpp"

namespace kube::storage {

// Reads the backend's current object for `key` into `current`, which it leaves
// empty when the key is absent. A non-ok Error fails the call at the op being
// planned (as a failed precondition would) and stops planning; a backend whose
// failure must doom more than the call (LMDB's whole transaction) also keeps
// its own record of it. Called once per distinct key of a call, on the key's
// first op, so it is also the place for backend-specific key checks.
using Lookup = std::function<Error(const std::string& key, std::optional<Object>& current)>;

// Checks every op of one Interface::write() call against the backend's state
// (through `lookup`) plus the effect of the call's earlier ops, and computes
// what each op would store: the object for Create/Update, with revision
// base+i+1 spliced in, the last state for Delete. Stores nothing.
//
// True when every op passes; result.objects then holds one planned object per
// op, for the backend to apply in order. False when an op fails (KeyExists,
// NotFound, Conflict or a lookup error): result.error and result.failedOp name
// it, and result.objects holds only, at failedOp, the current object if there
// is one.
bool planWrite(const std::vector<WriteOp>& ops, Revision base, const Lookup& lookup,
               WriteResult& result);

// The error for one key, worded as every backend words it: key "<key>" <what>.
Error keyError(ErrorCode code, std::string_view key, std::string_view what);

// The Compacted error of history(after) when entries below `compacted` are
// gone, worded as every backend words it.
Error compactedError(Revision after, Revision compacted);

}  // namespace kube::storage
