#pragma once

#include <array>
#include <memory>

#include "authz/authorizer.hpp"
#include "authz/decision_cache.hpp"
#include "authz/rbac_index.hpp"
#include "storage/cacher/follower.hpp"

namespace kube::authz {

// The RBAC authorizer of one worker; mirrors rbac.RBACAuthorizer. It answers
// from its RbacIndex, which follows the watch caches of the four RBAC
// resources (as kube's follows its informers): every event a cache applies
// updates the index at once, so a binding written by any worker counts on
// this one as soon as this worker's cacher has polled the change. No request
// reads the store. Loop thread only.
class RbacAuthorizer : public Authorizer {
  public:
    RbacAuthorizer();
    ~RbacAuthorizer() override;
    RbacAuthorizer(const RbacAuthorizer&) = delete;
    RbacAuthorizer& operator=(const RbacAuthorizer&) = delete;

    // Fills the index with what `cache` holds of `resource` and follows its
    // events from now on. `cache` must outlive this authorizer.
    void follow(RbacResource resource, storage::cacher::WatchCache& cache);

    Result authorize(const Attributes& attrs) const override;
    SubjectRules rulesFor(const authn::UserInfo& user, std::string_view namespace_) const override;

    const RbacIndex& index() const { return index_; }
    RbacIndex& index() { return index_; }

  private:
    Result decide(const Attributes& attrs) const;

    RbacIndex index_;
    // This worker's answers at the index's current generation.
    mutable DecisionCache decisions_;
    std::array<std::unique_ptr<storage::cacher::Follower>, 4> followers_;
};

}  // namespace kube::authz
