#include "authz/rbac.hpp"

#include "authz/policy_rule.hpp"
#include "util/go_text.hpp"

namespace kube::authz {

namespace json = util::json;
namespace cacher = storage::cacher;

// Keeps the index in step with one resource's watch cache.
class RbacAuthorizer::Follower : public cacher::CacheWatcher {
  public:
    Follower(RbacIndex& index, RbacResource resource, cacher::WatchCache& cache)
        : index_(index), resource_(resource), cache_(cache) {
        refill();
        cache_.addWatcher(this);
    }
    ~Follower() override { cache_.removeWatcher(this); }

    void onEvent(const cacher::EventRef& event) override {
        json::Document doc;
        if (!event->object || json::parse(event->object->bytes, doc) || !doc.IsObject()) {
            return;
        }
        if (event->type != cacher::WatchEvent::Type::Deleted) {
            index_.put(resource_, doc);
            return;
        }
        const json::Value* meta = json::member(doc, "metadata");
        if (meta) {
            index_.remove(resource_, json::stringMember(*meta, "namespace"),
                          json::stringMember(*meta, "name"));
        }
    }

    // The cache was refilled from the store: start over from its state.
    void onReset() override { refill(); }

  private:
    void refill() {
        index_.clear(resource_);
        cacher::WatchCache::Page page;
        if (!cache_.list(cache_.prefix(), "", 0, nullptr, 0, &page)) {
            return;
        }
        for (const cacher::ObjectRef& obj : page.items) {
            json::Document doc;
            if (!json::parse(obj->bytes, doc) && doc.IsObject()) {
                index_.put(resource_, doc);
            }
        }
    }

    RbacIndex& index_;
    RbacResource resource_;
    cacher::WatchCache& cache_;
};

RbacAuthorizer::RbacAuthorizer() = default;
RbacAuthorizer::~RbacAuthorizer() = default;

void RbacAuthorizer::follow(RbacResource resource, cacher::WatchCache& cache) {
    followers_[static_cast<size_t>(resource)] = std::make_unique<Follower>(index_, resource, cache);
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
