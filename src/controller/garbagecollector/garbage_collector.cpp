#include "controller/garbagecollector/garbage_collector.hpp"

#include <algorithm>

#include "registry/deletion.hpp"
#include "registry/object_meta.hpp"

namespace kube::garbagecollector {

namespace json = util::json;
namespace cacher = storage::cacher;

namespace {

// metadata.uid of a stored object without parsing it: the store writes
// metadata first, and its uid before any owner reference's.
std::string_view quickUid(std::string_view bytes) {
    constexpr std::string_view kUid = "\"uid\":\"";
    size_t at = bytes.find(kUid);
    if (at == std::string_view::npos) {
        return {};
    }
    at += kUid.size();
    size_t end = bytes.find('"', at);
    return end == std::string_view::npos ? std::string_view() : bytes.substr(at, end - at);
}

// Whether an object that is not in the graph needs to be: it names owners,
// or it is being deleted with a finalizer the collector acts on.
bool mayMatter(std::string_view bytes) {
    return bytes.find("\"ownerReferences\"") != std::string_view::npos ||
           (bytes.find("\"deletionTimestamp\"") != std::string_view::npos &&
            (bytes.find("\"foregroundDeletion\"") != std::string_view::npos ||
             bytes.find("\"orphan\"") != std::string_view::npos));
}

// "apps/v1" -> ("apps", "v1"); "v1" -> ("", "v1").
std::pair<std::string_view, std::string_view> splitApiVersion(std::string_view apiVersion) {
    size_t slash = apiVersion.find('/');
    if (slash == std::string_view::npos) {
        return {"", apiVersion};
    }
    return {apiVersion.substr(0, slash), apiVersion.substr(slash + 1)};
}

}  // namespace

GarbageCollector::GarbageCollector(util::EventLoop& loop, const registry::Scheme& scheme,
                                   StoreFor stores)
    : loop_(loop), scheme_(scheme), stores_(std::move(stores)) {}

GarbageCollector::~GarbageCollector() {
    *alive_ = false;
}

// The graph builder's handlers: what a cache holds or an event brings is
// observed, a deleted object forgotten, and the work that follows queued
// (after the first state, and after each event or refill).
void GarbageCollector::follow(const registry::KindInfo& kind, cacher::WatchCache& cache) {
    cacher::Follower::Handlers h;
    h.put = [this, &kind](const cacher::CachedObject& obj) {
        seen(kind, obj.bytes);
        return true;
    };
    h.remove = [this, &kind](const cacher::CachedObject& obj) {
        std::string_view uid = quickUid(obj.bytes);
        if (!uid.empty()) {
            graph_.forget(uid, pending_);
            return true;
        }
        ObjectInfo info;
        if (!objectInfo(kind, obj.bytes, &info)) {
            return false;
        }
        graph_.forget(info.uid, pending_);
        return true;
    };
    h.changed = [this] { enqueuePending(); };
    followers_[&kind] = std::make_unique<cacher::Follower>(cache, std::move(h));
    enqueuePending();
}

void GarbageCollector::unfollow(const registry::KindInfo& kind) {
    if (followers_.erase(&kind) == 0) {
        return;
    }
    graph_.forgetResource(kind.group, kind.resource, pending_);
    enqueuePending();
}

void GarbageCollector::seen(const registry::KindInfo& kind, std::string_view bytes) {
    std::string_view uid = quickUid(bytes);
    if (!uid.empty() && !mayMatter(bytes) && !graph_.node(uid)) {
        return;
    }
    ObjectInfo info;
    if (objectInfo(kind, bytes, &info)) {
        graph_.observe(std::move(info), pending_);
    }
}

void GarbageCollector::enqueuePending() {
    Work work = std::move(pending_);
    pending_ = Work();
    enqueue(work);
}

GarbageCollector::Stats GarbageCollector::stats() const {
    Stats s = stats_;
    s.queued = queue_.size();
    s.inFlight = inFlight_;
    return s;
}

std::shared_ptr<registry::Store> GarbageCollector::storeOf(const registry::KindInfo* kind) const {
    return kind ? stores_(*kind) : nullptr;
}

void GarbageCollector::enqueue(const Work& work) {
    for (const std::string& uid : work.attemptToDelete) {
        add(uid, false);
    }
    for (const std::string& uid : work.attemptToOrphan) {
        add(uid, true);
    }
}

void GarbageCollector::add(std::string uid, bool orphan) {
    auto& queued = orphan ? queuedOrphan_ : queuedDelete_;
    if (!queued.insert(uid).second) {
        return;
    }
    queue_.push_back(Item{std::move(uid), orphan});
    schedule();
}

// The work runs in posted tasks, never inside the cache's dispatch or a
// storage callback: one pass starts at most kItemsPerPass items.
void GarbageCollector::schedule() {
    if (scheduled_ || queue_.empty() || inFlight_ >= kMaxInFlight) {
        return;
    }
    scheduled_ = true;
    loop_.post([this, alive = alive_] {
        if (!*alive) {
            return;
        }
        scheduled_ = false;
        pump();
    });
}

void GarbageCollector::pump() {
    size_t started = 0;
    while (!queue_.empty() && inFlight_ < kMaxInFlight && started < kItemsPerPass) {
        Item item = std::move(queue_.front());
        queue_.pop_front();
        (item.orphan ? queuedOrphan_ : queuedDelete_).erase(item.uid);
        inFlight_++;
        started++;
        item.orphan ? attemptToOrphan(item) : attemptToDelete(item);
    }
    schedule();
}

void GarbageCollector::finished(const Item& item, bool ok) {
    inFlight_--;
    if (!ok) {
        stats_.retries++;
        retry_.push_back(item);
        if (!retryTimer_) {
            retryTimer_ = loop_.startTimer(kRetryDelay, [this, alive = alive_] {
                if (!*alive) {
                    return;
                }
                std::vector<Item> again = std::move(retry_);
                retry_.clear();
                retryTimer_.reset();
                for (Item& i : again) {
                    add(std::move(i.uid), i.orphan);
                }
            });
        }
    }
    schedule();
}

// Mirrors attemptToDeleteItem, on the object as stored now.
void GarbageCollector::attemptToDelete(const Item& item) {
    const Node* n = graph_.node(item.uid);
    std::shared_ptr<registry::Store> store = n && n->observed ? storeOf(n->info.kind) : nullptr;
    if (!store) {
        finished(item, true);  // virtual, or gone meanwhile
        return;
    }
    const registry::KindInfo* kind = n->info.kind;
    store->get(
        n->info.ns, n->info.name,
        [this, alive = alive_, item, kind, store](const meta::Status* err, std::string_view obj) {
            if (!*alive) {
                return;
            }
            auto latest = std::make_shared<ObjectInfo>();
            if (err || !objectInfo(*kind, obj, latest.get()) || latest->uid != item.uid) {
                // Gone or replaced: its deletion event does the rest.
                finished(item, !err || err->code == 404);
                return;
            }
            if (latest->deletingDependents) {
                // processDeletingDependentsItem
                std::vector<const Node*> blocking = graph_.blockingDependents(item.uid);
                if (blocking.empty()) {
                    removeFinalizer(item, *latest, registry::kFinalizerForeground);
                    return;
                }
                for (const Node* d : blocking) {
                    if (!d->info.deletingDependents) {
                        add(d->info.uid, false);
                    }
                }
                finished(item, true);
                return;
            }
            if (latest->deleting || latest->owners.empty()) {
                finished(item, true);
                return;
            }
            classify(item, latest);
        });
}

// classifyReferences, then the decision of attemptToDeleteItem. An owner in
// the graph is taken as the graph has it; any other is read from the store
// (kube's isDangling): absent, or present with another uid, it is dangling.
struct GarbageCollector::Classification {
    Item item;
    std::shared_ptr<ObjectInfo> latest;
    size_t next = 0;
    std::vector<std::string> solid, dangling, waiting;
};

void GarbageCollector::classify(const Item& item, std::shared_ptr<ObjectInfo> latest) {
    auto c = std::make_shared<Classification>();
    c->item = item;
    c->latest = std::move(latest);
    classifyNext(c);
}

void GarbageCollector::classifyNext(std::shared_ptr<Classification> c) {
    const ObjectInfo& obj = *c->latest;
    size_t budget = kRefsPerPass;
    while (c->next < obj.owners.size()) {
        if (budget-- == 0) {
            // An object may name tens of thousands of owners: the rest later.
            loop_.post([this, alive = alive_, c] {
                if (*alive) {
                    classifyNext(c);
                }
            });
            return;
        }
        const OwnerReference& ref = obj.owners[c->next++];
        if (const Node* o = graph_.node(ref.uid); o && o->observed) {
            (o->info.deletingDependents ? c->waiting : c->solid).push_back(ref.uid);
            continue;
        }
        auto [group, version] = splitApiVersion(ref.apiVersion);
        const registry::KindInfo* ownerKind = scheme_.findKind(group, version, ref.kind);
        std::shared_ptr<registry::Store> store = ownerKind ? stores_(*ownerKind) : nullptr;
        if (!store || (ownerKind->namespaced && obj.ns.empty())) {
            c->solid.push_back(ref.uid);  // cannot be resolved: left alone
            continue;
        }
        std::string uid = ref.uid;
        store->get(ownerKind->namespaced ? obj.ns : "", ref.name,
                   [this, alive = alive_, c, uid, ownerKind, store](const meta::Status* err,
                                                                    std::string_view bytes) {
                       if (!*alive) {
                           return;
                       }
                       ObjectInfo owner;
                       if (err && err->code != 404) {
                           c->solid.push_back(uid);  // unknown: not collected on a guess
                       } else if (err || !objectInfo(*ownerKind, bytes, &owner) ||
                                  owner.uid != uid) {
                           c->dangling.push_back(uid);
                       } else {
                           (owner.deletingDependents ? c->waiting : c->solid).push_back(uid);
                           // Known now: the owner's other dependents need no read
                           // (unless its kind went meanwhile: the graph keeps
                           // only kinds the scheme serves).
                           if (scheme_.find(ownerKind->group, ownerKind->version,
                                            ownerKind->resource) == ownerKind) {
                               Work work;
                               graph_.observe(std::move(owner), work);
                               enqueue(work);
                           }
                       }
                       loop_.post([this, alive, c] {
                           if (*alive) {
                               classifyNext(c);
                           }
                       });
                   });
        return;
    }
    decide(c);
}

void GarbageCollector::decide(std::shared_ptr<Classification> c) {
    const ObjectInfo& obj = *c->latest;
    if (!c->solid.empty()) {
        if (c->dangling.empty() && c->waiting.empty()) {
            finished(c->item, true);
            return;
        }
        // The references to owners that are gone or waiting go; the live
        // owner keeps the object.
        std::vector<std::string> drop = c->dangling;
        drop.insert(drop.end(), c->waiting.begin(), c->waiting.end());
        removeOwnerRefs(obj, std::move(drop), [this, item = c->item](bool ok) {
            finished(item, ok);
        });
        return;
    }
    const Node* self = graph_.node(c->item.uid);
    if (!c->waiting.empty() && self && !self->dependents.empty()) {
        // An owner waits for it and it has dependents of its own: they go first.
        deleteObject(c->item, obj, "Foreground");
        return;
    }
    deleteObject(c->item, obj, "Background");
}

void GarbageCollector::deleteObject(const Item& item, const ObjectInfo& obj, const char* policy) {
    std::shared_ptr<registry::Store> store = storeOf(obj.kind);
    if (!store) {
        finished(item, true);  // its kind is no longer served
        return;
    }
    registry::DeleteOptions opts;
    opts.uid = obj.uid;
    opts.propagationPolicy = policy;
    store->remove(obj.ns, obj.name, opts,
                  [this, alive = alive_, item, store](const meta::Status* err,
                                                      const registry::DeleteResult&) {
                      if (!*alive) {
                          return;
                      }
                      if (!err) {
                          stats_.deleted++;
                      }
                      // Gone already, or replaced (the uid precondition): done.
                      finished(item, !err || err->code == 404 || err->code == 409);
                  });
}

// A patch that keeps the object but for `change`, refused (409) when the
// stored object is no longer the one with `uid`.
namespace {

registry::Store::PatchFn edit(std::string uid, std::function<void(json::Document&)> change) {
    return [uid, change](const json::Value& current,
                         json::Document& patched) -> std::optional<meta::Status> {
        patched.CopyFrom(current, patched.GetAllocator());
        if (json::stringMember(registry::ensureMetadata(patched), "uid") != uid) {
            return meta::Status::conflict({}, "", "the object was replaced");
        }
        change(patched);
        return std::nullopt;
    };
}

}  // namespace

void GarbageCollector::removeFinalizer(const Item& item, const ObjectInfo& obj,
                                       std::string_view finalizer) {
    std::shared_ptr<registry::Store> store = storeOf(obj.kind);
    if (!store) {
        finished(item, true);
        return;
    }
    std::string f(finalizer);
    store->patch(obj.ns, obj.name,
                 edit(obj.uid,
                      [f](json::Document& doc) {
                          std::vector<std::string> kept = registry::finalizersOf(doc);
                          kept.erase(std::remove(kept.begin(), kept.end(), f), kept.end());
                          registry::setFinalizers(doc, kept);
                      }),
                 {},
                 [this, alive = alive_, item, store](const meta::Status* err, std::string_view) {
                     if (!*alive) {
                         return;
                     }
                     if (!err) {
                         stats_.finalizersRemoved++;
                     }
                     finished(item, !err || err->code == 404 || err->code == 409);
                 });
}

void GarbageCollector::removeOwnerRefs(const ObjectInfo& obj, std::vector<std::string> owners,
                                       std::function<void(bool ok)> done) {
    std::shared_ptr<registry::Store> store = storeOf(obj.kind);
    if (!store) {
        done(true);  // its kind is no longer served: no reference to drop
        return;
    }
    store->patch(obj.ns, obj.name,
                 edit(obj.uid,
                      [owners](json::Document& doc) {
                          json::Value& metadata = doc["metadata"];
                          json::Value* refs = json::member(metadata, "ownerReferences");
                          if (!refs || !refs->IsArray()) {
                              return;
                          }
                          for (auto it = refs->Begin(); it != refs->End();) {
                              std::string uid(
                                  it->IsObject() ? json::stringMember(*it, "uid") : "");
                              if (std::find(owners.begin(), owners.end(), uid) != owners.end()) {
                                  it = refs->Erase(it);
                              } else {
                                  ++it;
                              }
                          }
                          if (refs->Empty()) {
                              json::removeMember(metadata, "ownerReferences");
                          }
                      }),
                 {},
                 [this, alive = alive_, done, store](const meta::Status* err, std::string_view) {
                     if (!*alive) {
                         return;
                     }
                     if (!err) {
                         stats_.ownerRefsRemoved++;
                     }
                     done(!err || err->code == 404 || err->code == 409);
                 });
}

// Mirrors attemptToOrphanWorker: every dependent loses its reference to the
// owner (a few at a time), then the owner loses the orphan finalizer.
struct GarbageCollector::Orphaning {
    Item item;
    ObjectInfo owner;
    std::vector<ObjectInfo> dependents;
    size_t next = 0;
    size_t running = 0;
    bool ok = true;
    bool done = false;
};

void GarbageCollector::attemptToOrphan(const Item& item) {
    const Node* n = graph_.node(item.uid);
    if (!n || !n->observed || !n->info.orphaning) {
        finished(item, true);
        return;
    }
    auto state = std::make_shared<Orphaning>();
    state->item = item;
    state->owner = n->info;
    for (const Node* d : graph_.dependents(item.uid)) {
        if (d->observed) {
            state->dependents.push_back(d->info);
        }
    }
    orphanNext(state);
}

void GarbageCollector::orphanNext(std::shared_ptr<Orphaning> o) {
    while (o->running < kOrphanParallelism && o->next < o->dependents.size()) {
        const ObjectInfo& d = o->dependents[o->next++];
        o->running++;
        removeOwnerRefs(d, {o->item.uid}, [this, alive = alive_, o](bool ok) {
            o->running--;
            o->ok = o->ok && ok;
            loop_.post([this, alive, o] {
                if (*alive) {
                    orphanNext(o);
                }
            });
        });
    }
    if (o->running > 0 || o->next < o->dependents.size() || o->done) {
        return;
    }
    o->done = true;
    if (!o->ok) {
        finished(o->item, false);
        return;
    }
    removeFinalizer(o->item, o->owner, registry::kFinalizerOrphan);
}

}  // namespace kube::garbagecollector
