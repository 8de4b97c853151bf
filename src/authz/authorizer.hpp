#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authn/user.hpp"
#include "authz/rule_resolver.hpp"
#include "endpoints/request_info.hpp"

namespace kube::authz {

enum class Decision { Allow, Deny, NoOpinion };

struct Result {
    Decision decision = Decision::NoOpinion;
    std::string reason;
};

// What is asked of an authorizer; mirrors authorizer.AttributesRecord. Built
// from a request's RequestInfo, or from a SubjectAccessReview's spec, or for
// an impersonation check.
struct Attributes {
    authn::UserInfo user;
    std::string verb;
    bool isResourceRequest = false;
    // Resource requests.
    std::string namespace_;
    std::string apiGroup;
    std::string apiVersion;
    std::string resource;
    std::string subresource;
    std::string name;
    // Non-resource requests.
    std::string path;
};

// The attributes of a request `user` made.
Attributes attributesOf(const authn::UserInfo& user, const endpoints::RequestInfo& info);

// kube's Attributes.IsReadOnly: get, list and watch.
bool isReadOnly(const Attributes& attrs);

// What a user may do in a namespace as one authorizer sees it; mirrors the
// results of authorizer.RuleResolver.RulesFor. Resource rules carry verbs,
// apiGroups, resources and resourceNames; non-resource rules verbs and
// nonResourceURLs.
struct SubjectRules {
    std::vector<PolicyRule> resourceRules;
    std::vector<PolicyRule> nonResourceRules;
    // The authorizer cannot list everything it would allow.
    bool incomplete = false;
    // What went wrong while listing (a binding to a missing role).
    std::vector<std::string> errors;
};

// Decides whether the user may do what `attrs` describe; mirrors
// authorizer.Authorizer and authorizer.RuleResolver. Called on the loop;
// must not block (a webhook authorizer will answer through its own
// asynchronous path).
class Authorizer {
public:
    virtual ~Authorizer() = default;
    virtual Result authorize(const Attributes& attrs) const = 0;
    // The rules `user` holds in `namespace_` (SelfSubjectRulesReview); an
    // authorizer that cannot list them says it is incomplete.
    virtual SubjectRules rulesFor(const authn::UserInfo& user, std::string_view namespace_) const {
        (void)user;
        (void)namespace_;
        SubjectRules none;
        none.incomplete = true;
        return none;
    }
};

// The kube-apiserver --authorization-mode values this server knows.
enum class Mode { AlwaysAllow, AlwaysDeny, ABAC, RBAC };

// The mode called `name` ("RBAC"); nullopt for one this server does not
// know, with `error` saying why (Node and Webhook are not supported yet).
std::optional<Mode> parseMode(std::string_view name, std::string* error);

// AlwaysAllow or AlwaysDeny; nullptr for the modes that need data (ABAC: a
// policy file, RBAC: the watch caches).
std::unique_ptr<Authorizer> makeAuthorizer(Mode mode);

// kube's forbiddenMessage: `User "x" cannot list resource "pods" in API group
// "" in the namespace "ns"` (or "at the cluster scope", or `cannot get path "/x"`).
std::string forbiddenMessage(const Attributes& attrs);

}  // namespace kube::authz
