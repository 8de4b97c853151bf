#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authz/authorizer.hpp"

namespace kube::audit {

// How much of a request is recorded; mirrors audit.Level. Ordered: a level
// records everything the ones before it do.
enum class Level { None, Metadata, Request, RequestResponse };

// When in a request's life an event is written; mirrors audit.Stage.
enum class Stage { RequestReceived, ResponseStarted, ResponseComplete, Panic };

inline constexpr int kStageCount = 4;

std::string_view levelName(Level level);
std::string_view stageName(Stage stage);

// A set of stages, one bit per Stage.
class StageSet {
  public:
    void add(Stage s) { bits_ |= 1u << static_cast<unsigned>(s); }
    bool has(Stage s) const { return (bits_ >> static_cast<unsigned>(s)) & 1u; }
    StageSet operator|(StageSet other) const {
        StageSet u;
        u.bits_ = bits_ | other.bits_;
        return u;
    }
    bool operator==(const StageSet&) const = default;

  private:
    unsigned bits_ = 0;
};

// mirrors audit.GroupResources
struct GroupResources {
    std::string group;
    std::vector<std::string> resources;  // "pods", "pods/log", "*", "*/status", "pods/*"
    std::vector<std::string> resourceNames;
};

// mirrors audit.PolicyRule; empty lists match everything.
struct PolicyRule {
    Level level = Level::None;
    std::vector<std::string> users;
    std::vector<std::string> userGroups;
    std::vector<std::string> verbs;
    std::vector<GroupResources> resources;
    std::vector<std::string> namespaces;  // "" names cluster-scoped resources
    std::vector<std::string> nonResourceURLs;
    StageSet omitStages;
    std::optional<bool> omitManagedFields;
};

// What the policy decides for one request; mirrors
// audit.RequestAuditConfigWithLevel.
struct RequestAuditConfig {
    Level level = Level::None;
    StageSet omitStages;
    bool omitManagedFields = false;
};

// An audit.k8s.io/v1 Policy, loaded and validated; mirrors
// policy.LoadPolicyFromBytes + policy.NewPolicyRuleEvaluator. Immutable once
// loaded, so every worker thread may evaluate it.
class Policy {
  public:
    // Decodes a Policy from YAML or JSON and validates it as kube-apiserver
    // does; nullopt with `error` set to kube's message ("rules[0].level:
    // Unsupported value: ...", "loaded illegal policy with 0 rules") otherwise.
    // Unknown fields are ignored, as kube's lenient fallback decoding does.
    static std::optional<Policy> load(std::string_view text, std::string* error);

    // The first matching rule's level and stages; level None (with the
    // policy's omitStages) when no rule matches.
    RequestAuditConfig evaluate(const authz::Attributes& attrs) const;

    const std::vector<PolicyRule>& rules() const { return rules_; }

  private:
    std::vector<PolicyRule> rules_;
    StageSet omitStages_;
    bool omitManagedFields_ = false;
};

// Whether `rule` applies to `attrs`; mirrors policy.ruleMatches.
bool ruleMatches(const PolicyRule& rule, const authz::Attributes& attrs);

}  // namespace kube::audit
