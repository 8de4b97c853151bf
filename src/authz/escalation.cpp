#include "authz/escalation.hpp"

#include <algorithm>
#include <set>

#include "authz/covers.hpp"
#include "authz/policy_json.hpp"
#include "util/go_text.hpp"

namespace kube::authz {

namespace json = util::json;

namespace {

constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";

meta::GroupResource rbacResource(std::string_view resource) {
    return {kRbacGroup, std::string(resource)};
}

// The name the Forbidden error carries: the object's.
std::string objectName(const json::Value& obj) {
    const json::Value* meta = json::member(obj, "metadata");
    return meta ? std::string(json::stringMember(*meta, "name")) : std::string();
}

bool hasAggregationRule(const json::Value* role) {
    if (role == nullptr || !role->IsObject()) {
        return false;
    }
    const json::Value* selectors = json::at(*role, {"aggregationRule", "clusterRoleSelectors"});
    return selectors != nullptr && selectors->IsArray() && !selectors->Empty();
}

// What kube calls fullAuthority: everything, resource and non-resource.
const std::vector<PolicyRule>& fullAuthority() {
    static const std::vector<PolicyRule> rules = {{{"*"}, {"*"}, {"*"}, {}, {}},
                                                  {{"*"}, {}, {}, {}, {"*"}}};
    return rules;
}

}  // namespace

bool escalationAllowed(const authn::UserInfo* user) {
    if (user == nullptr) {
        return true;
    }
    const auto& g = user->groups;
    return std::find(g.begin(), g.end(), kSystemPrivilegedGroup) != g.end();
}

std::optional<std::string> escalationError(const authn::UserInfo& user,
                                           const std::vector<PolicyRule>& held,
                                           const std::vector<PolicyRule>& requested,
                                           const std::vector<std::string>& resolutionErrors) {
    std::vector<PolicyRule> missing = uncoveredRules(held, requested);
    if (missing.empty()) {
        return std::nullopt;
    }
    // A sorted set of the compacted missing rules, as kube's sets.String.
    std::set<std::string> lines;
    for (const PolicyRule& r : compactRules(missing)) {
        lines.insert(compactString(r));
    }
    std::string msg = "user ";
    json::appendQuoted(msg, user.name);
    msg += " (groups=" + util::quotedList(user.groups) +
           ") is attempting to grant RBAC permissions not currently held:";
    for (const std::string& line : lines) {
        msg += "\n" + line;
    }
    if (!resolutionErrors.empty()) {
        msg += "; resolution errors: [" + util::aggregateErrors(resolutionErrors) + "]";
    }
    return msg;
}

bool onlyMutatesGCFields(const json::Value& obj, const json::Value& old) {
    if (!obj.IsObject() || !old.IsObject()) {
        return false;
    }
    json::Document a;
    json::Document b;
    a.CopyFrom(obj, a.GetAllocator());
    b.CopyFrom(old, b.GetAllocator());
    for (json::Document* d : {&a, &b}) {
        if (json::Value* meta = json::member(*d, "metadata"); meta && meta->IsObject()) {
            for (const char* f : {"ownerReferences", "finalizers", "selfLink", "managedFields",
                                  "resourceVersion", "generation"}) {
                json::removeMember(*meta, f);
            }
        }
    }
    return static_cast<const json::Value&>(a) == static_cast<const json::Value&>(b);
}

bool EscalationGuard::authorized(const authn::UserInfo& user, std::string_view verb,
                                 std::string_view resource, std::string_view ns,
                                 std::string_view name) const {
    Attributes attrs;
    attrs.user = user;
    attrs.verb = verb;
    attrs.isResourceRequest = true;
    attrs.namespace_ = ns;
    attrs.apiGroup = kRbacGroup;
    attrs.apiVersion = "*";
    attrs.resource = resource;
    attrs.name = name;
    return authorizer_.authorize(attrs).decision == Decision::Allow;
}

std::optional<meta::Status> EscalationGuard::confirmRules(
    const RbacWrite& w, const std::vector<PolicyRule>& rules) const {
    std::vector<std::string> errors;
    std::vector<PolicyRule> held = resolver_.rulesFor(*w.user, w.namespace_, &errors);
    std::optional<std::string> err = escalationError(*w.user, held, rules, errors);
    if (!err) {
        return std::nullopt;
    }
    return meta::Status::forbidden(rbacResource(w.resource), objectName(*w.obj), *err);
}

void EscalationGuard::check(const RbacWrite& w,
                            std::function<void(const meta::Status* denied)> done) const {
    if (escalationAllowed(w.user) || w.obj == nullptr) {
        done(nullptr);
        return;
    }
    if (w.resource == "roles" || w.resource == "clusterroles") {
        checkRole(w, std::move(done));
        return;
    }
    checkBinding(w, std::move(done));
}

void EscalationGuard::checkRole(const RbacWrite& w,
                                std::function<void(const meta::Status*)> done) const {
    // rbacregistry.RoleEscalationAuthorized, against the request's name.
    if (authorized(*w.user, "escalate", w.resource, w.namespace_, w.name)) {
        done(nullptr);
        return;
    }
    if (w.old != nullptr && onlyMutatesGCFields(*w.obj, *w.old)) {
        done(nullptr);
        return;
    }
    if (std::optional<meta::Status> denied = confirmRules(w, rulesOf(*w.obj))) {
        done(&*denied);
        return;
    }
    // An aggregation rule can gather anything, so setting or changing one
    // takes authority over everything.
    if (w.resource == "clusterroles" && (hasAggregationRule(w.obj) || hasAggregationRule(w.old))) {
        std::vector<std::string> errors;
        std::vector<PolicyRule> held = resolver_.rulesFor(*w.user, w.namespace_, &errors);
        if (!covers(held, fullAuthority())) {
            meta::Status s = meta::Status::forbidden(
                rbacResource(w.resource), objectName(*w.obj),
                "must have cluster-admin privileges to use the aggregationRule");
            done(&s);
            return;
        }
    }
    done(nullptr);
}

void EscalationGuard::checkBinding(const RbacWrite& w,
                                   std::function<void(const meta::Status*)> done) const {
    if (w.old != nullptr && onlyMutatesGCFields(*w.obj, *w.old)) {
        done(nullptr);
        return;
    }
    const json::Value* ref = json::member(*w.obj, "roleRef");
    if (ref == nullptr || !ref->IsObject()) {
        done(nullptr);  // validation refuses it
        return;
    }
    std::string kind(json::stringMember(*ref, "kind"));
    std::string refName(json::stringMember(*ref, "name"));
    // rbacregistry.BindingAuthorized: `bind` on the role, in the binding's namespace.
    std::string_view refResource = kind == "ClusterRole" ? "clusterroles" : "roles";
    if ((kind == "ClusterRole" || kind == "Role") &&
        json::stringMember(*ref, "apiGroup") == kRbacGroup &&
        authorized(*w.user, "bind", refResource, w.namespace_, refName)) {
        done(nullptr);
        return;
    }
    // The request's pieces outlive this call only as copies.
    auto user = std::make_shared<authn::UserInfo>(*w.user);
    auto name = objectName(*w.obj);
    roleRules_(kind, w.namespace_, refName,
               [this, user, resource = w.resource, ns = w.namespace_, name, done = std::move(done)](
                   const meta::Status* error, std::vector<PolicyRule> rules) {
                   if (error) {
                       done(error);
                       return;
                   }
                   std::vector<std::string> errors;
                   std::vector<PolicyRule> held = resolver_.rulesFor(*user, ns, &errors);
                   std::optional<std::string> err = escalationError(*user, held, rules, errors);
                   if (!err) {
                       done(nullptr);
                       return;
                   }
                   meta::Status s = meta::Status::forbidden(rbacResource(resource), name, *err);
                   done(&s);
               });
}

}  // namespace kube::authz
