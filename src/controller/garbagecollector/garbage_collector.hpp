#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "controller/garbagecollector/graph.hpp"
#include "registry/scheme.hpp"
#include "registry/store.hpp"
#include "storage/cacher/follower.hpp"
#include "util/event_loop.hpp"

namespace kube::garbagecollector {

// The garbage collector kube runs in kube-controller-manager, run inside
// the server (as kcp's generic control plane does); mirrors
// pkg/controller/garbagecollector: the graph builder follows every kind's
// watch cache, and two queues drive the work:
// - attemptToDelete: an object whose owners may all be gone (by uid) is
//   deleted, with the propagation its own finalizers ask for; references to
//   owners that are gone or deleting in the foreground are dropped when the
//   object still has a live owner; an owner deleting in the foreground loses
//   its foregroundDeletion finalizer once no dependent blocks it.
// - attemptToOrphan: an owner with the orphan finalizer has its dependents'
//   references to it removed, then the finalizer.
// Writes go through the generic stores (as the server's own writes), so a
// removed last finalizer deletes the object there.
//
// Bounded: at most kMaxInFlight operations at a time and kItemsPerPass
// started per pass of the loop, the rest in a posted task; every storage
// call is asynchronous and comes back on the loop. One worker of a host
// runs it (the server's owner worker). Loop thread only.
class GarbageCollector {
public:
    static constexpr size_t kMaxInFlight = 64;
    static constexpr size_t kItemsPerPass = 256;
    // Owner references classified per pass for one object.
    static constexpr size_t kRefsPerPass = 512;
    // Dependents orphaned at a time for one owner.
    static constexpr size_t kOrphanParallelism = 16;
    // Failed items are tried again after this.
    static constexpr std::chrono::milliseconds kRetryDelay{1000};

    // The store of a kind (null: the kind is not stored, or no longer
    // served). The collector holds it while a call on it runs, and the store
    // holds its kind.
    using StoreFor = std::function<std::shared_ptr<registry::Store>(const registry::KindInfo&)>;

    GarbageCollector(util::EventLoop& loop, const registry::Scheme& scheme, StoreFor stores);
    ~GarbageCollector();
    GarbageCollector(const GarbageCollector&) = delete;
    GarbageCollector& operator=(const GarbageCollector&) = delete;

    // Adds what `cache` (of `kind`) holds to the graph and follows its events.
    void follow(const registry::KindInfo& kind, storage::cacher::WatchCache& cache);
    // Stops following `kind` (its resource is about to leave the scheme, all
    // versions): its objects leave the graph, their dependents are looked
    // at, and no node refers to the resource's kinds afterwards. Calls
    // already running hold their store (and it its kind).
    void unfollow(const registry::KindInfo& kind);
    bool follows(const registry::KindInfo* kind) const { return followers_.count(kind) > 0; }

    const Graph& graph() const { return graph_; }
    struct Stats {
        uint64_t deleted = 0;         // deletes the collector issued that succeeded
        uint64_t ownerRefsRemoved = 0;  // dependents patched (orphaned, or dangling refs dropped)
        uint64_t finalizersRemoved = 0;
        uint64_t retries = 0;
        size_t queued = 0;
        size_t inFlight = 0;
    };
    Stats stats() const;

private:
    struct Item {
        std::string uid;
        bool orphan = false;
    };

    // Adds one object of `kind` to the graph when it belongs there; its
    // work joins pending_.
    void seen(const registry::KindInfo& kind, std::string_view bytes);
    // Queues pending_'s work and empties it.
    void enqueuePending();
    void enqueue(const Work& work);
    void add(std::string uid, bool orphan);
    void schedule();
    void pump();
    void finished(const Item& item, bool ok);
    void attemptToDelete(const Item& item);
    void attemptToOrphan(const Item& item);
    struct Classification;
    struct Orphaning;
    void classify(const Item& item, std::shared_ptr<ObjectInfo> latest);
    void classifyNext(std::shared_ptr<Classification> c);
    void decide(std::shared_ptr<Classification> c);
    void orphanNext(std::shared_ptr<Orphaning> o);
    void removeFinalizer(const Item& item, const ObjectInfo& obj, std::string_view finalizer);
    void removeOwnerRefs(const ObjectInfo& obj, std::vector<std::string> owners,
                         std::function<void(bool ok)> done);
    void deleteObject(const Item& item, const ObjectInfo& obj, const char* policy);
    std::shared_ptr<registry::Store> storeOf(const registry::KindInfo* kind) const;

    util::EventLoop& loop_;
    const registry::Scheme& scheme_;
    StoreFor stores_;
    Graph graph_;
    std::map<const registry::KindInfo*, std::unique_ptr<storage::cacher::Follower>> followers_;
    // What the followers' objects and events called for, not yet queued.
    Work pending_;
    std::deque<Item> queue_;
    std::unordered_set<std::string> queuedDelete_;
    std::unordered_set<std::string> queuedOrphan_;
    std::vector<Item> retry_;
    std::unique_ptr<util::EventLoop::Timer> retryTimer_;
    size_t inFlight_ = 0;
    bool scheduled_ = false;
    Stats stats_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::garbagecollector
