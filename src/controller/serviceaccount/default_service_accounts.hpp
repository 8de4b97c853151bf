#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>

#include "storage/cacher/follower.hpp"
#include "util/event_loop.hpp"

// What kube's serviceaccounts controller keeps true
// (pkg/controller/serviceaccount/serviceaccounts_controller.go): every
// active namespace holds a ServiceAccount named "default", made when the
// namespace appears and made again when it is deleted. kube runs it in
// kube-controller-manager; this server runs it itself, on one worker of the
// host, so that an embedded install needs nothing else.
//
// It follows the watch caches of namespaces and serviceaccounts. Creates
// run from posted tasks, never inside a cache's dispatch, at most
// kMaxInFlight at a time; a failed one is tried again a second later.
// Loop thread only.
namespace kube::controller::serviceaccount {

class DefaultServiceAccounts {
  public:
    // Makes namespace `ns`'s default ServiceAccount; `done(ok)` on the loop
    // (an account that exists already is ok).
    using CreateFn = std::function<void(const std::string& ns, std::function<void(bool ok)> done)>;

    // `accountsPrefix` is the key prefix of serviceaccounts in every
    // namespace ("/registry/serviceaccounts/").
    DefaultServiceAccounts(util::EventLoop& loop, storage::cacher::WatchCache& namespaces,
                           storage::cacher::WatchCache& accounts, std::string accountsPrefix,
                           CreateFn create);
    ~DefaultServiceAccounts();
    DefaultServiceAccounts(const DefaultServiceAccounts&) = delete;
    DefaultServiceAccounts& operator=(const DefaultServiceAccounts&) = delete;

    // Looks at every namespace there is; then follows the caches.
    void start();

  private:
    static constexpr int kMaxInFlight = 16;

    // Checks every namespace the namespaces cache holds.
    void checkAll();

    // Queues `ns` when it is active and has no default account.
    void check(const std::string& ns);
    // Whether the namespace `ns` exists and is not terminating.
    bool active(const std::string& ns) const;
    bool hasDefault(const std::string& ns) const;
    void schedule();
    void run();
    // `ns` is queued again a second from now.
    void retryLater(const std::string& ns);

    util::EventLoop& loop_;
    storage::cacher::WatchCache& namespaces_;
    storage::cacher::WatchCache& accounts_;
    std::string accountsPrefix_;
    CreateFn create_;
    std::unique_ptr<storage::cacher::Follower> namespaceFollower_;
    std::unique_ptr<storage::cacher::Follower> accountFollower_;
    std::set<std::string> queued_;
    std::set<std::string> failed_;
    bool retrying_ = false;
    bool scheduled_ = false;
    int inFlight_ = 0;
    std::unique_ptr<util::EventLoop::Timer> retry_;
    // Cleared by the destructor: posted tasks and callbacks check it.
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace kube::controller::serviceaccount
