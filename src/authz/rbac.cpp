#include "authz/rbac.hpp"

#include "authz/policy_rule.hpp"
#include "util/go_text.hpp"

namespace kube::authz {

namespace json = util::json;
namespace cacher = storage::cacher;

RbacAuthorizer::RbacAuthorizer() = default;
RbacAuthorizer::~RbacAuthorizer() = default;

void RbacAuthorizer::follow(RbacResource resource, cacher::WatchCache& cache) {
    cacher::Follower::JsonHandlers h;
    h.replacing = [this, resource] { index_.clear(resource); };
    h.put = [this, resource](const json::Value& obj) { index_.put(resource, obj); };
    h.remove = [this, resource](std::string_view namespace_, std::string_view name) {
        index_.remove(resource, namespace_, name);
    };
    followers_[static_cast<size_t>(resource)] =
        std::make_unique<cacher::Follower>(cache, std::move(h));
}

Result RbacAuthorizer::authorize(const Attributes& attrs) const {
    std::string key = DecisionCache::keyOf(attrs);
    if (const Result* kept = decisions_.find(key, index_.generation())) {
        return *kept;
    }
    Result res = decide(attrs);
    decisions_.put(std::move(key), index_.generation(), res);
    return res;
}

Result RbacAuthorizer::decide(const Attributes& attrs) const {
    Result res;
    std::vector<std::string> errors;
    index_.visitRulesFor(
        attrs.user, attrs.namespace_,
        [&](const Binding& b, const Subject& s, const PolicyRule* rule, const std::string* error) {
            if (rule && ruleAllows(attrs, *rule)) {
                res.decision = Decision::Allow;
                res.reason = "RBAC: allowed by " + RbacIndex::describe(b, s);
                return false;
            }
            if (error) {
                errors.push_back(*error);
            }
            return true;
        });
    if (res.decision == Decision::Allow || errors.empty()) {
        return res;
    }
    res.reason = "RBAC: " + util::aggregateErrors(errors);
    return res;
}

SubjectRules RbacAuthorizer::rulesFor(const authn::UserInfo& user,
                                      std::string_view namespace_) const {
    SubjectRules out;
    for (PolicyRule& r : index_.rulesFor(user, namespace_, &out.errors)) {
        if (!r.resources.empty()) {
            out.resourceRules.push_back({r.verbs, r.apiGroups, r.resources, r.resourceNames, {}});
        }
        if (!r.nonResourceURLs.empty()) {
            out.nonResourceRules.push_back(
                {std::move(r.verbs), {}, {}, {}, std::move(r.nonResourceURLs)});
        }
    }
    return out;
}

}  // namespace kube::authz
