#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "registry/store.hpp"
#include "storage/cacher/follower.hpp"
#include "storage/cacher/watch_cache.hpp"
#include "storage/interface.hpp"
#include "util/event_loop.hpp"
#include "util/json.hpp"

namespace kube::controller::apiextensions {

// The status controllers of kube's apiextensions-apiserver, run on the owner
// worker (one per host, so that two workers never race to reserve a name):
// - naming (NamingConditionController): status.acceptedNames and the
//   NamesAccepted condition (controller/apiextensions/naming);
// - establishing (EstablishingController): Established once the names are
//   accepted;
// - the finalizer (CRDFinalizer): a definition being deleted (marked, with
//   the customresourcecleanup.apiextensions.k8s.io finalizer its delete
//   added) gets Terminating InstanceDeletionInProgress, then every custom
//   resource it defines, in every namespace, is deleted through a store of
//   its storage version (finalizers and graceful deletion apply, watchers
//   see DELETED), and once none is left (checked at once, then every
//   kFinalizerPoll for up to kFinalizerWait) the finalizer goes, with
//   Terminating False InstanceDeletionCompleted (NeverEstablished for one
//   never served), which deletes the definition. Failures are written as
//   kube writes them (InstanceDeletionFailed, InstanceDeletionCheck) and
//   retried after kRetryDelay.
//
// Every change is a status update of the definition through its store,
// compare-and-swap on the resourceVersion this worker's cache showed: a
// conflict is dropped, and the event that caused it brings the definition
// back. What a write returned is used until the cache catches up (kube's
// mutation cache), so two definitions asking for one name are told apart.
// Definitions are worked on one at a time; finalizations run beside. Loop
// thread only.
class DefinitionController {
  public:
    static constexpr std::chrono::milliseconds kFinalizerPoll{1000};
    static constexpr std::chrono::milliseconds kFinalizerWait{60000};
    static constexpr std::chrono::milliseconds kRetryDelay{1000};

    DefinitionController(util::EventLoop& loop, storage::Interface& storage,
                         storage::cacher::WatchCache& definitions, registry::Store& store);
    ~DefinitionController();
    DefinitionController(const DefinitionController&) = delete;
    DefinitionController& operator=(const DefinitionController&) = delete;

  private:
    struct Finalization;
    using Doc = std::shared_ptr<util::json::Document>;

    void put(Doc crd);
    void removed(const std::string& name);
    void enqueue(const std::string& name);
    void requeueGroup(const std::string& name);
    void pump();
    void sync(const std::string& name);
    void done();
    // A status update of `crd`; `then` gets the stored result, or null.
    void writeStatus(const Doc& crd, std::function<void(Doc)> then);

    void finalize(const std::string& name, Doc crd);
    void deleteInstances(std::shared_ptr<Finalization> f);
    void deleteNamespaces(std::shared_ptr<Finalization> f);
    void checkInstances(std::shared_ptr<Finalization> f);
    void finishFinalization(std::shared_ptr<Finalization> f, bool failed);

    util::EventLoop& loop_;
    storage::Interface& storage_;
    registry::Store& store_;
    std::map<std::string, Doc> crds_;
    std::deque<std::string> queue_;
    std::set<std::string> queued_;
    bool busy_ = false;
    std::set<std::string> finalizing_;
    std::map<std::string, std::unique_ptr<util::EventLoop::Timer>> retries_;
    std::unique_ptr<storage::cacher::Follower> follower_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::controller::apiextensions
