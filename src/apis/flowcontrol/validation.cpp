#include "apis/flowcontrol/validation.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "flowcontrol/bootstrap.hpp"
#include "registry/validation.hpp"

namespace kube::apis::flowcontrol {

namespace {

namespace json = util::json;
using field::child;
using field::index;
using registry::validation::BadValue;

constexpr int kMaxMatchingPrecedence = 10000;
constexpr int64_t kMaxQueues = 10 * 1000 * 1000;
// shufflesharding.MaxHashBits: a hand is dealt from a 60-bit hash.
constexpr int kMaxHashBits = 60;

const std::vector<std::string> kVerbs = {"create", "delete", "deletecollection", "get", "list",
                                         "patch",  "proxy",  "update",           "watch"};

std::vector<std::string> strings(const json::Value* list) {
    std::vector<std::string> out;
    if (list && list->IsArray()) {
        for (const json::Value& v : list->GetArray()) {
            out.emplace_back(v.IsString() ? json::view(v) : std::string_view());
        }
    }
    return out;
}

bool hasWildcard(const std::vector<std::string>& list) {
    return std::find(list.begin(), list.end(), "*") != list.end();
}

// Go's %#v of a []string, the bad value of the list checks.
BadValue goStrings(const std::vector<std::string>& list) {
    std::string s = "[]string{";
    for (size_t i = 0; i < list.size(); ++i) {
        s += (i ? ", " : "") + registry::validation::goQuote(list[i]);
    }
    return BadValue::raw(s + "}");
}

int64_t integer(const json::Value& obj, std::string_view name, int64_t absent = 0) {
    const json::Value* v = json::member(obj, name);
    return v && v->IsInt64() ? v->GetInt64() : absent;
}

const json::Value* object(const json::Value* parent, std::string_view name) {
    const json::Value* v = parent ? json::member(*parent, name) : nullptr;
    return v && v->IsObject() ? v : nullptr;
}

// The verbs of a resource or non-resource rule.
void validateVerbs(const json::Value& rule, const std::string& path, field::Causes& out) {
    std::vector<std::string> verbs = strings(json::member(rule, "verbs"));
    std::string p = child(path, "verbs");
    if (verbs.empty()) {
        out.push_back(field::required(p, "verbs must contain at least one value"));
    } else if (hasWildcard(verbs)) {
        if (verbs.size() > 1) {
            out.push_back(field::invalid(p, goStrings(verbs),
                                         "if '*' is present, must not specify other verbs"));
        }
    } else if (std::any_of(verbs.begin(), verbs.end(), [](const std::string& v) {
                   return std::find(kVerbs.begin(), kVerbs.end(), v) == kVerbs.end();
               })) {
        out.push_back(field::notSupported(p, goStrings(verbs), kVerbs));
    }
}

// A list that may hold "*" only alone, and must not be empty.
void validateWildcardList(const json::Value& rule, std::string_view name, const std::string& path,
                          std::string_view emptyDetail, std::string_view what,
                          field::Causes& out) {
    std::vector<std::string> list = strings(json::member(rule, name));
    std::string p = child(path, name);
    if (list.empty()) {
        out.push_back(field::required(p, emptyDetail));
    } else if (list.size() > 1 && hasWildcard(list)) {
        out.push_back(field::invalid(p, goStrings(list),
                                     "if '*' is present, must not specify other " +
                                         std::string(what)));
    }
}

void validateResourceRule(const json::Value& rule, const std::string& path, field::Causes& out) {
    validateVerbs(rule, path, out);
    validateWildcardList(rule, "apiGroups", path, "resource rules must supply at least one api group",
                         "api groups", out);
    validateWildcardList(rule, "resources", path,
                         "resource rules must supply at least one resource", "resources", out);
    std::vector<std::string> namespaces = strings(json::member(rule, "namespaces"));
    const json::Value* cluster = json::member(rule, "clusterScope");
    bool clusterScope = cluster && cluster->IsBool() && cluster->GetBool();
    std::string p = child(path, "namespaces");
    if (namespaces.empty() && !clusterScope) {
        out.push_back(field::required(
            p, "resource rules that are not cluster scoped must supply at least one namespace"));
    } else if (hasWildcard(namespaces)) {
        if (namespaces.size() > 1) {
            out.push_back(field::invalid(p, goStrings(namespaces),
                                         "if '*' is present, must not specify other namespaces"));
        }
    } else {
        for (size_t i = 0; i < namespaces.size(); ++i) {
            for (const std::string& msg :
                 registry::validation::isDNS1123Label(namespaces[i])) {
                out.push_back(field::invalid(
                    index(p, i), namespaces[i],
                    "each member of this list must be '*' or a DNS-1123 label; " + msg));
            }
        }
    }
}

void validateNonResourceRule(const json::Value& rule, const std::string& path,
                             field::Causes& out) {
    validateVerbs(rule, path, out);
    std::vector<std::string> urls = strings(json::member(rule, "nonResourceURLs"));
    std::string p = child(path, "nonResourceURLs");
    if (urls.empty()) {
        out.push_back(field::required(p, "nonResourceURLs must contain at least one value"));
    } else if (hasWildcard(urls)) {
        if (urls.size() > 1) {
            out.push_back(field::invalid(
                p, goStrings(urls), "if '*' is present, must not specify other non-resource URLs"));
        }
    } else {
        for (size_t i = 0; i < urls.size(); ++i) {
            std::string why = nonResourceURLPathError(urls[i]);
            if (!why.empty()) {
                out.push_back(field::invalid(index(p, i), urls[i], why));
            }
        }
    }
}

// Mirrors ValidateFlowSchemaSubject and the kind-specific subject checks.
void validateSubject(const json::Value& s, const std::string& path, field::Causes& out) {
    std::string_view kind = json::stringMember(s, "kind");
    const json::Value* user = object(&s, "user");
    const json::Value* group = object(&s, "group");
    const json::Value* sa = object(&s, "serviceAccount");
    auto notUser = [&] {
        if (user) {
            out.push_back(field::forbidden(child(path, "user"),
                                           "user is forbidden when subject kind is not 'User'"));
        }
    };
    auto notGroup = [&] {
        if (group) {
            out.push_back(field::forbidden(child(path, "group"),
                                           "group is forbidden when subject kind is not 'Group'"));
        }
    };
    auto notServiceAccount = [&] {
        if (sa) {
            out.push_back(field::forbidden(
                child(path, "serviceAccount"),
                "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"));
        }
    };
    if (kind == "ServiceAccount") {
        std::string p = child(path, "serviceAccount");
        if (!sa) {
            out.push_back(field::required(
                p, "serviceAccount is required when subject kind is 'ServiceAccount'"));
        } else {
            std::string_view name = json::stringMember(*sa, "name");
            if (name.empty()) {
                out.push_back(field::required(child(p, "name")));
            } else if (name != "*") {
                for (const std::string& msg : registry::validation::isDNS1123Subdomain(name)) {
                    out.push_back(field::invalid(child(p, "name"), name, msg));
                }
            }
            std::string_view ns = json::stringMember(*sa, "namespace");
            if (ns.empty()) {
                out.push_back(field::required(child(p, "namespace"),
                                              "must specify namespace for service account"));
            } else {
                for (const std::string& msg : registry::validation::isDNS1123Label(ns)) {
                    out.push_back(field::invalid(child(p, "namespace"), ns, msg));
                }
            }
        }
        notUser();
        notGroup();
    } else if (kind == "User" || kind == "Group") {
        bool isUser = kind == "User";
        const json::Value* named = isUser ? user : group;
        std::string p = child(path, isUser ? "user" : "group");
        if (!named) {
            out.push_back(field::required(p, std::string(isUser ? "user" : "group") +
                                                 " is required when subject kind is '" +
                                                 std::string(kind) + "'"));
        } else if (json::stringMember(*named, "name").empty()) {
            out.push_back(field::required(child(p, "name")));
        }
        notServiceAccount();
        isUser ? notGroup() : notUser();
    } else {
        out.push_back(field::notSupported(child(path, "kind"), kind,
                                          {"Group", "ServiceAccount", "User"}));
    }
}

void validateRules(const json::Value& spec, field::Causes& out) {
    const json::Value* rules = json::member(spec, "rules");
    if (!rules || !rules->IsArray()) {
        return;
    }
    for (size_t i = 0; i < rules->Size(); ++i) {
        const json::Value& rule = (*rules)[i];
        std::string path = index("spec.rules", i);
        if (!rule.IsObject()) {
            continue;
        }
        const json::Value* subjects = json::member(rule, "subjects");
        if (subjects && subjects->IsArray() && !subjects->Empty()) {
            for (size_t j = 0; j < subjects->Size(); ++j) {
                if ((*subjects)[j].IsObject()) {
                    validateSubject((*subjects)[j], index(child(path, "subjects"), j), out);
                }
            }
        } else {
            out.push_back(field::required(child(path, "subjects"),
                                          "subjects must contain at least one value"));
        }
        const json::Value* resource = json::member(rule, "resourceRules");
        const json::Value* nonResource = json::member(rule, "nonResourceRules");
        bool noResource = !resource || !resource->IsArray() || resource->Empty();
        bool noNonResource = !nonResource || !nonResource->IsArray() || nonResource->Empty();
        if (noResource && noNonResource) {
            out.push_back(field::required(
                path, "at least one of resourceRules and nonResourceRules has to be non-empty"));
        }
        for (size_t j = 0; !noResource && j < resource->Size(); ++j) {
            if ((*resource)[j].IsObject()) {
                validateResourceRule((*resource)[j], index(child(path, "resourceRules"), j), out);
            }
        }
        for (size_t j = 0; !noNonResource && j < nonResource->Size(); ++j) {
            if ((*nonResource)[j].IsObject()) {
                validateNonResourceRule((*nonResource)[j],
                                        index(child(path, "nonResourceRules"), j), out);
            }
        }
    }
}

void validateConditions(const json::Value& obj, field::Causes& out) {
    const json::Value* conditions = json::at(obj, {"status", "conditions"});
    if (!conditions || !conditions->IsArray()) {
        return;
    }
    std::vector<std::string> seen;
    for (size_t i = 0; i < conditions->Size(); ++i) {
        const json::Value& c = (*conditions)[i];
        std::string type(c.IsObject() ? json::stringMember(c, "type") : "");
        std::string path = index("status.conditions", i);
        if (std::find(seen.begin(), seen.end(), type) != seen.end()) {
            out.push_back(field::duplicate(child(path, "type"), type));
        }
        seen.push_back(type);
        if (type.empty()) {
            out.push_back(field::required(child(path, "type"), "must not be empty"));
        }
    }
}

// The spec of a mandatory object may not differ from the bootstrap one.
void validateMandatory(const json::Value& obj, std::string_view resource, field::Causes& out) {
    std::string_view name = json::stringMember(obj["metadata"], "name");
    const kube::flowcontrol::BootstrapObject* mandatory =
        kube::flowcontrol::mandatoryObject(resource, name);
    const json::Value* spec = json::member(obj, "spec");
    if (!mandatory || !spec) {
        return;
    }
    const json::Value& want = (*mandatory->object)["spec"];
    // The exempt level's shares are the operator's (its spec.exempt is not
    // fixed); only its type is.
    bool same = name == "exempt" && resource == "prioritylevelconfigurations"
                    ? json::stringMember(*spec, "type") == json::stringMember(want, "type")
                    : *spec == want;
    if (!same) {
        out.push_back(field::invalid("spec", BadValue(*spec),
                                     "spec of '" + std::string(name) +
                                         "' must equal the fixed value"));
    }
}

void validateQueuing(const json::Value& q, const std::string& path, field::Causes& out) {
    int64_t limit = integer(q, "queueLengthLimit");
    if (limit <= 0) {
        out.push_back(field::invalid(child(path, "queueLengthLimit"), limit, "must be positive"));
    }
    int64_t queues = integer(q, "queues");
    if (queues <= 0) {
        out.push_back(field::invalid(child(path, "queues"), queues, "must be positive"));
    } else if (queues > kMaxQueues) {
        out.push_back(field::invalid(child(path, "queues"), queues,
                                     "must not be greater than " + std::to_string(kMaxQueues)));
    }
    int64_t hand = integer(q, "handSize");
    if (hand <= 0) {
        out.push_back(field::invalid(child(path, "handSize"), hand, "must be positive"));
    } else if (hand > queues) {
        out.push_back(field::invalid(child(path, "handSize"), hand,
                                     "should not be greater than queues (" +
                                         std::to_string(queues) + ")"));
    } else {
        // shufflesharding.RequiredEntropyBits: ceil(log2(queues) * hand).
        double bits = std::log2(static_cast<double>(queues)) * static_cast<double>(hand);
        if (static_cast<int>(std::ceil(bits)) > kMaxHashBits) {
            out.push_back(field::invalid(
                child(path, "handSize"), hand,
                "required entropy bits of deckSize " + std::to_string(queues) + " and handSize " +
                    std::to_string(hand) + " should not be greater than " +
                    std::to_string(kMaxHashBits)));
        }
    }
}

void validateLimited(const json::Value& limited, std::string_view version, field::Causes& out) {
    const std::string path = "spec.limited";
    int64_t shares = integer(limited, "nominalConcurrencyShares");
    if (version == "v1" ? shares < 0 : shares <= 0) {
        out.push_back(field::invalid(child(path, "nominalConcurrencyShares"), shares,
                                     version == "v1" ? "must be a non-negative integer"
                                                     : "must be positive"));
    }
    const json::Value* response = object(&limited, "limitResponse");
    std::string_view type = response ? json::stringMember(*response, "type") : "";
    const json::Value* queuing = object(response, "queuing");
    std::string rp = child(path, "limitResponse");
    if (type == "Reject") {
        if (queuing) {
            out.push_back(field::forbidden(child(rp, "queuing"),
                                           "must be nil if limited.limitResponse.type is not "
                                           "Limited"));
        }
    } else if (type == "Queue") {
        if (!queuing) {
            out.push_back(field::required(child(rp, "queuing"),
                                          "must not be empty if limited.limitResponse.type is "
                                          "Limited"));
        } else {
            validateQueuing(*queuing, child(rp, "queuing"), out);
        }
    } else {
        out.push_back(field::notSupported(child(rp, "type"), type, {"Queue", "Reject"}));
    }
    const json::Value* lendable = json::member(limited, "lendablePercent");
    if (lendable && lendable->IsInt64() && (lendable->GetInt64() < 0 || lendable->GetInt64() > 100)) {
        out.push_back(field::invalid(child(path, "lendablePercent"), lendable->GetInt64(),
                                     "must be between 0 and 100, inclusive"));
    }
    const json::Value* borrowing = json::member(limited, "borrowingLimitPercent");
    if (borrowing && borrowing->IsInt64() && borrowing->GetInt64() < 0) {
        out.push_back(field::invalid(child(path, "borrowingLimitPercent"), borrowing->GetInt64(),
                                     "if specified, must be a non-negative integer"));
    }
}

void validateExempt(const json::Value& exempt, field::Causes& out) {
    const json::Value* shares = json::member(exempt, "nominalConcurrencyShares");
    if (shares && shares->IsInt64() && shares->GetInt64() < 0) {
        out.push_back(field::invalid("spec.exempt.nominalConcurrencyShares", shares->GetInt64(),
                                     "must be a non-negative integer"));
    }
    const json::Value* lendable = json::member(exempt, "lendablePercent");
    if (lendable && lendable->IsInt64() && (lendable->GetInt64() < 0 || lendable->GetInt64() > 100)) {
        out.push_back(field::invalid("spec.exempt.lendablePercent", lendable->GetInt64(),
                                     "must be between 0 and 100, inclusive"));
    }
}

}  // namespace

std::string nonResourceURLPathError(std::string_view path) {
    if (path.empty()) {
        return "must not be empty";
    }
    if (path == "/") {
        return "";
    }
    if (!path.starts_with('/')) {
        return "must start with slash";
    }
    if (path.find(' ') != std::string_view::npos) {
        return "must not contain white-space";
    }
    if (path.find("//") != std::string_view::npos) {
        return "must not contain double slash";
    }
    auto stars = std::count(path.begin(), path.end(), '*');
    if (stars > 1 || (stars == 1 && !path.ends_with("/*"))) {
        return "wildcard can only do suffix matching";
    }
    return "";
}

field::Causes validateFlowSchema(const json::Value& obj) {
    field::Causes out;
    const json::Value* spec = object(&obj, "spec");
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value& s = spec ? *spec : empty;
    std::string_view name = json::stringMember(obj["metadata"], "name");
    int64_t precedence = integer(s, "matchingPrecedence");
    if (precedence <= 0) {
        out.push_back(field::invalid("spec.matchingPrecedence", precedence, "must be a positive value"));
    }
    if (precedence > kMaxMatchingPrecedence) {
        out.push_back(field::invalid("spec.matchingPrecedence", precedence,
                                     "must not be greater than " +
                                         std::to_string(kMaxMatchingPrecedence)));
    }
    if (precedence == 1 && name != "exempt") {
        out.push_back(field::invalid("spec.matchingPrecedence", precedence,
                                     "only the schema named 'exempt' may have matchingPrecedence 1"));
    }
    if (const json::Value* dm = object(&s, "distinguisherMethod")) {
        std::string_view type = json::stringMember(*dm, "type");
        if (type != "ByUser" && type != "ByNamespace") {
            out.push_back(field::notSupported(
                "spec.distinguisherMethod.type",
                BadValue::raw("flowcontrol.FlowDistinguisherMethod{Type:" +
                              registry::validation::goQuote(type) + "}"),
                {"ByNamespace", "ByUser"}));
        }
    }
    const json::Value* ref = object(&s, "priorityLevelConfiguration");
    std::string_view level = ref ? json::stringMember(*ref, "name") : "";
    if (level.empty()) {
        out.push_back(field::required("spec.priorityLevelConfiguration.name",
                                      "must reference a priority level"));
    } else {
        for (const std::string& msg : registry::validation::isDNS1123Subdomain(level)) {
            out.push_back(field::invalid("spec.priorityLevelConfiguration.name", level, msg));
        }
    }
    validateRules(s, out);
    validateMandatory(obj, "flowschemas", out);
    validateConditions(obj, out);
    return out;
}

field::Causes validatePriorityLevelConfiguration(const json::Value& obj, std::string_view version) {
    field::Causes out;
    const json::Value* spec = object(&obj, "spec");
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value& s = spec ? *spec : empty;
    std::string_view name = json::stringMember(obj["metadata"], "name");
    std::string_view type = json::stringMember(s, "type");
    if ((name == "exempt") != (type == "Exempt")) {
        out.push_back(field::invalid("spec.type", type,
                                     "type must be 'Exempt' if and only if name is 'exempt'"));
    }
    const json::Value* limited = object(&s, "limited");
    const json::Value* exempt = object(&s, "exempt");
    if (type == "Exempt") {
        if (limited) {
            out.push_back(
                field::forbidden("spec.limited", "must be nil if the type is not Limited"));
        }
        if (exempt) {
            validateExempt(*exempt, out);
        }
    } else if (type == "Limited") {
        if (exempt) {
            out.push_back(field::forbidden("spec.exempt", "must be nil if the type is Limited"));
        }
        if (!limited) {
            out.push_back(
                field::required("spec.limited", "must not be empty when type is Limited"));
        } else {
            validateLimited(*limited, version, out);
        }
    } else {
        out.push_back(field::notSupported("spec.type", type, {"Exempt", "Limited"}));
    }
    validateMandatory(obj, "prioritylevelconfigurations", out);
    validateConditions(obj, out);
    return out;
}

}  // namespace kube::apis::flowcontrol
