#include "authz/covers.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "util/go_text.hpp"
#include "util/json.hpp"

namespace kube::authz {

namespace {

bool has(const std::vector<std::string>& set, std::string_view item) {
    return std::find(set.begin(), set.end(), item) != set.end();
}

bool hasAll(const std::vector<std::string>& set, const std::vector<std::string>& items) {
    return std::all_of(items.begin(), items.end(),
                       [&](const std::string& s) { return has(set, s); });
}

// A "*/scale" in the owner covers every resource's scale subresource.
bool resourcesCoverAll(const std::vector<std::string>& owner,
                       const std::vector<std::string>& resources) {
    if (has(owner, "*")) {
        return true;
    }
    for (const std::string& r : resources) {
        if (has(owner, r)) {
            continue;
        }
        size_t slash = r.find('/');
        if (slash == std::string::npos || !has(owner, "*/" + r.substr(slash + 1))) {
            return false;
        }
    }
    return true;
}

bool urlCovers(std::string_view owner, std::string_view path) {
    if (owner == path) {
        return true;
    }
    if (!owner.ends_with('*')) {
        return false;
    }
    while (owner.ends_with('*')) {
        owner.remove_suffix(1);
    }
    return path.starts_with(owner);
}

bool urlsCoverAll(const std::vector<std::string>& owner, const std::vector<std::string>& paths) {
    return std::all_of(paths.begin(), paths.end(), [&](const std::string& p) {
        return std::any_of(owner.begin(), owner.end(),
                           [&](const std::string& o) { return urlCovers(o, p); });
    });
}

// `sub` has at most one verb, group, resource and resource name.
bool ruleCovers(const PolicyRule& owner, const PolicyRule& sub) {
    bool verbs = has(owner.verbs, "*") || hasAll(owner.verbs, sub.verbs);
    bool groups = has(owner.apiGroups, "*") || hasAll(owner.apiGroups, sub.apiGroups);
    bool resources = resourcesCoverAll(owner.resources, sub.resources);
    bool urls = urlsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs);
    // A rule without names allows every name; a rule for all names is
    // covered only by another rule for all names.
    bool names = owner.resourceNames.empty() ||
                 (!sub.resourceNames.empty() && hasAll(owner.resourceNames, sub.resourceNames));
    return verbs && groups && resources && urls && names;
}

void breakdown(const PolicyRule& rule, std::vector<PolicyRule>& out) {
    for (const std::string& group : rule.apiGroups) {
        for (const std::string& resource : rule.resources) {
            for (const std::string& verb : rule.verbs) {
                if (rule.resourceNames.empty()) {
                    out.push_back({{verb}, {group}, {resource}, {}, {}});
                    continue;
                }
                for (const std::string& name : rule.resourceNames) {
                    out.push_back({{verb}, {group}, {resource}, {name}, {}});
                }
            }
        }
    }
    for (const std::string& url : rule.nonResourceURLs) {
        for (const std::string& verb : rule.verbs) {
            out.push_back({{verb}, {}, {}, {}, {url}});
        }
    }
}

}  // namespace

bool operator==(const PolicyRule& a, const PolicyRule& b) {
    return a.verbs == b.verbs && a.apiGroups == b.apiGroups && a.resources == b.resources &&
           a.resourceNames == b.resourceNames && a.nonResourceURLs == b.nonResourceURLs;
}

std::vector<PolicyRule> uncoveredRules(const std::vector<PolicyRule>& owner,
                                       const std::vector<PolicyRule>& servant) {
    std::vector<PolicyRule> subrules;
    for (const PolicyRule& r : servant) {
        breakdown(r, subrules);
    }
    std::vector<PolicyRule> uncovered;
    for (PolicyRule& sub : subrules) {
        bool covered = std::any_of(owner.begin(), owner.end(),
                                   [&](const PolicyRule& o) { return ruleCovers(o, sub); });
        if (!covered) {
            uncovered.push_back(std::move(sub));
        }
    }
    return uncovered;
}

std::vector<PolicyRule> compactRules(const std::vector<PolicyRule>& rules) {
    using Key = std::tuple<std::string, std::string, bool, std::string>;
    std::vector<PolicyRule> compacted;
    std::map<Key, PolicyRule> simple;
    std::vector<Key> order;
    for (const PolicyRule& r : rules) {
        bool isSimple = r.resourceNames.size() <= 1 && r.nonResourceURLs.empty() &&
                        r.apiGroups.size() == 1 && r.resources.size() == 1;
        if (!isSimple) {
            compacted.push_back(r);
            continue;
        }
        Key key{r.apiGroups[0], r.resources[0], !r.resourceNames.empty(),
                r.resourceNames.empty() ? std::string() : r.resourceNames[0]};
        auto [it, inserted] = simple.try_emplace(key, r);
        if (inserted) {
            order.push_back(key);
        } else {
            it->second.verbs.insert(it->second.verbs.end(), r.verbs.begin(), r.verbs.end());
        }
    }
    for (const Key& key : order) {
        compacted.push_back(simple.at(key));
    }
    return compacted;
}

std::string compactString(const PolicyRule& rule) {
    std::string out = "{";
    auto field = [&](std::string_view name, const std::vector<std::string>& items) {
        if (items.empty()) {
            return;
        }
        if (out.size() > 1) {
            out += ", ";
        }
        out += name;
        out += ':';
        out += util::quotedList(items);
    };
    field("APIGroups", rule.apiGroups);
    field("Resources", rule.resources);
    field("NonResourceURLs", rule.nonResourceURLs);
    field("ResourceNames", rule.resourceNames);
    field("Verbs", rule.verbs);
    out += '}';
    return out;
}

}  // namespace kube::authz
