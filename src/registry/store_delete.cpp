#include <algorithm>

#include "registry/deletion.hpp"
#include "registry/encoding.hpp"
#include "registry/object_meta.hpp"
#include "registry/store.hpp"
#include "util/time.hpp"

// Store.Delete and Store.DeleteCollection of genericregistry, with
// updateForGracefulDeletionAndFinalizers and finalizeDelete.
namespace kube::registry {

namespace {

// A delete that finds the object changed under it starts over this often.
constexpr int kMaxDeleteAttempts = 8;
// deletecollection deletes this many objects that need more than one write
// (finalizers, graceful deletion) at a time.
constexpr size_t kCollectionParallelism = 16;

std::shared_ptr<json::Document> parseObject(std::string_view bytes) {
    auto doc = std::make_shared<json::Document>();
    doc->Parse(bytes.data(), bytes.size());
    if (doc->HasParseError() || !doc->IsObject()) {
        doc->SetObject();
    }
    return doc;
}

Propagation propagationOf(const DeleteOptions& opts) {
    return {opts.orphanDependents, opts.propagationPolicy};
}

}  // namespace

struct Store::DeleteState {
    std::string ns;
    std::string name;
    DeleteOptions opts;
    DeleteCallback cb;
    // The object as the delete first read it (kube's `in`).
    std::string first;
    int attempt = 0;
    StaleRead stale;
};

void Store::remove(std::string_view ns, std::string_view name, const DeleteOptions& opts,
                   DeleteCallback cb) {
    auto state = std::make_shared<DeleteState>();
    state->ns = std::string(ns);
    state->name = std::string(name);
    state->opts = opts;
    state->cb = std::move(cb);
    readForDelete(std::move(state));
}

void Store::readForDelete(std::shared_ptr<DeleteState> state) {
    auto again = [this, state] { readForDelete(state); };
    readCurrent(objectKey(kind_, state->ns, state->name), state->stale,
                [this, state, again](const storage::Error& err, const storage::ObjectView* cur) {
                    if (!err.ok()) {
                        meta::Status s = statusFromStorage(err, state->name);
                        state->cb(&s, {});
                        return;
                    }
                    auto obj = parseObject(cur->value);
                    const json::Value& metadata = ensureMetadata(*obj);
                    if (auto failed = preconditionFailure(state->opts, state->name,
                                                          json::stringMember(metadata, "uid"),
                                                          cur->modRevision)) {
                        if (readAgain(state->stale, again)) {
                            return;
                        }
                        state->cb(&*failed, {});
                        return;
                    }
                    if (kind_.beginTerminating) {
                        terminate(state, *cur);
                        return;
                    }
                    state->first.assign(cur->value);
                    if (deletesAtOnce(*obj, state->opts)) {
                        deleteNow(state, cur->modRevision, state->first, false);
                        return;
                    }
                    // Graceful, pending or with finalizers: the decisions are made again
                    // on the object the update reads.
                    updateForDeletion(state);
                });
}

// Whether Store.Delete goes straight to the storage delete: a kind that does
// not terminate, no graceful deletion, no finalizers, and no propagation
// finalizer to add.
bool Store::deletesAtOnce(const json::Value& obj, const DeleteOptions& opts) const {
    if (kind_.beginTerminating || kind_.checkGracefulDelete || !finalizersOf(obj).empty()) {
        return false;
    }
    return !finalizersForPropagation(kind_, obj, propagationOf(opts));
}

// Mirrors updateForGracefulDeletionAndFinalizers: one guaranteed update
// that marks the object (and sets its propagation finalizers), after which
// it stays (finalizers, a grace period) or goes.
void Store::updateForDeletion(std::shared_ptr<DeleteState> state) {
    storage_.get(objectKey(kind_, state->ns, state->name), [this, state](
                                                               const storage::Error& err,
                                                               const storage::ObjectView* cur) {
        if (!err.ok()) {
            meta::Status s = statusFromStorage(err, state->name);
            state->cb(&s, {});
            return;
        }
        auto obj = parseObject(cur->value);
        json::Value& metadata = ensureMetadata(*obj);
        if (auto failed = preconditionFailure(
                state->opts, state->name, json::stringMember(metadata, "uid"), cur->modRevision)) {
            state->cb(&*failed, {});
            return;
        }
        std::optional<int64_t> grace = state->opts.gracePeriodSeconds;
        BeforeDelete decided = beforeDelete(kind_, *obj, grace, loop_.now());
        if (decided.pending) {
            state->cb(nullptr, finalizeDelete(state->first, false));
            return;
        }
        if (auto finalizers = finalizersForPropagation(kind_, *obj, propagationOf(state->opts))) {
            setFinalizers(*obj, *finalizers);
        }
        bool pendingFinalizers = !finalizersOf(*obj).empty();
        if (!decided.graceful) {
            if (!pendingFinalizers) {
                deleteNow(state, cur->modRevision, std::string(cur->value), false);
                return;
            }
            markAsDeleting(*obj, loop_.now());
        }
        int64_t lastGraceful = decided.graceful && grace ? *grace : 0;
        // After the write: kept while finalizers or a grace period remain.
        auto after = [this, state, pendingFinalizers, lastGraceful](const storage::Object& out) {
            if (pendingFinalizers || lastGraceful > 0) {
                state->cb(nullptr, DeleteResult{true, out.value, {}, false});
                return;
            }
            if (state->opts.dryRun) {
                state->cb(nullptr, DeleteResult{true, out.value, {}, true});
                return;
            }
            // A resourceVersion precondition now names the marked object.
            if (state->opts.resourceVersion) {
                state->opts.resourceVersion = std::to_string(out.modRevision);
            }
            deleteNow(state, out.modRevision, out.value, true);
        };
        EncodedObject enc = encodeObject(*obj);
        std::string marked =
            storage::spliceRevision(enc.bytes, enc.revisionOffset, cur->modRevision);
        if (marked == cur->value || state->opts.dryRun) {
            after(storage::Object{std::string(cur->key), std::move(marked), cur->modRevision,
                                  cur->createRevision});
            return;
        }
        storage::WriteOp op;
        op.type = storage::WriteOp::Type::Update;
        op.key = std::string(cur->key);
        op.expectedModRevision = cur->modRevision;
        op.value = std::move(enc.bytes);
        op.revisionOffset = enc.revisionOffset;
        storage_.write({std::move(op)}, [this, state, after](storage::WriteResult&& res) {
            if (res.error.code == storage::ErrorCode::Conflict &&
                ++state->attempt < kMaxDeleteAttempts) {
                updateForDeletion(state);
                return;
            }
            if (!res.error.ok()) {
                meta::Status s = statusFromStorage(res.error, state->name);
                state->cb(&s, {});
                return;
            }
            after(res.objects.at(0));
        });
    });
}

// The storage delete of the object last seen at `expected`. A concurrent
// write makes it delete what is there now, once it meets the
// preconditions; `ignoreNotFound` (a graceless delete racing another)
// answers with `lastState` when the object is already gone.
void Store::deleteNow(std::shared_ptr<DeleteState> state, storage::Revision expected,
                      std::string lastState, bool ignoreNotFound) {
    if (state->opts.dryRun) {
        state->cb(nullptr, finalizeDelete(lastState, true));
        return;
    }
    if (!companion_) {
        writeDelete(std::move(state), expected, std::move(lastState), ignoreNotFound, {});
        return;
    }
    // The write companion releases what the object held, in the same batch.
    auto old = parseObject(lastState);
    companion_({{old.get(), nullptr, &old->GetAllocator()}}, false,
               [this, state, expected, lastState, ignoreNotFound, old](
                   const meta::Status* err, std::vector<storage::WriteOp> ops) {
                   if (err) {
                       state->cb(err, {});
                       return;
                   }
                   writeDelete(state, expected, lastState, ignoreNotFound, std::move(ops));
               });
}

void Store::writeDelete(std::shared_ptr<DeleteState> state, storage::Revision expected,
                        std::string lastState, bool ignoreNotFound,
                        std::vector<storage::WriteOp> extra) {
    // The companion's ops first: the delete gets the batch's last revision.
    storage::WriteOp op;
    op.type = storage::WriteOp::Type::Delete;
    op.key = objectKey(kind_, state->ns, state->name);
    op.expectedModRevision = expected;
    extra.push_back(std::move(op));
    size_t own = extra.size() - 1;
    storage_.write(std::move(extra), [this, state, expected, lastState, ignoreNotFound,
                                      own](storage::WriteResult&& res) {
        if (!res.error.ok() && res.failedOp != own && ++state->attempt < kMaxDeleteAttempts) {
            deleteNow(state, expected, lastState, ignoreNotFound);  // a range changed first
            return;
        }
        if (res.error.code == storage::ErrorCode::Conflict &&
            ++state->attempt < kMaxDeleteAttempts && !res.objects.empty()) {
            const storage::Object& cur = res.objects.at(own);
            auto obj = parseObject(cur.value);
            if (auto failed = preconditionFailure(state->opts, state->name,
                                                  json::stringMember(ensureMetadata(*obj), "uid"),
                                                  cur.modRevision)) {
                state->cb(&*failed, {});
                return;
            }
            deleteNow(state, cur.modRevision, cur.value, ignoreNotFound);
            return;
        }
        if (res.error.code == storage::ErrorCode::NotFound && ignoreNotFound) {
            state->cb(nullptr, finalizeDelete(lastState, true));
            return;
        }
        if (!res.error.ok()) {
            meta::Status s = statusFromStorage(res.error, state->name);
            state->cb(&s, {});
            return;
        }
        const storage::Object& gone = res.objects.at(own);
        state->cb(nullptr, finalizeDelete(withResourceVersion(gone.value, gone.modRevision), true));
    });
}

// Mirrors finalizeDelete: the object for kinds that return it, else a
// success Status naming it.
DeleteResult Store::finalizeDelete(std::string_view object, bool deleted) const {
    if (kind_.returnDeletedObject) {
        return DeleteResult{true, std::string(object), {}, deleted};
    }
    auto doc = parseObject(object);
    std::string uid(json::stringMember(ensureMetadata(*doc), "uid"));
    std::string name(json::stringMember((*doc)["metadata"], "name"));
    meta::StatusDetails d{name, kind_.group, kind_.resource, uid, {}, 0};
    return DeleteResult{false, {}, meta::Status::successful(std::move(d)), deleted};
}

// A kind that terminates (namespaces): the object is marked and answered
// with; its terminator (the namespace controller) removes what it holds and
// then the object, off the request path.
void Store::terminate(std::shared_ptr<DeleteState> state, const storage::ObjectView& cur) {
    auto doc = parseObject(cur.value);
    auto& a = doc->GetAllocator();
    json::Value& metadata = ensureMetadata(*doc);
    if (!json::member(metadata, "deletionTimestamp")) {
        json::setMember(metadata, "deletionTimestamp",
                        json::stringValue(util::time::formatRFC3339(loop_.now()), a), a);
    }
    kind_.beginTerminating(*doc, a);
    EncodedObject enc = encodeObject(*doc);
    std::string marked = storage::spliceRevision(enc.bytes, enc.revisionOffset, cur.modRevision);
    if (state->opts.dryRun) {
        state->cb(nullptr, DeleteResult{true, std::move(marked), {}, false});
        return;
    }
    if (marked == cur.value) {
        // Already terminating: nothing to write; the terminator looks again.
        if (terminator_) {
            terminator_(state->name);
        }
        state->cb(nullptr, DeleteResult{true, std::move(marked), {}, false});
        return;
    }
    storage::WriteOp op;
    op.type = storage::WriteOp::Type::Update;
    op.key = std::string(cur.key);
    op.expectedModRevision = cur.modRevision;
    op.value = std::move(enc.bytes);
    op.revisionOffset = enc.revisionOffset;
    storage_.write({std::move(op)}, [this, state](storage::WriteResult&& res) {
        if (res.error.code == storage::ErrorCode::Conflict &&
            ++state->attempt < kMaxDeleteAttempts) {
            remove(state->ns, state->name, state->opts, state->cb);
            return;
        }
        if (!res.error.ok()) {
            meta::Status s = statusFromStorage(res.error, state->name);
            state->cb(&s, {});
            return;
        }
        if (terminator_) {
            terminator_(state->name);
        }
        state->cb(nullptr, DeleteResult{true, std::move(res.objects.at(0).value), {}, false});
    });
}

std::optional<meta::Status> Store::preconditionFailure(const DeleteOptions& opts,
                                                       std::string_view name, std::string_view uid,
                                                       storage::Revision revision) const {
    // rest.BeforeDelete's check: the kind (not the resource) names the object.
    meta::GroupResource gk{kind_.group, kind_.kind};
    if (opts.uid && *opts.uid != uid) {
        return meta::Status::conflict(gk, name,
                                      "the UID in the precondition (" + *opts.uid +
                                          ") does not match the UID in record (" +
                                          std::string(uid) +
                                          "). The object might have been deleted and then "
                                          "recreated");
    }
    // Compared as strings, as kube does: "0100" is not "100".
    if (std::string rv = std::to_string(revision);
        opts.resourceVersion && *opts.resourceVersion != rv) {
        return meta::Status::conflict(gk, name,
                                      "the ResourceVersion in the precondition (" +
                                          *opts.resourceVersion +
                                          ") does not match the ResourceVersion in record (" + rv +
                                          "). The object might have been modified");
    }
    return std::nullopt;
}

// One deletecollection: the listed objects, what became of each, the deletes
// written in batches and the objects deleted one by one still to start.
struct CollectionDelete {
    std::vector<storage::Object> items;
    std::vector<size_t> oneByOne;
    size_t next = 0;
    size_t running = 0;
    std::optional<meta::Status> failed;
    std::string continueToken;
    std::optional<uint64_t> remaining;
    storage::Revision revision = 0;
    DeleteOptions opts;
    Store::ListCallback cb;
    bool answered = false;
    // The deletes written in batches, and the item each deletes.
    std::vector<storage::WriteOp> batchOps;
    std::vector<size_t> batched;
};

namespace {

void answer(CollectionDelete& c) {
    if (c.answered) {
        return;
    }
    c.answered = true;
    if (c.failed) {
        c.cb(&*c.failed, {});
        return;
    }
    std::vector<storage::ObjectView> views;
    for (const storage::Object& o : c.items) {
        views.push_back(o.view());
    }
    ListPage deleted;
    deleted.items = views;
    deleted.revision = c.revision;
    deleted.continueToken = c.continueToken;
    deleted.remainingItemCount = c.remaining;
    c.cb(nullptr, std::move(deleted));
}

// Starts the one-by-one deletions up to the parallelism; answers once the
// last has finished. Safe to re-enter from a deletion that answers inline.
void pump(Store& store, std::shared_ptr<CollectionDelete> c) {
    while (c->running < kCollectionParallelism && c->next < c->oneByOne.size()) {
        size_t i = c->oneByOne[c->next++];
        c->running++;
        auto obj = parseObject(c->items[i].value);
        const json::Value& metadata = ensureMetadata(*obj);
        std::string name(json::stringMember(metadata, "name"));
        std::string ns(json::stringMember(metadata, "namespace"));
        store.remove(ns, name, c->opts,
                     [&store, c, i](const meta::Status* e, const DeleteResult& res) {
                         c->running--;
                         if (e && e->code != 404 && !c->failed) {
                             c->failed = *e;
                         } else if (!e && res.returnsObject) {
                             c->items[i].value = res.object;
                         }
                         pump(store, c);
                     });
    }
    if (c->running == 0 && c->next == c->oneByOne.size()) {
        answer(*c);
    }
}

}  // namespace

void Store::deleteCollection(std::string_view ns, const ListOptions& opts,
                             const DeleteOptions& deleteOpts, ListCallback cb) {
    // kube 1.26 lists with the request's ListOptions: a limit deletes one
    // page, and the answer carries its continue token.
    ListOptions all;
    all.labelSelector = opts.labelSelector;
    all.fieldSelector = opts.fieldSelector;
    all.limit = opts.limit;
    all.continueToken = opts.continueToken;
    list(ns, all, [this, deleteOpts, cb = std::move(cb)](const meta::Status* err, ListPage&& page) {
        if (err) {
            cb(err, {});
            return;
        }
        auto c = std::make_shared<CollectionDelete>();
        c->cb = cb;
        c->continueToken = page.continueToken;
        c->remaining = page.remainingItemCount;
        c->revision = page.revision;
        // Every item is checked before any is deleted: a failed precondition
        // leaves the whole collection as it was.
        std::vector<storage::WriteOp> ops;
        std::vector<size_t> batched;
        for (const storage::ObjectView& item : page.items) {
            auto obj = parseObject(item.value);
            const json::Value& metadata = ensureMetadata(*obj);
            if (auto failed =
                    preconditionFailure(deleteOpts, json::stringMember(metadata, "name"),
                                        json::stringMember(metadata, "uid"), item.modRevision)) {
                cb(&*failed, {});
                return;
            }
            c->items.push_back(storage::Object{std::string(item.key), std::string(item.value),
                                               item.modRevision, item.createRevision});
            // With a write companion each delete releases what it held.
            if (companion_ || !deletesAtOnce(*obj, deleteOpts)) {
                c->oneByOne.push_back(c->items.size() - 1);
                continue;
            }
            storage::WriteOp op;
            op.type = storage::WriteOp::Type::Delete;
            op.key = std::string(item.key);
            op.expectedModRevision = item.modRevision;
            ops.push_back(std::move(op));
            batched.push_back(c->items.size() - 1);
        }
        if (deleteOpts.dryRun) {
            answer(*c);
            return;
        }
        c->opts = deleteOpts;
        c->opts.uid.reset();  // checked above, on the listed objects
        c->opts.resourceVersion.reset();
        // The deletes that need no write of their own, then the others.
        c->batchOps = std::move(ops);
        c->batched = std::move(batched);
        deleteBatches(c, 0);
    });
}

// The deletes that need no write of their own, from `from` on: one batch
// where the storage takes any number of ops in one write (LMDB, one
// transaction), else batches of what it takes (etcd: --max-txn-ops), one
// after the other; then the ones that need their own writes.
void Store::deleteBatches(std::shared_ptr<CollectionDelete> c, size_t from) {
    const size_t total = c->batchOps.size();
    if (from == total) {
        pump(*this, c);
        return;
    }
    const size_t most = storage_.maxOpsPerWrite();
    const size_t to = most == 0 ? total : std::min(total, from + most);
    std::vector<storage::WriteOp> ops(std::make_move_iterator(c->batchOps.begin() + from),
                                      std::make_move_iterator(c->batchOps.begin() + to));
    storage_.write(std::move(ops), [this, c, from, to](storage::WriteResult&& res) {
        if (!res.error.ok()) {
            meta::Status s = statusFromStorage(res.error, "");
            if (res.error.code == storage::ErrorCode::Conflict) {
                s = meta::Status::conflict(kind_.groupResource(), "",
                                           "the collection changed while it was deleted; "
                                           "please try again");
            }
            c->failed = s;
            answer(*c);
            return;
        }
        for (size_t k = 0; k < to - from && k < res.objects.size(); ++k) {
            storage::Object& item = c->items[c->batched[from + k]];
            item = std::move(res.objects[k]);
            c->revision = std::max(c->revision, item.modRevision);
        }
        deleteBatches(c, to);
    });
}

}  // namespace kube::registry
