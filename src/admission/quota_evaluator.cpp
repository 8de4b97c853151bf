#include "admission/quota_evaluator.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace kube::admission::quota {

namespace json = util::json;
using util::Quantity;

namespace {

constexpr std::string_view kStorageClassSuffix = ".storageclass.storage.k8s.io/";

Quantity count(int64_t n) {
    std::optional<Quantity> q = Quantity::parse(std::to_string(n));
    return q ? *q : Quantity();
}

bool isCore(const registry::KindInfo& kind, std::string_view resource) {
    return kind.group.empty() && kind.resource == resource;
}

// The core kinds whose object count also has a legacy name.
bool hasLegacyCount(const registry::KindInfo& kind) {
    if (!kind.group.empty()) {
        return false;
    }
    for (const char* r : {"services", "configmaps", "secrets", "persistentvolumeclaims",
                          "resourcequotas", "replicationcontrollers"}) {
        if (kind.resource == r) {
            return true;
        }
    }
    return false;
}

// podComputeUsageHelper: a pod's (or container's) compute amounts under
// their quota names.
List computeUsage(const List& requests, const List& limits) {
    List out;
    out.emplace("pods", count(1));
    for (const char* r : {"cpu", "memory", "ephemeral-storage"}) {
        if (auto it = requests.find(r); it != requests.end()) {
            out.insert_or_assign(r, it->second);
            out.insert_or_assign(std::string("requests.") + r, it->second);
        }
        if (auto it = limits.find(r); it != limits.end()) {
            out.insert_or_assign(std::string("limits.") + r, it->second);
        }
    }
    return out;
}

// QuotaV1Pod's phase check: a pod that ran to its end is not charged.
bool chargedPod(const json::Value& pod) {
    std::string_view phase;
    if (const json::Value* p = json::at(pod, {"status", "phase"}); p && p->IsString()) {
        phase = json::view(*p);
    }
    return phase != "Succeeded" && phase != "Failed";
}

List podUsage(const registry::KindInfo& kind, const json::Value& pod) {
    List out;
    out.emplace(objectCountName(kind), count(1));
    if (!chargedPod(pod)) {
        return out;
    }
    return addLists(out, computeUsage(resources::podRequests(pod), resources::podLimits(pod)));
}

List serviceUsage(const registry::KindInfo& kind, const json::Value& svc) {
    List out;
    out.emplace(objectCountName(kind), count(1));
    out.emplace("services", count(1));
    std::string_view type;
    if (const json::Value* t = json::at(svc, {"spec", "type"}); t && t->IsString()) {
        type = json::view(*t);
    }
    const json::Value* ports = json::at(svc, {"spec", "ports"});
    int64_t n = ports && ports->IsArray() ? static_cast<int64_t>(ports->Size()) : 0;
    int64_t nodePorts = 0;
    if (type == "NodePort") {
        nodePorts = n;
    } else if (type == "LoadBalancer") {
        const json::Value* allocate = json::at(svc, {"spec", "allocateLoadBalancerNodePorts"});
        if (allocate && allocate->IsBool() && !allocate->GetBool()) {
            for (const json::Value& p : ports->GetArray()) {
                const json::Value* np = p.IsObject() ? json::member(p, "nodePort") : nullptr;
                nodePorts += np && np->IsInt64() && np->GetInt64() != 0 ? 1 : 0;
            }
        } else {
            nodePorts = n;
        }
    }
    out.emplace("services.loadbalancers", count(type == "LoadBalancer" ? 1 : 0));
    out.emplace("services.nodeports", count(nodePorts));
    return out;
}

std::string storageClassOf(const json::Value& claim) {
    if (const json::Value* c = json::at(claim, {"spec", "storageClassName"}); c && c->IsString()) {
        return std::string(json::view(*c));
    }
    return {};
}

List claimUsage(const registry::KindInfo& kind, const json::Value& claim) {
    List out;
    out.emplace(objectCountName(kind), count(1));
    out.emplace("persistentvolumeclaims", count(1));
    std::string cls = storageClassOf(claim);
    std::string prefix = cls + std::string(kStorageClassSuffix);
    if (!cls.empty()) {
        out.emplace(prefix + "persistentvolumeclaims", count(1));
    }
    List requests = resources::listOf(json::at(claim, {"spec", "resources", "requests"}));
    if (auto it = requests.find("storage"); it != requests.end()) {
        out.emplace("requests.storage", it->second);
        if (!cls.empty()) {
            out.emplace(prefix + "requests.storage", it->second);
        }
    }
    return out;
}

// qos.GetPodQOS == BestEffort: no container asks for or is limited in cpu
// or memory.
bool isBestEffort(const json::Value& pod) {
    for (const char* list : {"containers", "initContainers"}) {
        const json::Value* cs = json::at(pod, {"spec", list});
        if (!cs || !cs->IsArray()) {
            continue;
        }
        for (const json::Value& c : cs->GetArray()) {
            for (const char* which : {"requests", "limits"}) {
                List l =
                    resources::listOf(c.IsObject() ? json::at(c, {"resources", which}) : nullptr);
                for (const char* r : {"cpu", "memory"}) {
                    if (auto it = l.find(r); it != l.end() && !it->second.isZero()) {
                        return false;
                    }
                }
            }
        }
    }
    return true;
}

bool isTerminating(const json::Value& pod) {
    const json::Value* d = json::at(pod, {"spec", "activeDeadlineSeconds"});
    return d && d->IsInt64() && d->GetInt64() >= 0;
}

// podMatchesScopeFunc for one scope (with the selector's operator and
// values for PriorityClass; an absent operator is Exists).
bool podMatchesScope(const json::Value& pod, std::string_view scope, std::string_view op,
                     const std::set<std::string, std::less<>>& values) {
    if (scope == "Terminating") {
        return isTerminating(pod);
    }
    if (scope == "NotTerminating") {
        return !isTerminating(pod);
    }
    if (scope == "BestEffort") {
        return isBestEffort(pod);
    }
    if (scope == "NotBestEffort") {
        return !isBestEffort(pod);
    }
    if (scope == "PriorityClass") {
        std::string_view pc;
        if (const json::Value* p = json::at(pod, {"spec", "priorityClassName"});
            p && p->IsString()) {
            pc = json::view(*p);
        }
        if (op == "In") {
            return !pc.empty() && values.count(pc);
        }
        if (op == "NotIn") {
            return pc.empty() || !values.count(pc);
        }
        if (op == "DoesNotExist") {
            return pc.empty();
        }
        return !pc.empty();
    }
    return false;
}

bool lessOrEqual(const Quantity& a, const Quantity& b) {
    return a.compare(b) <= 0;
}

List mask(const List& l, const std::set<std::string, std::less<>>& names) {
    List out;
    for (const auto& [k, v] : l) {
        if (names.count(k)) {
            out.emplace(k, v);
        }
    }
    return out;
}

template <class Map>
std::set<std::string, std::less<>> keys(const Map& m) {
    std::set<std::string, std::less<>> out;
    for (const auto& [k, v] : m) {
        out.insert(k);
    }
    return out;
}

}  // namespace

std::string objectCountName(const registry::KindInfo& kind) {
    return "count/" + kind.resource + (kind.group.empty() ? "" : "." + kind.group);
}

Quantity add(const Quantity& a, const Quantity& b) {
    // Quantity.Add: a zero takes the other operand's format.
    return a.isZero() ? resources::plus(b, a) : resources::plus(a, b);
}

List addLists(const List& a, const List& b) {
    List out = a;
    for (const auto& [k, v] : b) {
        auto it = out.find(k);
        if (it == out.end()) {
            out.emplace(k, v);
        } else {
            it->second = add(it->second, v);
        }
    }
    return out;
}

List usage(const registry::KindInfo& kind, const json::Value& obj) {
    if (isCore(kind, "pods")) {
        return podUsage(kind, obj);
    }
    if (isCore(kind, "services")) {
        return serviceUsage(kind, obj);
    }
    if (isCore(kind, "persistentvolumeclaims")) {
        return claimUsage(kind, obj);
    }
    List out;
    out.emplace(objectCountName(kind), count(1));
    if (hasLegacyCount(kind)) {
        out.emplace(kind.resource, count(1));
    }
    return out;
}

std::vector<std::string> matchingResources(const registry::KindInfo& kind,
                                           const std::vector<std::string>& names) {
    std::vector<std::string> out;
    std::string countName = objectCountName(kind);
    for (const std::string& n : names) {
        bool match = n == countName || (hasLegacyCount(kind) && n == kind.resource);
        if (isCore(kind, "pods")) {
            for (const char* r : {"pods", "cpu", "memory", "ephemeral-storage", "requests.cpu",
                                  "requests.memory", "requests.ephemeral-storage", "limits.cpu",
                                  "limits.memory", "limits.ephemeral-storage"}) {
                match = match || n == r;
            }
        } else if (isCore(kind, "services")) {
            match = match || n == "services.loadbalancers" || n == "services.nodeports";
        } else if (isCore(kind, "persistentvolumeclaims")) {
            size_t at = n.find(kStorageClassSuffix);
            std::string_view rest =
                at == std::string::npos
                    ? n
                    : std::string_view(n).substr(at + kStorageClassSuffix.size());
            match = match || n == "requests.storage" ||
                    (at != std::string::npos &&
                     (rest == "requests.storage" || rest == "persistentvolumeclaims"));
        }
        if (match) {
            out.push_back(n);
        }
    }
    return out;
}

bool matchesScopes(const registry::KindInfo& kind, const json::Value& quota,
                   const json::Value& obj) {
    bool pod = isCore(kind, "pods");
    if (const json::Value* scopes = json::at(quota, {"spec", "scopes"});
        scopes && scopes->IsArray()) {
        for (const json::Value& s : scopes->GetArray()) {
            if (!pod || !s.IsString() || !podMatchesScope(obj, json::view(s), "Exists", {})) {
                return false;
            }
        }
    }
    const json::Value* exprs = json::at(quota, {"spec", "scopeSelector", "matchExpressions"});
    if (exprs && exprs->IsArray()) {
        for (const json::Value& e : exprs->GetArray()) {
            if (!pod || !e.IsObject()) {
                return false;
            }
            std::set<std::string, std::less<>> values;
            if (const json::Value* vs = json::member(e, "values"); vs && vs->IsArray()) {
                for (const json::Value& v : vs->GetArray()) {
                    if (v.IsString()) {
                        values.emplace(json::view(v));
                    }
                }
            }
            if (!podMatchesScope(obj, json::stringMember(e, "scopeName"),
                                 json::stringMember(e, "operator"), values)) {
                return false;
            }
        }
    }
    return true;
}

std::optional<std::string> constraints(const registry::KindInfo& kind,
                                       const std::vector<std::string>& restricted,
                                       const json::Value& obj) {
    if (!isCore(kind, "pods")) {
        return std::nullopt;
    }
    // The resources kube requires every container to set (its validationSet).
    std::set<std::string, std::less<>> required;
    for (const std::string& r : restricted) {
        for (const char* v :
             {"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"}) {
            if (r == v) {
                required.insert(r);
            }
        }
    }
    std::map<std::string, std::set<std::string>> missing;
    for (const char* list : {"containers", "initContainers"}) {
        const json::Value* cs = json::at(obj, {"spec", list});
        if (!cs || !cs->IsArray()) {
            continue;
        }
        for (const json::Value& c : cs->GetArray()) {
            if (!c.IsObject()) {
                continue;
            }
            List set = computeUsage(resources::listOf(json::at(c, {"resources", "requests"})),
                                    resources::listOf(json::at(c, {"resources", "limits"})));
            for (const std::string& r : required) {
                if (!set.count(r)) {
                    missing[r].insert(std::string(json::stringMember(c, "name")));
                }
            }
        }
    }
    if (missing.empty()) {
        return std::nullopt;
    }
    std::string out = "must specify ";
    bool first = true;
    for (const auto& [r, names] : missing) {
        out += (first ? "" : "; ") + r + " for: ";
        first = false;
        bool firstName = true;
        for (const std::string& n : names) {
            out += (firstName ? "" : ",") + n;
            firstName = false;
        }
    }
    return out;
}

bool evaluates(const registry::KindInfo& kind, Operation op, std::string_view subresource) {
    if (!subresource.empty()) {
        return false;
    }
    if (op == Operation::Create) {
        return true;
    }
    return op == Operation::Update &&
           (isCore(kind, "services") || isCore(kind, "persistentvolumeclaims"));
}

std::string resourceNames(const List& list) {
    std::string out;
    for (const auto& [k, v] : list) {
        out += (out.empty() ? "" : ",") + k;
    }
    return out;
}

std::string prettyPrint(const List& list) {
    std::string out;
    for (const auto& [k, v] : list) {
        out += (out.empty() ? "" : ",") + k + "=" + v.string();
    }
    return out;
}

std::optional<std::string> check(const registry::KindInfo& kind, const json::Value& obj,
                                 const json::Value* old, std::vector<Quota>& quotas) {
    std::vector<Quota*> interesting;
    for (Quota& q : quotas) {
        std::vector<std::string> hard;
        for (const auto& [k, v] : q.hard) {
            hard.push_back(k);
        }
        std::vector<std::string> restricted = matchingResources(kind, hard);
        // generic.Matches: at least one tracked resource, and every scope.
        if (restricted.empty() || !q.object || !matchesScopes(kind, *q.object, obj)) {
            continue;
        }
        if (std::optional<std::string> bad = constraints(kind, restricted, obj)) {
            return "failed quota: " + q.name + ": " + *bad;
        }
        List unknown;
        for (const std::string& r : restricted) {
            if (!q.used.count(r)) {
                unknown.emplace(r, Quantity());
            }
        }
        if (!unknown.empty()) {
            return "status unknown for quota: " + q.name + ", resources: " + resourceNames(unknown);
        }
        interesting.push_back(&q);
    }
    if (interesting.empty()) {
        return std::nullopt;
    }
    List delta = usage(kind, obj);
    if (old) {
        // SubtractWithNonNegativeResult: only growth is charged.
        List prev = usage(kind, *old);
        for (auto& [k, v] : delta) {
            if (auto it = prev.find(k); it != prev.end()) {
                Quantity d = resources::minus(v, it->second);
                v = d.compare(Quantity()) < 0 ? Quantity() : d;
            }
        }
    }
    for (auto it = delta.begin(); it != delta.end();) {
        it = it->second.isZero() ? delta.erase(it) : std::next(it);
    }
    if (delta.empty()) {
        return std::nullopt;
    }
    for (Quota* q : interesting) {
        List requested = mask(delta, keys(q->hard));
        List next = addLists(q->used, requested);
        List exceeded;
        for (const auto& [k, v] : mask(next, keys(requested))) {
            if (!lessOrEqual(v, q->hard.at(k))) {
                exceeded.emplace(k, v);
            }
        }
        if (!exceeded.empty()) {
            auto names = keys(exceeded);
            return "exceeded quota: " + q->name +
                   ", requested: " + prettyPrint(mask(requested, names)) +
                   ", used: " + prettyPrint(mask(q->used, names)) +
                   ", limited: " + prettyPrint(mask(q->hard, names));
        }
        if (!requested.empty()) {
            q->used = std::move(next);
            q->changed = true;
        }
    }
    return std::nullopt;
}

}  // namespace kube::admission::quota
