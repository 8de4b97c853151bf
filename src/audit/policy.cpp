// The audit policy: decoding, kube's validation, and rule matching; mirrors
// k8s.io/apiserver/pkg/audit/policy (reader.go, checker.go) and
// pkg/apis/audit/validation.

#include "audit/policy.hpp"

#include <algorithm>
#include <array>

#include "registry/validation.hpp"
#include "util/go_text.hpp"
#include "util/json.hpp"
#include "util/yaml.hpp"

namespace kube::audit {

namespace {

namespace json = util::json;

constexpr std::array<std::string_view, 4> kLevelNames = {"None", "Metadata", "Request",
                                                         "RequestResponse"};
constexpr std::array<std::string_view, kStageCount> kStageNames = {
    "RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"};

constexpr std::string_view kScheme = "k8s.io/apiserver/pkg/audit/scheme.go:30";

// A decoding failure, worded as Go's encoding/json words it.
struct DecodeError {
    std::string message;
};

[[noreturn]] void typeError(const json::Value& v, std::string_view structName,
                            std::string_view path, std::string_view goType) {
    throw DecodeError{"json: cannot unmarshal " + std::string(json::typeName(v)) +
                      " into Go struct field " + std::string(structName) + "." + std::string(path) +
                      " of type " + std::string(goType)};
}

std::string readString(const json::Value& v, std::string_view structName, std::string_view path,
                       std::string_view goType = "string") {
    if (v.IsNull()) {
        return {};
    }
    if (!v.IsString()) {
        typeError(v, structName, path, goType);
    }
    return std::string(json::view(v));
}

std::vector<std::string> readStrings(const json::Value& v, std::string_view structName,
                                     std::string_view path) {
    std::vector<std::string> out;
    if (v.IsNull()) {
        return out;
    }
    if (!v.IsArray()) {
        typeError(v, structName, path, "[]string");
    }
    for (const json::Value& s : v.GetArray()) {
        out.push_back(readString(s, structName, path));
    }
    return out;
}

// Stage names are checked by validation, after decoding, as kube does.
std::vector<std::string> readStages(const json::Value& v, std::string_view structName,
                                    std::string_view path) {
    std::vector<std::string> out;
    if (v.IsNull()) {
        return out;
    }
    if (!v.IsArray()) {
        typeError(v, structName, path, "[]v1.Stage");
    }
    for (const json::Value& s : v.GetArray()) {
        out.push_back(readString(s, structName, path, "v1.Stage"));
    }
    return out;
}

std::optional<bool> readBool(const json::Value& v, std::string_view structName,
                             std::string_view path) {
    if (v.IsNull()) {
        return std::nullopt;
    }
    if (!v.IsBool()) {
        typeError(v, structName, path, "bool");
    }
    return v.GetBool();
}

// What a rule decodes to before validation turns names into values.
struct RawRule {
    std::string level;
    std::vector<std::string> omitStages;
    PolicyRule rule;
};

GroupResources readGroupResources(const json::Value& v) {
    constexpr std::string_view kStruct = "GroupResources";
    GroupResources gr;
    if (!v.IsObject()) {
        typeError(v, "PolicyRule", "rules.resources", "v1.GroupResources");
    }
    for (const auto& m : v.GetObject()) {
        std::string_view name = json::view(m.name);
        if (name == "group") {
            gr.group = readString(m.value, kStruct, "rules.resources.group");
        } else if (name == "resources") {
            gr.resources = readStrings(m.value, kStruct, "rules.resources.resources");
        } else if (name == "resourceNames") {
            gr.resourceNames = readStrings(m.value, kStruct, "rules.resources.resourceNames");
        }
    }
    return gr;
}

RawRule readRule(const json::Value& v) {
    constexpr std::string_view kStruct = "PolicyRule";
    RawRule raw;
    if (!v.IsObject()) {
        typeError(v, "Policy", "rules", "v1.PolicyRule");
    }
    for (const auto& m : v.GetObject()) {
        std::string_view name = json::view(m.name);
        const json::Value& value = m.value;
        if (name == "level") {
            raw.level = readString(value, kStruct, "rules.level", "v1.Level");
        } else if (name == "users") {
            raw.rule.users = readStrings(value, kStruct, "rules.users");
        } else if (name == "userGroups") {
            raw.rule.userGroups = readStrings(value, kStruct, "rules.userGroups");
        } else if (name == "verbs") {
            raw.rule.verbs = readStrings(value, kStruct, "rules.verbs");
        } else if (name == "namespaces") {
            raw.rule.namespaces = readStrings(value, kStruct, "rules.namespaces");
        } else if (name == "nonResourceURLs") {
            raw.rule.nonResourceURLs = readStrings(value, kStruct, "rules.nonResourceURLs");
        } else if (name == "omitStages") {
            raw.omitStages = readStages(value, kStruct, "rules.omitStages");
        } else if (name == "omitManagedFields") {
            raw.rule.omitManagedFields = readBool(value, kStruct, "rules.omitManagedFields");
        } else if (name == "resources") {
            if (value.IsNull()) {
                continue;
            }
            if (!value.IsArray()) {
                typeError(value, kStruct, "rules.resources", "[]v1.GroupResources");
            }
            for (const json::Value& gr : value.GetArray()) {
                raw.rule.resources.push_back(readGroupResources(gr));
            }
        }
    }
    return raw;
}

std::optional<Level> levelFromName(std::string_view name) {
    for (size_t i = 0; i < kLevelNames.size(); ++i) {
        if (kLevelNames[i] == name) {
            return static_cast<Level>(i);
        }
    }
    return std::nullopt;
}

std::optional<Stage> stageFromName(std::string_view name) {
    for (size_t i = 0; i < kStageNames.size(); ++i) {
        if (kStageNames[i] == name) {
            return static_cast<Stage>(i);
        }
    }
    return std::nullopt;
}

std::string goQuote(std::string_view s) {
    std::string out;
    json::appendQuoted(out, s);
    return out;
}

// A []string as Go's %#v prints it: []string{"a", "b"}
std::string goStrings(const std::vector<std::string>& v) {
    std::string out = "[]string{";
    for (size_t i = 0; i < v.size(); ++i) {
        out += (i ? ", " : "") + goQuote(v[i]);
    }
    return out + "}";
}

// Validation errors collected as field.ErrorList does.
class Errors {
  public:
    void invalid(const std::string& path, const std::string& shown, std::string_view detail) {
        add(path + ": Invalid value: " + shown + ": " + std::string(detail));
    }
    void add(std::string message) {
        if (std::find(list_.begin(), list_.end(), message) == list_.end()) {
            list_.push_back(std::move(message));
        }
    }
    bool empty() const { return list_.empty(); }
    // utilerrors.Aggregate's Error(): one error bare, several in brackets
    std::string aggregate() const { return util::aggregateErrors(list_); }

  private:
    std::vector<std::string> list_;
};

void validateStages(const std::vector<std::string>& names, const std::string& path, Errors& errs,
                    StageSet* out) {
    for (size_t i = 0; i < names.size(); ++i) {
        if (auto s = stageFromName(names[i])) {
            out->add(*s);
            continue;
        }
        errs.invalid(path + "[" + std::to_string(i) + "]", goQuote(names[i]),
                     "allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic");
    }
}

// mirrors validation.validatePolicyRule
void validateRule(RawRule& raw, const std::string& path, Errors& errs) {
    PolicyRule& rule = raw.rule;

    if (raw.level.empty()) {
        errs.add(path + ".level: Required value");
    } else if (auto level = levelFromName(raw.level)) {
        rule.level = *level;
    } else {
        errs.add(path + ".level: Unsupported value: " + goQuote(raw.level) +
                 ": supported values: \"None\", \"Metadata\", \"Request\", \"RequestResponse\"");
    }

    for (size_t i = 0; i < rule.nonResourceURLs.size(); ++i) {
        const std::string& url = rule.nonResourceURLs[i];
        if (url == "*") {
            continue;
        }
        std::string at = path + ".nonResourceURLs[" + std::to_string(i) + "]";
        if (url.empty() || url[0] != '/') {
            errs.invalid(at, goQuote(url),
                         "non-resource URL rules must begin with a '/' character");
        }
        if (!url.empty() && url.find('*') < url.size() - 1) {
            errs.invalid(at, goQuote(url),
                         "non-resource URL wildcards '*' must be the final character of the rule");
        }
    }

    for (const GroupResources& gr : rule.resources) {
        if (!gr.group.empty()) {
            auto msgs = registry::validation::isDNS1123Subdomain(gr.group);
            if (!msgs.empty()) {
                std::string joined;
                for (size_t i = 0; i < msgs.size(); ++i) {
                    joined += (i ? "," : "") + msgs[i];
                }
                errs.invalid(path + ".resources.group", goQuote(gr.group), joined);
            }
        }
        if (!gr.resourceNames.empty() && gr.resources.empty()) {
            errs.invalid(path + ".resources.resourceNames", goStrings(gr.resourceNames),
                         "using resourceNames requires at least one resource");
        }
    }

    validateStages(raw.omitStages, path + ".omitStages", errs, &rule.omitStages);

    if (!rule.nonResourceURLs.empty() && (!rule.resources.empty() || !rule.namespaces.empty())) {
        errs.invalid(path + ".nonResourceURLs", goStrings(rule.nonResourceURLs),
                     "rules cannot apply to both regular resources and non-resource URLs");
    }
}

bool has(const std::vector<std::string>& list, std::string_view value) {
    return std::find(list.begin(), list.end(), value) != list.end();
}

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// mirrors policy.pathMatches
bool pathMatches(std::string_view path, std::string_view spec) {
    if (spec == "*" || spec == path) {
        return true;
    }
    if (!spec.empty() && spec.back() == '*') {
        size_t end = spec.find_last_not_of('*');
        std::string_view prefix = end == std::string_view::npos ? "" : spec.substr(0, end + 1);
        return startsWith(path, prefix);
    }
    return false;
}

// mirrors policy.ruleMatchesResource
bool ruleMatchesResource(const PolicyRule& r, const authz::Attributes& attrs) {
    if (!attrs.isResourceRequest) {
        return false;
    }
    if (!r.namespaces.empty() && !has(r.namespaces, attrs.namespace_)) {
        return false;
    }
    if (r.resources.empty()) {
        return true;
    }

    const std::string& resource = attrs.resource;
    const std::string& subresource = attrs.subresource;
    std::string combined = subresource.empty() ? resource : resource + "/" + subresource;

    for (const GroupResources& gr : r.resources) {
        if (gr.group != attrs.apiGroup) {
            continue;
        }
        if (gr.resources.empty()) {
            return true;
        }
        for (const std::string& res : gr.resources) {
            if (!gr.resourceNames.empty() && !has(gr.resourceNames, attrs.name)) {
                continue;
            }
            if (res == combined || res == "*") {
                return true;
            }
            std::string_view rv = res;
            if (!subresource.empty() && startsWith(rv, "*/") && rv.substr(2) == subresource) {
                return true;
            }
            if (rv.size() >= 2 && rv.substr(rv.size() - 2) == "/*" &&
                rv.substr(0, rv.size() - 2) == resource) {
                return true;
            }
        }
    }
    return false;
}

}  // namespace

std::string_view levelName(Level level) {
    return kLevelNames[static_cast<size_t>(level)];
}

std::string_view stageName(Stage stage) {
    return kStageNames[static_cast<size_t>(stage)];
}

bool ruleMatches(const PolicyRule& r, const authz::Attributes& attrs) {
    const authn::UserInfo& user = attrs.user;

    if (!r.users.empty() && !has(r.users, user.name)) {
        return false;
    }
    if (!r.userGroups.empty()) {
        bool matched = std::any_of(user.groups.begin(), user.groups.end(),
                                   [&](const std::string& g) { return has(r.userGroups, g); });
        if (!matched) {
            return false;
        }
    }
    if (!r.verbs.empty() && !has(r.verbs, attrs.verb)) {
        return false;
    }
    if (!r.namespaces.empty() || !r.resources.empty()) {
        return ruleMatchesResource(r, attrs);
    }
    if (!r.nonResourceURLs.empty()) {
        if (attrs.isResourceRequest) {
            return false;
        }
        return std::any_of(r.nonResourceURLs.begin(), r.nonResourceURLs.end(),
                           [&](const std::string& spec) { return pathMatches(attrs.path, spec); });
    }
    return true;
}

RequestAuditConfig Policy::evaluate(const authz::Attributes& attrs) const {
    for (const PolicyRule& rule : rules_) {
        if (ruleMatches(rule, attrs)) {
            return {rule.level, rule.omitStages | omitStages_,
                    rule.omitManagedFields.value_or(omitManagedFields_)};
        }
    }
    return {Level::None, omitStages_, omitManagedFields_};
}

std::optional<Policy> Policy::load(std::string_view text, std::string* error) {
    json::Document doc;

    size_t first = text.find_first_not_of(" \t\r\n");
    bool isJson = first != std::string_view::npos && text[first] == '{';
    if (isJson) {
        if (auto err = json::parse(text, doc)) {
            *error = "failed decoding: couldn't get version/kind; json parse error: " + *err;
            return std::nullopt;
        }
    } else if (auto err = util::yaml::toJson(text, doc)) {
        *error = "failed decoding: " + *err;
        return std::nullopt;
    }

    if (!doc.IsObject()) {
        *error =
            "failed decoding: couldn't get version/kind; json parse error: json: cannot "
            "unmarshal " +
            std::string(json::typeName(doc)) +
            " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,"
            "omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }";
        return std::nullopt;
    }

    std::string_view apiVersion = json::stringMember(doc, "apiVersion");
    std::string_view kind = json::stringMember(doc, "kind");
    if (kind.empty() && !apiVersion.empty()) {
        *error = "failed decoding: Object 'Kind' is missing in '" + std::string(text) + "'";
        return std::nullopt;
    }
    if (apiVersion.empty()) {
        *error = "unknown group version field audit.k8s.io/__internal, Kind=Policy in policy";
        return std::nullopt;
    }
    if (apiVersion != "audit.k8s.io/v1" || kind != "Policy") {
        *error = "failed decoding: no kind " + goQuote(kind) + " is registered for version " +
                 goQuote(apiVersion) + " in scheme " + goQuote(kScheme);
        return std::nullopt;
    }

    Policy policy;
    std::vector<RawRule> raws;
    std::vector<std::string> omitStages;
    try {
        for (const auto& m : doc.GetObject()) {
            std::string_view name = json::view(m.name);
            if (name == "rules") {
                if (m.value.IsNull()) {
                    continue;
                }
                if (!m.value.IsArray()) {
                    typeError(m.value, "Policy", "rules", "[]v1.PolicyRule");
                }
                for (const json::Value& r : m.value.GetArray()) {
                    raws.push_back(readRule(r));
                }
            } else if (name == "omitStages") {
                omitStages = readStages(m.value, "Policy", "omitStages");
            } else if (name == "omitManagedFields") {
                policy.omitManagedFields_ =
                    readBool(m.value, "Policy", "omitManagedFields").value_or(false);
            }
        }
    } catch (const DecodeError& e) {
        *error = "failed decoding: " + e.message;
        return std::nullopt;
    }

    // mirrors validation.ValidatePolicy: the policy's omitStages, then each rule
    Errors errs;
    validateStages(omitStages, "omitStages", errs, &policy.omitStages_);
    for (size_t i = 0; i < raws.size(); ++i) {
        validateRule(raws[i], "rules[" + std::to_string(i) + "]", errs);
    }
    if (!errs.empty()) {
        *error = errs.aggregate();
        return std::nullopt;
    }

    if (raws.empty()) {
        *error = "loaded illegal policy with 0 rules";
        return std::nullopt;
    }

    for (RawRule& raw : raws) {
        policy.rules_.push_back(std::move(raw.rule));
    }
    return policy;
}

}  // namespace kube::audit
