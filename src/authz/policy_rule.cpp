#include "authz/policy_rule.hpp"

namespace kube::authz {

namespace json = util::json;

namespace {

bool contains(const std::vector<std::string>& set, std::string_view s) {
    for (const std::string& e : set) {
        if (e == s) {
            return true;
        }
    }
    return false;
}

std::vector<std::string> strings(const json::Value& obj, std::string_view name) {
    std::vector<std::string> out;
    const json::Value* v = json::member(obj, name);
    if (!v || !v->IsArray()) {
        return out;
    }
    out.reserve(v->Size());
    for (const json::Value& e : v->GetArray()) {
        if (e.IsString()) {
            out.emplace_back(json::view(e));
        }
    }
    return out;
}

}  // namespace

bool verbMatches(const PolicyRule& rule, std::string_view verb) {
    return contains(rule.verbs, "*") || contains(rule.verbs, verb);
}

bool apiGroupMatches(const PolicyRule& rule, std::string_view group) {
    return contains(rule.apiGroups, "*") || contains(rule.apiGroups, group);
}

bool resourceMatches(const PolicyRule& rule, std::string_view combinedResource,
                     std::string_view subresource) {
    for (const std::string& r : rule.resources) {
        if (r == "*" || r == combinedResource) {
            return true;
        }
        if (!subresource.empty() && r.size() == subresource.size() + 2 && r.starts_with("*/") &&
            r.ends_with(subresource)) {
            return true;
        }
    }
    return false;
}

bool resourceNameMatches(const PolicyRule& rule, std::string_view name) {
    return rule.resourceNames.empty() || contains(rule.resourceNames, name);
}

bool nonResourceURLMatches(const PolicyRule& rule, std::string_view path) {
    for (const std::string& url : rule.nonResourceURLs) {
        if (url == "*" || url == path) {
            return true;
        }
        if (url.ends_with('*')) {
            std::string_view prefix = url;
            while (!prefix.empty() && prefix.back() == '*') {
                prefix.remove_suffix(1);
            }
            if (path.starts_with(prefix)) {
                return true;
            }
        }
    }
    return false;
}

bool ruleAllows(const Attributes& attrs, const PolicyRule& rule) {
    if (!attrs.isResourceRequest) {
        return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
    }
    if (!verbMatches(rule, attrs.verb) || !apiGroupMatches(rule, attrs.apiGroup)) {
        return false;
    }
    bool matched;
    if (attrs.subresource.empty()) {
        matched = resourceMatches(rule, attrs.resource, attrs.subresource);
    } else {
        std::string combined = attrs.resource + "/" + attrs.subresource;
        matched = resourceMatches(rule, combined, attrs.subresource);
    }
    return matched && resourceNameMatches(rule, attrs.name);
}

std::vector<PolicyRule> policyRulesOf(const json::Value& role) {
    std::vector<PolicyRule> out;
    const json::Value* rules = json::member(role, "rules");
    if (!rules || !rules->IsArray()) {
        return out;
    }
    out.reserve(rules->Size());
    for (const json::Value& r : rules->GetArray()) {
        if (!r.IsObject()) {
            continue;
        }
        out.push_back({strings(r, "verbs"), strings(r, "apiGroups"), strings(r, "resources"),
                       strings(r, "resourceNames"), strings(r, "nonResourceURLs")});
    }
    return out;
}

}  // namespace kube::authz
