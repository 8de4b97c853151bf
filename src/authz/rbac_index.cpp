#include "authz/rbac_index.hpp"

#include <algorithm>

#include "authz/policy_rule.hpp"

namespace kube::authz {

namespace json = util::json;

namespace {

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";

std::string scopedKey(std::string_view namespace_, std::string_view name) {
    std::string k(namespace_);
    k += '/';
    k.append(name);
    return k;
}

std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    out += '"';
    return out;
}

// The user name a ServiceAccount subject stands for; "" when it has no
// namespace (a cluster binding's subject without one applies to nobody).
std::string serviceAccountUser(const Subject& s, std::string_view bindingNamespace) {
    std::string_view ns = s.namespace_.empty() ? bindingNamespace : s.namespace_;
    if (ns.empty()) {
        return {};
    }
    std::string u(kServiceAccountPrefix);
    u.append(ns);
    u += ':';
    u += s.name;
    return u;
}

}  // namespace

bool RbacIndex::byName(const Binding* a, const Binding* b) {
    int c = a->name.compare(b->name);
    return c != 0 ? c < 0 : a < b;
}

const std::vector<const Binding*>& RbacIndex::Collected::bindings() {
    if (lists_ == 1) {
        return *only_;
    }
    // Several subjects' lists (the user's and groups'): merged in name
    // order, a binding naming several of them visited once.
    std::sort(merged_.begin(), merged_.end(), byName);
    merged_.erase(std::unique(merged_.begin(), merged_.end()), merged_.end());
    return merged_;
}

void RbacIndex::Collected::add(const std::vector<const Binding*>& list) {
    if (list.empty()) {
        return;
    }
    if (++lists_ == 1) {
        only_ = &list;
        return;
    }
    if (lists_ == 2) {
        merged_.assign(only_->begin(), only_->end());
    }
    merged_.insert(merged_.end(), list.begin(), list.end());
}

bool appliesToUser(const authn::UserInfo& user, const Subject& subject,
                   std::string_view bindingNamespace) {
    if (subject.kind == "User") {
        return user.name == subject.name;
    }
    if (subject.kind == "Group") {
        return std::find(user.groups.begin(), user.groups.end(), subject.name) != user.groups.end();
    }
    if (subject.kind == "ServiceAccount") {
        if (!subject.user.empty()) {
            return subject.user == user.name;
        }
        std::string u = serviceAccountUser(subject, bindingNamespace);
        return !u.empty() && u == user.name;
    }
    return false;
}

void RbacIndex::put(RbacResource resource, const json::Value& obj) {
    generation_++;
    if (resource == RbacResource::RoleBindings || resource == RbacResource::ClusterRoleBindings) {
        putBinding(resource, obj);
        return;
    }
    const json::Value* meta = json::member(obj, "metadata");
    if (!meta) {
        return;
    }
    auto rules = std::make_shared<const std::vector<PolicyRule>>(policyRulesOf(obj));
    std::string_view name = json::stringMember(*meta, "name");
    if (resource == RbacResource::Roles) {
        roles_[scopedKey(json::stringMember(*meta, "namespace"), name)] = std::move(rules);
    } else {
        clusterRoles_[std::string(name)] = std::move(rules);
    }
}

void RbacIndex::putBinding(RbacResource resource, const json::Value& obj) {
    const json::Value* meta = json::member(obj, "metadata");
    if (!meta) {
        return;
    }
    auto b = std::make_shared<Binding>();
    if (resource == RbacResource::RoleBindings) {
        b->namespace_ = json::stringMember(*meta, "namespace");
    }
    b->name = json::stringMember(*meta, "name");
    if (const json::Value* ref = json::member(obj, "roleRef")) {
        b->roleKind = json::stringMember(*ref, "kind");
        b->roleName = json::stringMember(*ref, "name");
    }
    const json::Value* subjects = json::member(obj, "subjects");
    if (subjects && subjects->IsArray()) {
        for (const json::Value& s : subjects->GetArray()) {
            if (s.IsObject()) {
                Subject subject{std::string(json::stringMember(s, "kind")),
                                std::string(json::stringMember(s, "name")),
                                std::string(json::stringMember(s, "namespace")),
                                {}};
                if (subject.kind == "ServiceAccount") {
                    subject.user = serviceAccountUser(subject, b->namespace_);
                }
                b->subjects.push_back(std::move(subject));
            }
        }
    }
    remove(resource, b->namespace_, b->name);
    index(*b, true);
    auto& map = resource == RbacResource::RoleBindings ? roleBindings_ : clusterRoleBindings_;
    map.emplace(scopedKey(b->namespace_, b->name), std::move(b));
}

void RbacIndex::remove(RbacResource resource, std::string_view namespace_, std::string_view name) {
    generation_++;
    switch (resource) {
        case RbacResource::Roles:
            roles_.erase(scopedKey(namespace_, name));
            return;
        case RbacResource::ClusterRoles:
            clusterRoles_.erase(std::string(name));
            return;
        case RbacResource::RoleBindings:
        case RbacResource::ClusterRoleBindings: {
            auto& map =
                resource == RbacResource::RoleBindings ? roleBindings_ : clusterRoleBindings_;
            auto it = map.find(scopedKey(namespace_, name));
            if (it != map.end()) {
                index(*it->second, false);
                map.erase(it);
            }
            return;
        }
    }
}

void RbacIndex::clear(RbacResource resource) {
    generation_++;
    switch (resource) {
        case RbacResource::Roles:
            roles_.clear();
            return;
        case RbacResource::ClusterRoles:
            clusterRoles_.clear();
            return;
        case RbacResource::RoleBindings:
        case RbacResource::ClusterRoleBindings: {
            auto& map =
                resource == RbacResource::RoleBindings ? roleBindings_ : clusterRoleBindings_;
            for (auto& [key, b] : map) {
                index(*b, false);
            }
            map.clear();
            return;
        }
    }
}

// Adds `b` to (or removes it from) the entry of each subject it names.
void RbacIndex::index(const Binding& b, bool add) {
    for (const Subject& s : b.subjects) {
        std::unordered_map<std::string, Bound>* by = nullptr;
        std::string key;
        if (s.kind == "User") {
            by = &users_;
            key = s.name;
        } else if (s.kind == "Group") {
            by = &groups_;
            key = s.name;
        } else if (s.kind == "ServiceAccount") {
            by = &users_;
            key = s.user;
        }
        if (!by || key.empty()) {
            continue;
        }
        Bound& bound = (*by)[key];
        std::vector<const Binding*>& list =
            b.namespace_.empty() ? bound.cluster : bound.namespaced[b.namespace_];
        if (add) {
            // Kept in name order; a binding naming the same subject twice
            // is listed once.
            auto at = std::lower_bound(list.begin(), list.end(), &b, byName);
            if (at == list.end() || *at != &b) {
                list.insert(at, &b);
            }
            continue;
        }
        list.erase(std::remove(list.begin(), list.end(), &b), list.end());
        if (list.empty() && !b.namespace_.empty()) {
            bound.namespaced.erase(b.namespace_);
        }
        if (bound.cluster.empty() && bound.namespaced.empty()) {
            by->erase(key);
        }
    }
}

void RbacIndex::collect(const std::unordered_map<std::string, Bound>& by, const std::string& key,
                        std::string_view namespace_, Collected& cluster, Collected& local) const {
    auto it = by.find(key);
    if (it == by.end()) {
        return;
    }
    const Bound& bound = it->second;
    cluster.add(bound.cluster);
    if (namespace_.empty() || bound.namespaced.empty()) {
        return;
    }
    auto ns = bound.namespaced.find(std::string(namespace_));
    if (ns != bound.namespaced.end()) {
        local.add(ns->second);
    }
}

const std::vector<PolicyRule>* RbacIndex::roleRules(const Binding& b, std::string* error) const {
    if (b.roleKind == "Role") {
        auto it = roles_.find(scopedKey(b.namespace_, b.roleName));
        if (it != roles_.end()) {
            return it->second.get();
        }
        *error = "role.rbac.authorization.k8s.io " + quoted(b.roleName) + " not found";
        return nullptr;
    }
    if (b.roleKind == "ClusterRole") {
        auto it = clusterRoles_.find(b.roleName);
        if (it != clusterRoles_.end()) {
            return it->second.get();
        }
        *error = "clusterrole.rbac.authorization.k8s.io " + quoted(b.roleName) + " not found";
        return nullptr;
    }
    *error = "unsupported role reference kind: " + quoted(b.roleKind);
    return nullptr;
}

void RbacIndex::visitRulesFor(const authn::UserInfo& user, std::string_view namespace_,
                              const Visitor& visit) const {
    Collected cluster;
    Collected local;
    collect(users_, user.name, namespace_, cluster, local);
    for (const std::string& g : user.groups) {
        collect(groups_, g, namespace_, cluster, local);
    }
    for (Collected* c : {&cluster, &local}) {
        for (const Binding* b : c->bindings()) {
            const Subject* subject = nullptr;
            for (const Subject& s : b->subjects) {
                if (appliesToUser(user, s, b->namespace_)) {
                    subject = &s;
                    break;
                }
            }
            if (!subject) {
                continue;
            }
            std::string error;
            const std::vector<PolicyRule>* rules = roleRules(*b, &error);
            if (!rules) {
                if (!visit(*b, *subject, nullptr, &error)) {
                    return;
                }
                continue;
            }
            for (const PolicyRule& r : *rules) {
                if (!visit(*b, *subject, &r, nullptr)) {
                    return;
                }
            }
        }
    }
}

std::vector<PolicyRule> RbacIndex::rulesFor(const authn::UserInfo& user,
                                            std::string_view namespace_,
                                            std::vector<std::string>* errors) const {
    std::vector<PolicyRule> out;
    visitRulesFor(
        user, namespace_,
        [&](const Binding&, const Subject&, const PolicyRule* rule, const std::string* error) {
            if (rule) {
                out.push_back(*rule);
            }
            if (error && errors) {
                errors->push_back(*error);
            }
            return true;
        });
    return out;
}

std::string RbacIndex::describe(const Binding& binding, const Subject& subject) {
    std::string who = subject.kind + " ";
    if (subject.kind == "ServiceAccount") {
        who += quoted(subject.name + "/" +
                      (subject.namespace_.empty() ? binding.namespace_ : subject.namespace_));
    } else {
        who += quoted(subject.name);
    }
    if (binding.namespace_.empty()) {
        return "ClusterRoleBinding " + quoted(binding.name) + " of " + binding.roleKind + " " +
               quoted(binding.roleName) + " to " + who;
    }
    return "RoleBinding " + quoted(binding.name + "/" + binding.namespace_) + " of " +
           binding.roleKind + " " + quoted(binding.roleName) + " to " + who;
}

}  // namespace kube::authz
