#include "authz/abac.hpp"

#include <cerrno>
#include <cstring>
#include <sstream>

#include "util/file.hpp"
#include "util/json.hpp"

namespace kube::authz {

namespace json = util::json;

namespace {

constexpr std::string_view kPolicyApiVersion = "abac.authorization.kubernetes.io/v1beta1";

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
        s.remove_suffix(1);
    }
    return s;
}

// A string member; false when present and not a string.
bool readString(const json::Value& obj, std::string_view name, std::string* out) {
    const json::Value* v = json::member(obj, name);
    if (!v || v->IsNull()) {
        return true;
    }
    if (!v->IsString()) {
        return false;
    }
    *out = json::view(*v);
    return true;
}

bool readBool(const json::Value& obj, std::string_view name, bool* out) {
    const json::Value* v = json::member(obj, name);
    if (!v || v->IsNull()) {
        return true;
    }
    if (!v->IsBool()) {
        return false;
    }
    *out = v->GetBool();
    return true;
}

// The fields a v1beta1 spec and a v0 policy share, plus those only v1beta1 has.
bool readFields(const json::Value& obj, bool versioned, AbacPolicy* p) {
    bool ok = readString(obj, "user", &p->user) && readString(obj, "group", &p->group) &&
              readBool(obj, "readonly", &p->readonly) &&
              readString(obj, "resource", &p->resource) &&
              readString(obj, "namespace", &p->namespace_);
    if (versioned) {
        ok = ok && readString(obj, "apiGroup", &p->apiGroup) &&
             readString(obj, "nonResourcePath", &p->nonResourcePath);
    }
    return ok;
}

// Mirrors the v0 → internal conversion.
AbacPolicy fromV0(AbacPolicy in) {
    AbacPolicy out = in;
    if (in.user.empty() && in.group.empty()) {
        out.group = authn::kAllAuthenticated;
    }
    if (in.user == "*" || in.group == "*") {
        out.group = authn::kAllAuthenticated;
        out.user.clear();
    }
    if (in.namespace_.empty()) {
        out.namespace_ = "*";
    }
    if (in.resource.empty()) {
        out.resource = "*";
    }
    out.apiGroup = "*";
    if (in.namespace_.empty() && in.resource.empty()) {
        out.nonResourcePath = "*";
    }
    return out;
}

bool subjectMatches(const AbacPolicy& p, const authn::UserInfo& user) {
    bool matched = false;
    if (!p.user.empty()) {
        if (p.user == "*") {
            matched = true;
        } else if (p.user != user.name) {
            return false;
        } else {
            matched = true;
        }
    }
    if (!p.group.empty()) {
        if (p.group == "*") {
            return true;
        }
        for (const std::string& g : user.groups) {
            if (g == p.group) {
                return true;
            }
        }
        return false;
    }
    return matched;
}

bool matches(const AbacPolicy& p, const Attributes& a) {
    if (!subjectMatches(p, a.user) || (!isReadOnly(a) && p.readonly)) {
        return false;
    }
    if (a.isResourceRequest) {
        return (p.namespace_ == "*" || p.namespace_ == a.namespace_) &&
               (p.resource == "*" || p.resource == a.resource) &&
               (p.apiGroup == "*" || p.apiGroup == a.apiGroup);
    }
    const std::string& np = p.nonResourcePath;
    if (np == "*" || np == a.path) {
        return true;
    }
    if (np.ends_with('*')) {
        std::string_view prefix = np;
        while (!prefix.empty() && prefix.back() == '*') {
            prefix.remove_suffix(1);
        }
        return std::string_view(a.path).starts_with(prefix);
    }
    return false;
}

std::vector<std::string> verbsOf(bool readonly) {
    if (readonly) {
        return {"get", "list", "watch"};
    }
    return {"*"};
}

}  // namespace

std::optional<AbacAuthorizer> AbacAuthorizer::parse(std::string_view text, std::string_view path,
                                                    std::string* error) {
    std::vector<AbacPolicy> policies;
    size_t lineNo = 0;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        ++lineNo;
        std::string_view trimmed = trim(line);
        if (trimmed.empty() || trimmed.starts_with('#')) {
            continue;
        }
        auto fail = [&](std::string_view why) {
            *error = "error reading policy file " + std::string(path) + ", line " +
                     std::to_string(lineNo) + ": " + std::string(line) + ": " + std::string(why);
            return std::nullopt;
        };
        json::Document doc;
        if (auto err = json::parse(trimmed, doc)) {
            return fail(*err);
        }
        if (!doc.IsObject()) {
            return fail("a policy must be a JSON object");
        }
        std::string apiVersion, kind;
        readString(doc, "apiVersion", &apiVersion);
        readString(doc, "kind", &kind);
        AbacPolicy p;
        if (apiVersion.empty() && kind.empty()) {
            if (!readFields(doc, false, &p)) {
                return fail("a field has the wrong type");
            }
            policies.push_back(fromV0(std::move(p)));
            continue;
        }
        if (apiVersion != kPolicyApiVersion || kind != "Policy") {
            return fail("no kind \"" + kind + "\" is registered for version \"" + apiVersion +
                        "\"");
        }
        const json::Value* spec = json::member(doc, "spec");
        if (spec && !spec->IsObject()) {
            return fail("spec must be an object");
        }
        if (spec && !readFields(*spec, true, &p)) {
            return fail("a field has the wrong type");
        }
        // In v1beta1, a "*" user or group stands for every authenticated user.
        if (p.user == "*" || p.group == "*") {
            p.group = authn::kAllAuthenticated;
            p.user.clear();
        }
        policies.push_back(std::move(p));
    }
    return AbacAuthorizer(std::move(policies));
}

std::optional<AbacAuthorizer> AbacAuthorizer::load(const std::string& path, std::string* error) {
    std::optional<std::string> text = util::readFile(path, error);
    if (!text) {
        return std::nullopt;
    }
    return parse(*text, path, error);
}

Result AbacAuthorizer::authorize(const Attributes& attrs) const {
    for (const AbacPolicy& p : policies_) {
        if (matches(p, attrs)) {
            return {Decision::Allow, ""};
        }
    }
    return {Decision::NoOpinion, "No policy matched."};
}

SubjectRules AbacAuthorizer::rulesFor(const authn::UserInfo& user,
                                      std::string_view namespace_) const {
    SubjectRules out;
    for (const AbacPolicy& p : policies_) {
        if (!subjectMatches(p, user) || (p.namespace_ != "*" && p.namespace_ != namespace_)) {
            continue;
        }
        if (!p.resource.empty()) {
            out.resourceRules.push_back({verbsOf(p.readonly), {p.apiGroup}, {p.resource}, {}, {}});
        }
        if (!p.nonResourcePath.empty()) {
            out.nonResourceRules.push_back({verbsOf(p.readonly), {}, {}, {}, {p.nonResourcePath}});
        }
    }
    return out;
}

}  // namespace kube::authz
