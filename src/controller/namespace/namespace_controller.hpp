#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "registry/scheme.hpp"
#include "registry/store.hpp"
#include "storage/cacher/follower.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"
#include "util/json.hpp"

namespace kube::namespacecontroller {

// The namespace controller kube runs in kube-controller-manager, run inside
// the server; mirrors pkg/controller/namespace and its deletion package
// (namespacedResourcesDeleter). A namespace being deleted (deletionTimestamp
// set, "kubernetes" in spec.finalizers) is worked on in passes off the
// request path:
// - every object of every namespaced kind in it is deleted through its
//   kind's store (Store::remove, background propagation), so finalizers,
//   graceful deletion and the garbage collector's rules apply; objects
//   already being deleted are left to finish;
// - the namespace is listed again: while objects remain, its status gets
//   kube's deletion conditions (NamespaceDeletionDiscoveryFailure,
//   NamespaceDeletionGroupVersionParsingFailure, NamespaceDeletionContent-
//   Failure, NamespaceContentRemaining, NamespaceFinalizersRemaining, with
//   kube 1.26's reasons and messages) and another pass follows after
//   kRequeueDelay (kube waits its estimate: 5 s for finalizers);
// - once empty, "kubernetes" leaves spec.finalizers (what the finalize
//   subresource does) and the namespace is removed unless other finalizers
//   remain on it.
//
// Bounded: at most kMaxPasses namespaces at a time (the rest queued) and
// kParallelism deletes in flight per namespace; every storage call is
// asynchronous. Each worker runs the passes of the deletes it answered;
// the owner worker also follows the namespaces' watch cache, so a
// namespace left terminating (a restart, another worker's exit) is
// finished. Passes of two workers on one namespace are harmless: deletes
// of objects already gone are ignored and namespace writes are
// compare-and-swap. Loop thread only.
class NamespaceController {
  public:
    static constexpr size_t kMaxPasses = 4;
    static constexpr size_t kParallelism = 16;
    static constexpr std::chrono::milliseconds kRequeueDelay{1000};

    // The store of a kind; outlives the controller.
    using StoreFor = std::function<registry::Store*(const registry::KindInfo&)>;

    NamespaceController(util::EventLoop& loop, storage::Interface& storage,
                        const registry::Scheme& scheme, const registry::KindInfo& namespaces,
                        StoreFor stores);
    ~NamespaceController();
    NamespaceController(const NamespaceController&) = delete;
    NamespaceController& operator=(const NamespaceController&) = delete;

    // Works on namespace `name` (a no-op unless it is being deleted).
    void enqueue(const std::string& name);
    // Enqueues every terminating namespace `cache` holds, now and as they change.
    void follow(storage::cacher::WatchCache& cache);

  private:
    struct Pass;

    std::vector<std::shared_ptr<const registry::KindInfo>> kinds() const;
    void pump();
    void start(const std::string& name);
    void finished(const std::string& name, bool again, std::chrono::milliseconds delay);
    void listContent(std::shared_ptr<Pass> p, size_t kind);
    void deleteContent(std::shared_ptr<Pass> p);
    void countRemaining(std::shared_ptr<Pass> p, size_t kind);
    void readNamespace(std::shared_ptr<Pass> p,
                       std::function<void(util::json::Document& ns, storage::Revision)> then);
    void writeConditions(std::shared_ptr<Pass> p);
    void finalize(std::shared_ptr<Pass> p);

    util::EventLoop& loop_;
    storage::Interface& storage_;
    const registry::Scheme& scheme_;
    const registry::KindInfo& namespaces_;
    StoreFor stores_;
    std::deque<std::string> queue_;
    std::set<std::string> queued_;
    std::set<std::string> running_;
    std::set<std::string> rerun_;  // enqueued again while running
    std::map<std::string, std::unique_ptr<util::EventLoop::Timer>> waiting_;
    std::unique_ptr<storage::cacher::Follower> follower_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::namespacecontroller
