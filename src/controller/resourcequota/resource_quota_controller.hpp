#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "registry/kind.hpp"
#include "storage/cacher/follower.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"

namespace kube::resourcequota {

// The quota controller kube runs in kube-controller-manager, run inside the
// server; mirrors pkg/controller/resourcequota: every ResourceQuota's
// status.hard mirrors its spec.hard, and its status.used is the usage of
// the objects of its namespace that it matches (admission/quota_evaluator).
//
// Design: it follows the watch caches of every namespaced kind; an event in
// a namespace that has quotas (and a quota whose spec.hard is not yet its
// status.hard) marks the namespace dirty. A posted task recounts at most
// kNamespacesPerPass dirty namespaces per pass from the watch caches (in
// memory, no storage read) and writes a quota's status only when it
// differs, as a compare-and-swap on the revision it read: a concurrent
// write (admission charging the quota) marks the namespace dirty again.
// Admission charges a quota before the object is written, so a recount in
// between counts one object too few until the object's own event recounts;
// a charge whose write failed is undone by the next recount, at the latest
// by the full resync every kResyncPeriod. Runs on one worker of a host (the
// server's owner worker); loop thread only.
class ResourceQuotaController {
  public:
    static constexpr size_t kNamespacesPerPass = 16;
    static constexpr std::chrono::milliseconds kResyncPeriod{5 * 60 * 1000};

    ResourceQuotaController(util::EventLoop& loop, storage::Interface& storage,
                            const registry::KindInfo& quotas);
    ~ResourceQuotaController();
    ResourceQuotaController(const ResourceQuotaController&) = delete;
    ResourceQuotaController& operator=(const ResourceQuotaController&) = delete;

    // Counts the objects `cache` (of namespaced `kind`) holds and follows it.
    void follow(const registry::KindInfo& kind, storage::cacher::WatchCache& cache);
    // Stops counting `kind` (about to leave the scheme); every namespace
    // with a quota is recounted without it.
    void unfollow(const registry::KindInfo& kind);

    struct Stats {
        uint64_t recounts = 0;
        uint64_t statusWrites = 0;
    };
    Stats stats() const { return stats_; }

  private:
    // One kind's cache and what follows it.
    struct Followed {
        const registry::KindInfo* kind;
        storage::cacher::WatchCache* cache;
        std::unique_ptr<storage::cacher::Follower> follower;
    };

    // An object of `kind` changed (or was deleted): marks its namespace
    // dirty when that calls for a recount.
    void observe(const registry::KindInfo& kind, const storage::cacher::CachedObject& obj,
                 bool deleted);
    void markDirty(const std::string& ns);
    // Every namespace that has a quota.
    void markQuotasDirty();
    void schedule();
    void pump();
    void recount(const std::string& ns);
    void resync();

    util::EventLoop& loop_;
    storage::Interface& storage_;
    const registry::KindInfo& quotas_;
    storage::cacher::WatchCache* quotaCache_ = nullptr;
    std::vector<Followed> followed_;
    std::set<std::string> dirty_;
    bool scheduled_ = false;
    std::unique_ptr<util::EventLoop::Timer> resyncTimer_;
    Stats stats_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::resourcequota
