#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/cacher/follower.hpp"

namespace kube::admission {

// The request attributes a webhook's or policy's rules match against (mirrors the parts of
// admission.Attributes that rules.Matcher reads).
struct WriteAttributes {
    std::string_view operation;  // "CREATE", "UPDATE", "DELETE"
    std::string_view group;
    std::string_view version;
    std::string_view resource;
    std::string_view subresource;
    std::string_view name;
    bool namespaced = false;
};

// What admission webhooks and ValidatingAdmissionPolicies are registered, kept from this worker's
// watch caches of their kinds (no storage read per request). This server does not call webhooks
// or evaluate policies yet; a write their rules match is told so in a Warning header instead,
// one per webhook or bound policy:
//   299 - "ValidatingWebhookConfiguration \"c\": webhook \"w.example.com\" was not called: this
//          server does not call admission webhooks yet"
//   299 - "ValidatingAdmissionPolicy \"p\" (binding \"b\") was not evaluated: this server does not
//          evaluate admission policies yet"
// Only the rules (operations, groups, versions, resources and subresources, scope, and a policy's
// resourceNames and excludeResourceRules) are matched: selectors and match conditions are not
// evaluated, so a hook they would have skipped is reported too. As kube does, no webhook or
// policy is matched by writes of admissionregistration.k8s.io objects. Loop thread only.
class RegisteredHooks {
  public:
    enum class Source {
        MutatingWebhooks,
        ValidatingWebhooks,
        Policies,
        PolicyBindings,
    };

    RegisteredHooks();
    ~RegisteredHooks();
    RegisteredHooks(const RegisteredHooks&) = delete;
    RegisteredHooks& operator=(const RegisteredHooks&) = delete;

    // Follows `cache`, the watch cache of the kind `source` names; it outlives this object.
    void follow(Source source, storage::cacher::WatchCache& cache);

    // The Warning texts for a write with `attrs`; empty when nothing matches (the usual case:
    // one map lookup when no hook is registered).
    std::vector<std::string> warnings(const WriteAttributes& attrs) const;

    struct Rule;
    struct Hook;

  private:
    void put(Source source, const util::json::Value& obj);
    void remove(Source source, std::string_view name);

    // Per configuration or policy name, its hooks (one per webhook; one for a policy).
    std::map<std::string, std::vector<Hook>, std::less<>> mutating_;
    std::map<std::string, std::vector<Hook>, std::less<>> validating_;
    std::map<std::string, std::vector<Hook>, std::less<>> policies_;
    // Binding name -> the policy it binds.
    std::map<std::string, std::string, std::less<>> bindings_;
    std::vector<std::unique_ptr<storage::cacher::Follower>> followers_;
};

}  // namespace kube::admission
