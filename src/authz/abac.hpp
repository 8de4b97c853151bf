#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authz/authorizer.hpp"

namespace kube::authz {

// One line of an ABAC policy file, converted to the internal form; mirrors
// abac.PolicySpec.
struct AbacPolicy {
    std::string user;
    std::string group;
    bool readonly = false;
    std::string apiGroup;
    std::string resource;
    std::string namespace_;
    std::string nonResourcePath;
};

// The ABAC authorizer (kube-apiserver --authorization-mode=ABAC with
// --authorization-policy-file); mirrors abac.PolicyList. Immutable once
// loaded; read at configuration time, shared by every worker.
class AbacAuthorizer : public Authorizer {
public:
    explicit AbacAuthorizer(std::vector<AbacPolicy> policies) : policies_(std::move(policies)) {}

    // Reads a policy file: one JSON object a line, either an
    // abac.authorization.kubernetes.io/v1beta1 Policy or the unversioned
    // (v0) form; blank lines and lines starting with '#' are skipped.
    // nullopt with `error` naming the file and line on failure.
    static std::optional<AbacAuthorizer> parse(std::string_view text, std::string_view path,
                                               std::string* error);
    static std::optional<AbacAuthorizer> load(const std::string& path, std::string* error);

    Result authorize(const Attributes& attrs) const override;
    SubjectRules rulesFor(const authn::UserInfo& user, std::string_view namespace_) const override;

    const std::vector<AbacPolicy>& policies() const { return policies_; }

private:
    std::vector<AbacPolicy> policies_;
};

}  // namespace kube::authz
