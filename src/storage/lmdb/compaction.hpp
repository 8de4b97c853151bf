#pragma once

#include <cstddef>

#include "storage/interface.hpp"
#include "storage/lmdb/lmdb_env.hpp"

namespace kube::storage::lmdb {

// One step of compacting the revision log up to `target` (spec/storage.md
// §1.5), in a write transaction of its own: deletes the oldest revlog entries
// below `target`, at most `maxEntries` of them so that the global write lock
// is held only briefly, and raises meta.compact_rev to the oldest revision
// left, so a reader never skips a deleted entry without being told Compacted.
// meta.compact_rev never decreases, and `target` is clamped to meta.rev: the
// newest entry is always kept, so history(current) keeps working.
//
// Returns an LMDB error code (nothing changed then); sets `*finished` once
// meta.compact_rev has reached the clamped target. Blocks on the write lock
// and on fsync: run it off the loop, in the writer's slot (GroupCommit).
int compactStep(const Env& env, Revision target, size_t maxEntries, bool* finished);

}  // namespace kube::storage::lmdb
