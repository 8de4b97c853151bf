#include "authz/policy_json.hpp"

namespace kube::authz {

namespace json = util::json;

namespace {

std::vector<std::string> strings(const json::Value& rule, std::string_view name) {
    std::vector<std::string> out;
    const json::Value* v = json::member(rule, name);
    if (v == nullptr || !v->IsArray()) {
        return out;
    }
    for (const json::Value& item : v->GetArray()) {
        if (item.IsString()) {
            out.emplace_back(json::view(item));
        }
    }
    return out;
}

void addStrings(json::Value& rule, const char* name, const std::vector<std::string>& items,
                json::Allocator& a) {
    if (items.empty()) {
        return;
    }
    json::Value arr(rapidjson::kArrayType);
    for (const std::string& s : items) {
        arr.PushBack(json::stringValue(s, a), a);
    }
    rule.AddMember(rapidjson::StringRef(name), arr, a);
}

}  // namespace

std::vector<PolicyRule> rulesOf(const json::Value& role) {
    std::vector<PolicyRule> out;
    const json::Value* rules = role.IsObject() ? json::member(role, "rules") : nullptr;
    if (rules == nullptr || !rules->IsArray()) {
        return out;
    }
    for (const json::Value& r : rules->GetArray()) {
        if (!r.IsObject()) {
            continue;
        }
        out.push_back({strings(r, "verbs"), strings(r, "apiGroups"), strings(r, "resources"),
                       strings(r, "resourceNames"), strings(r, "nonResourceURLs")});
    }
    return out;
}

json::Value rulesJson(const std::vector<PolicyRule>& rules, json::Allocator& a) {
    json::Value arr(rapidjson::kArrayType);
    for (const PolicyRule& r : rules) {
        json::Value rule(rapidjson::kObjectType);
        // Field order as kube's encoder writes a PolicyRule.
        addStrings(rule, "verbs", r.verbs, a);
        addStrings(rule, "apiGroups", r.apiGroups, a);
        addStrings(rule, "resources", r.resources, a);
        addStrings(rule, "resourceNames", r.resourceNames, a);
        addStrings(rule, "nonResourceURLs", r.nonResourceURLs, a);
        arr.PushBack(rule, a);
    }
    return arr;
}

}  // namespace kube::authz
