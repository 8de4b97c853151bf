#include "authz/union.hpp"

#include <algorithm>

namespace kube::authz {

Union::Union(std::vector<const Authorizer*> authorizers, std::vector<std::string> privilegedGroups)
    : authorizers_(std::move(authorizers)), privilegedGroups_(std::move(privilegedGroups)) {}

Result Union::authorize(const Attributes& attrs) const {
    for (const std::string& g : privilegedGroups_) {
        const auto& groups = attrs.user.groups;
        if (std::find(groups.begin(), groups.end(), g) != groups.end()) {
            return {Decision::Allow, ""};
        }
    }
    std::string reasons;
    for (const Authorizer* a : authorizers_) {
        Result r = a->authorize(attrs);
        if (r.decision != Decision::NoOpinion) {
            return r;
        }
        if (!r.reason.empty()) {
            if (!reasons.empty()) {
                reasons += '\n';
            }
            reasons += r.reason;
        }
    }
    return {Decision::NoOpinion, std::move(reasons)};
}

SubjectRules Union::rulesFor(const authn::UserInfo& user, std::string_view namespace_) const {
    SubjectRules out;
    for (const Authorizer* a : authorizers_) {
        SubjectRules r = a->rulesFor(user, namespace_);
        out.incomplete = out.incomplete || r.incomplete;
        for (PolicyRule& rule : r.resourceRules) {
            out.resourceRules.push_back(std::move(rule));
        }
        for (PolicyRule& rule : r.nonResourceRules) {
            out.nonResourceRules.push_back(std::move(rule));
        }
        for (std::string& e : r.errors) {
            out.errors.push_back(std::move(e));
        }
    }
    return out;
}

}  // namespace kube::authz
