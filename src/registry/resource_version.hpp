#pragma once

#include <string_view>

#include "apis/meta/status.hpp"
#include "storage/interface.hpp"

namespace kube::registry {

// What state a read asks for, from its resourceVersion and
// resourceVersionMatch parameters (kube's "Semantics for get and list").
struct ReadVersion {
    enum class Match {
        MostRecent,    // resourceVersion unset: a consistent read of the latest state
        Any,           // "0": whatever state is at hand
        NotOlderThan,  // N: a state at N or newer
        Exact,         // N: exactly the state at N
    };
    Match match = Match::MostRecent;
    storage::Revision revision = 0;
};

// Parses a resourceVersion ("" when absent); false with a 400 in `error`
// when it is not a revision.
bool parseResourceVersion(std::string_view rv, storage::Revision* out, meta::Status* error);

// The version a list reads: mirrors ValidateListOptions (422 on a bad
// combination) and the legacy rule that a non-zero resourceVersion with a
// limit and no match reads exactly that version.
bool parseListVersion(std::string_view rv, std::string_view match, bool hasLimit,
                      bool hasContinue, ReadVersion* out, meta::Status* error);

// 504 "Too large resource version", as kube's cacher answers a read of a
// revision the store has not reached.
meta::Status tooLargeResourceVersion(storage::Revision wanted, storage::Revision current);

}  // namespace kube::registry
