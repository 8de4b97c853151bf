#include "flowcontrol/controller.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kube::flowcontrol {

namespace json = util::json;
namespace cacher = storage::cacher;

namespace {

enum class Distinguisher { None, ByUser, ByNamespace };

enum class SubjectKind { Other, User, Group, ServiceAccount };

struct SubjectRule {
    SubjectKind kind = SubjectKind::Other;
    std::string name;
    std::string namespace_;  // ServiceAccount only
};

struct ResourceRule {
    std::vector<std::string> verbs, apiGroups, resources, namespaces;
    bool clusterScope = false;
};

struct NonResourceRule {
    std::vector<std::string> verbs, urls;
};

struct RuleSet {
    std::vector<SubjectRule> subjects;
    std::vector<ResourceRule> resourceRules;
    std::vector<NonResourceRule> nonResourceRules;
};

std::vector<std::string> strings(const json::Value& obj, std::string_view name) {
    std::vector<std::string> out;
    const json::Value* v = json::member(obj, name);
    if (v && v->IsArray()) {
        for (const json::Value& s : v->GetArray()) {
            if (s.IsString()) {
                out.emplace_back(json::view(s));
            }
        }
    }
    return out;
}

bool contains(const std::vector<std::string>& list, std::string_view value, std::string_view all) {
    return std::any_of(list.begin(), list.end(),
                       [&](const std::string& s) { return s == value || s == all; });
}

int intMember(const json::Value* obj, std::string_view name, int absent) {
    const json::Value* v = obj ? json::member(*obj, name) : nullptr;
    return v && v->IsInt() ? v->GetInt() : absent;
}

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";

// Mirrors matchesSubject.
bool subjectMatches(const SubjectRule& s, const authn::UserInfo& user) {
    if (s.kind == SubjectKind::User) {
        return s.name == "*" || s.name == user.name;
    }
    if (s.kind == SubjectKind::Group) {
        return s.name == "*" ||
               std::find(user.groups.begin(), user.groups.end(), s.name) != user.groups.end();
    }
    if (s.kind == SubjectKind::ServiceAccount) {
        std::string_view u = user.name;
        if (!u.starts_with(kServiceAccountPrefix)) {
            return false;
        }
        u.remove_prefix(kServiceAccountPrefix.size());
        size_t colon = u.find(':');
        if (colon == std::string_view::npos || u.substr(0, colon) != s.namespace_) {
            return false;
        }
        return s.name == "*" || u.substr(colon + 1) == s.name;
    }
    return false;
}

// Mirrors matchesResourcePolicyRule: "pods/log" names a subresource.
bool resourceMatches(const ResourceRule& r, const authz::Attributes& a) {
    if (!contains(r.verbs, a.verb, "*") || !contains(r.apiGroups, a.apiGroup, "*")) {
        return false;
    }
    bool found = a.subresource.empty()
                     ? contains(r.resources, a.resource, "*")
                     : std::any_of(r.resources.begin(), r.resources.end(), [&](const std::string& s) {
                           // "resource/subresource"
                           return s == "*" || (s.size() == a.resource.size() + 1 +
                                                              a.subresource.size() &&
                                               s.starts_with(a.resource) &&
                                               s[a.resource.size()] == '/' &&
                                               s.ends_with(a.subresource));
                       });
    if (!found) {
        return false;
    }
    if (a.namespace_.empty()) {
        return r.clusterScope;
    }
    return contains(r.namespaces, a.namespace_, "*");
}

// Mirrors nonResourceURLMatches: "*" everything, a trailing "*" a prefix.
bool urlMatches(const std::vector<std::string>& patterns, std::string_view path) {
    for (std::string_view p : patterns) {
        if (p == "*" || p == path) {
            return true;
        }
        if (p.ends_with('*') && path.starts_with(p.substr(0, p.find_last_not_of('*') + 1))) {
            return true;
        }
    }
    return false;
}

bool ruleSetMatches(const RuleSet& rs, const authz::Attributes& a) {
    if (std::none_of(rs.subjects.begin(), rs.subjects.end(),
                     [&](const SubjectRule& s) { return subjectMatches(s, a.user); })) {
        return false;
    }
    if (a.isResourceRequest) {
        return std::any_of(rs.resourceRules.begin(), rs.resourceRules.end(),
                           [&](const ResourceRule& r) { return resourceMatches(r, a); });
    }
    return std::any_of(rs.nonResourceRules.begin(), rs.nonResourceRules.end(),
                       [&](const NonResourceRule& r) {
                           return contains(r.verbs, a.verb, "*") && urlMatches(r.urls, a.path);
                       });
}

}  // namespace

struct Controller::Schema {
    std::string name;
    std::string uid;
    int precedence = 0;
    std::string level;
    Distinguisher distinguisher = Distinguisher::None;
    std::vector<RuleSet> rules;
    bool dangling = false;
    // The stored Dangling condition's status ("" without one).
    std::string danglingStatus;

    static std::shared_ptr<Schema> parse(const json::Value& obj) {
        auto s = std::make_shared<Schema>();
        const json::Value* meta = json::member(obj, "metadata");
        const json::Value* spec = json::member(obj, "spec");
        if (!meta || !spec || !spec->IsObject()) {
            return nullptr;
        }
        s->name = json::stringMember(*meta, "name");
        s->uid = json::stringMember(*meta, "uid");
        s->precedence = intMember(spec, "matchingPrecedence", 1000);
        if (const json::Value* ref = json::member(*spec, "priorityLevelConfiguration")) {
            s->level = json::stringMember(*ref, "name");
        }
        if (const json::Value* dm = json::member(*spec, "distinguisherMethod");
            dm && dm->IsObject()) {
            std::string_view t = json::stringMember(*dm, "type");
            s->distinguisher = t == "ByUser"        ? Distinguisher::ByUser
                               : t == "ByNamespace" ? Distinguisher::ByNamespace
                                                    : Distinguisher::None;
        }
        const json::Value* rules = json::member(*spec, "rules");
        if (!rules || !rules->IsArray()) {
            return s;
        }
        for (const json::Value& r : rules->GetArray()) {
            if (!r.IsObject()) {
                continue;
            }
            RuleSet rs;
            if (const json::Value* subjects = json::member(r, "subjects");
                subjects && subjects->IsArray()) {
                for (const json::Value& sub : subjects->GetArray()) {
                    SubjectRule sr;
                    std::string_view kind = json::stringMember(sub, "kind");
                    sr.kind = kind == "User"             ? SubjectKind::User
                              : kind == "Group"          ? SubjectKind::Group
                              : kind == "ServiceAccount" ? SubjectKind::ServiceAccount
                                                         : SubjectKind::Other;
                    if (const json::Value* u = json::member(sub, "user")) {
                        sr.name = json::stringMember(*u, "name");
                    } else if (const json::Value* g = json::member(sub, "group")) {
                        sr.name = json::stringMember(*g, "name");
                    } else if (const json::Value* sa = json::member(sub, "serviceAccount")) {
                        sr.name = json::stringMember(*sa, "name");
                        sr.namespace_ = json::stringMember(*sa, "namespace");
                    }
                    rs.subjects.push_back(std::move(sr));
                }
            }
            if (const json::Value* rr = json::member(r, "resourceRules"); rr && rr->IsArray()) {
                for (const json::Value& x : rr->GetArray()) {
                    const json::Value* cs = json::member(x, "clusterScope");
                    rs.resourceRules.push_back({strings(x, "verbs"), strings(x, "apiGroups"),
                                                strings(x, "resources"), strings(x, "namespaces"),
                                                cs && cs->IsBool() && cs->GetBool()});
                }
            }
            if (const json::Value* nr = json::member(r, "nonResourceRules"); nr && nr->IsArray()) {
                for (const json::Value& x : nr->GetArray()) {
                    rs.nonResourceRules.push_back(
                        {strings(x, "verbs"), strings(x, "nonResourceURLs")});
                }
            }
            s->rules.push_back(std::move(rs));
        }
        return s;
    }

    // The stored Dangling condition's status.
    void readStatus(const json::Value& obj) {
        if (const json::Value* conds = json::at(obj, {"status", "conditions"});
            conds && conds->IsArray()) {
            for (const json::Value& c : conds->GetArray()) {
                if (c.IsObject() && json::stringMember(c, "type") == "Dangling") {
                    danglingStatus = json::stringMember(c, "status");
                }
            }
        }
    }
};

Controller::Controller() : config_(std::make_shared<Configuration>()) {}
Controller::~Controller() = default;

void Controller::follow(cacher::WatchCache& flowSchemas, cacher::WatchCache& levels) {
    followers_.clear();
    followers_.push_back(std::make_unique<cacher::Follower>(flowSchemas, handlers(true)));
    followers_.push_back(std::make_unique<cacher::Follower>(levels, handlers(false)));
    rebuild();
}

// Every event rebuilds at once; so does a reset, after the whole state.
cacher::Follower::JsonHandlers Controller::handlers(bool flowSchemas) {
    cacher::Follower::JsonHandlers h;
    h.replacing = [this, flowSchemas] { clear(flowSchemas); };
    h.put = [this, flowSchemas](const json::Value& obj) { put(flowSchemas, obj); };
    h.remove = [this, flowSchemas](std::string_view /*namespace_*/, std::string_view name) {
        remove(flowSchemas, std::string(name));
    };
    h.changed = [this] { rebuild(); };
    return h;
}

void Controller::put(bool flowSchema, const json::Value& obj) {
    const json::Value* meta = json::member(obj, "metadata");
    if (!meta) {
        return;
    }
    auto doc = std::make_shared<json::Document>();
    doc->CopyFrom(obj, doc->GetAllocator());
    (flowSchema ? flowSchemas_ : levels_)[std::string(json::stringMember(*meta, "name"))] = doc;
}

void Controller::remove(bool flowSchema, const std::string& name) {
    (flowSchema ? flowSchemas_ : levels_).erase(name);
}

void Controller::clear(bool flowSchema) {
    (flowSchema ? flowSchemas_ : levels_).clear();
}

void Controller::setServerConcurrencyLimit(int total) {
    serverLimit_ = total;
    rebuild();
}

void Controller::rebuild() {
    std::vector<std::shared_ptr<Level>> levels;
    for (const auto& [name, doc] : levels_) {
        auto l = std::make_shared<Level>();
        const json::Value& obj = *doc;
        l->name = name;
        l->uid = json::stringMember(obj["metadata"], "uid");
        const json::Value* spec = json::member(obj, "spec");
        std::string_view type = spec ? json::stringMember(*spec, "type") : "";
        l->exempt = type == "Exempt";
        const json::Value* limited = spec ? json::member(*spec, "limited") : nullptr;
        const json::Value* exempt = spec ? json::member(*spec, "exempt") : nullptr;
        const json::Value* shares = l->exempt ? exempt : limited;
        l->nominalConcurrencyShares = intMember(shares, "nominalConcurrencyShares", 0);
        l->lendablePercent = intMember(shares, "lendablePercent", 0);
        if (!l->exempt && limited) {
            const json::Value* b = json::member(*limited, "borrowingLimitPercent");
            if (b && b->IsInt()) {
                l->borrowingLimitPercent = b->GetInt();
            }
            const json::Value* response = json::member(*limited, "limitResponse");
            l->reject = response && json::stringMember(*response, "type") == "Reject";
            const json::Value* q = response ? json::member(*response, "queuing") : nullptr;
            l->queuing.queues = intMember(q, "queues", 64);
            l->queuing.handSize = intMember(q, "handSize", 8);
            l->queuing.queueLengthLimit = intMember(q, "queueLengthLimit", 50);
        }
        levels.push_back(std::move(l));
    }
    computeSeats(serverLimit_, levels);
    auto config = std::make_shared<Configuration>();
    config->serverConcurrencyLimit = serverLimit_;
    config->levels.assign(levels.begin(), levels.end());

    std::vector<std::shared_ptr<const Schema>> schemas;
    std::vector<DanglingChange> changes;
    for (const auto& [name, doc] : flowSchemas_) {
        std::shared_ptr<Schema> s = Schema::parse(*doc);
        if (!s) {
            continue;
        }
        s->readStatus(*doc);
        s->dangling = levels_.find(s->level) == levels_.end();
        if (s->danglingStatus != (s->dangling ? "True" : "False")) {
            changes.push_back({s->name, s->level, s->dangling});
        }
        schemas.push_back(std::move(s));
    }
    std::sort(schemas.begin(), schemas.end(), [](const auto& a, const auto& b) {
        return a->precedence != b->precedence ? a->precedence < b->precedence : a->name < b->name;
    });
    schemas_ = std::move(schemas);
    config_ = std::move(config);
    decisions_.clear();
    read_ = !followers_.empty() || !levels_.empty() || !flowSchemas_.empty();
    if (danglingChanged_ && !changes.empty()) {
        danglingChanged_(changes);
    }
}

namespace {

// What classification reads of a request, in order: each text part
// length-prefixed (`counted`), the number of groups and the resource/URL
// mark as they are. One list, walked to size the key and to write it.
template <class Part>
void forEachKeyPart(const authz::Attributes& a, std::uint32_t& groups, Part&& part) {
    groups = static_cast<std::uint32_t>(a.user.groups.size());
    part(a.user.name, true);
    part(std::string_view(reinterpret_cast<const char*>(&groups), sizeof(groups)), false);
    for (const std::string& g : a.user.groups) {
        part(g, true);
    }
    part(a.verb, true);
    if (a.isResourceRequest) {
        part("r", false);
        part(a.apiGroup, true);
        part(a.resource, true);
        part(a.subresource, true);
        part(a.namespace_, true);
    } else {
        part("n", false);
        part(a.path, true);
    }
}

// The key, sized once and written in place (it keeps its buffer between
// requests).
void decisionKey(std::string& key, const authz::Attributes& a) {
    std::uint32_t groups = 0;
    size_t size = 0;
    forEachKeyPart(a, groups, [&size](std::string_view part, bool counted) {
        size += (counted ? sizeof(std::uint32_t) : 0) + part.size();
    });
    key.resize(size);
    char* at = key.data();
    forEachKeyPart(a, groups, [&at](std::string_view part, bool counted) {
        if (counted) {
            auto n = static_cast<std::uint32_t>(part.size());
            std::memcpy(at, &n, sizeof(n));
            at += sizeof(n);
        }
        if (!part.empty()) {
            std::memcpy(at, part.data(), part.size());
        }
        at += part.size();
    });
}

}  // namespace

const Decision* Controller::classify(const authz::Attributes& request) const {
    if (!read_) {
        return nullptr;
    }
    decisionKey(key_, request);
    auto found = decisions_.find(key_);
    if (found != decisions_.end()) {
        return &found->second;
    }

    for (const auto& s : schemas_) {
        if (s->dangling || std::none_of(s->rules.begin(), s->rules.end(), [&](const RuleSet& rs) {
                return ruleSetMatches(rs, request);
            })) {
            continue;
        }
        Decision d;
        d.flowSchemaName = s->name;
        d.flowSchemaUid = s->uid;
        for (const auto& l : config_->levels) {
            if (l->name == s->level) {
                d.level = l;
            }
        }
        if (s->distinguisher == Distinguisher::ByUser) {
            d.flowDistinguisher = request.user.name;
        } else if (s->distinguisher == Distinguisher::ByNamespace) {
            d.flowDistinguisher = request.namespace_;
        }
        d.flowHash = hashFlowID(d.flowSchemaName, d.flowDistinguisher);
        if (decisions_.size() >= kMaxDecisions) {
            decisions_.clear();
        }
        return &decisions_.emplace(key_, std::move(d)).first->second;
    }
    return nullptr;
}

std::uint64_t hashFlowID(std::string_view flowSchema, std::string_view distinguisher) {
    // on the stack when it fits (names are at most 253 bytes; user names
    // may be longer)
    char small[512];
    std::string large;
    size_t size = flowSchema.size() + 1 + distinguisher.size();
    char* input = small;
    if (size > sizeof(small)) {
        large.resize(size);
        input = large.data();
    }
    std::memcpy(input, flowSchema.data(), flowSchema.size());
    input[flowSchema.size()] = '\0';
    std::memcpy(input + flowSchema.size() + 1, distinguisher.data(), distinguisher.size());
    unsigned char sum[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(input), size, sum);
    std::uint64_t h = 0;
    for (int i = 7; i >= 0; --i) {
        h = (h << 8) | sum[i];
    }
    return h;
}

void computeSeats(int serverConcurrencyLimit, std::vector<std::shared_ptr<Level>>& levels) {
    double sum = 0;
    for (const auto& l : levels) {
        sum += l->nominalConcurrencyShares;
    }
    for (const auto& l : levels) {
        double nominal = sum > 0 ? std::ceil(serverConcurrencyLimit *
                                             static_cast<double>(l->nominalConcurrencyShares) / sum)
                                 : 0;
        l->nominalSeats = static_cast<int>(nominal);
        l->lendableSeats = static_cast<int>(std::round(nominal * l->lendablePercent / 100.0));
        l->borrowingSeats =
            l->borrowingLimitPercent
                ? static_cast<int>(std::round(nominal * *l->borrowingLimitPercent / 100.0))
                : -1;
    }
}

}  // namespace kube::flowcontrol
