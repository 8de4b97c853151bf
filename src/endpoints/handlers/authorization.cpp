#include "endpoints/handlers/authorization.hpp"

#include "authz/authorizer.hpp"
#include "util/go_text.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

constexpr const char* kGroup = "authorization.k8s.io";

std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
}

std::vector<std::string> strings(const json::Value* v) {
    std::vector<std::string> out;
    if (v && v->IsArray()) {
        for (const json::Value& e : v->GetArray()) {
            if (e.IsString()) {
                out.emplace_back(json::view(e));
            }
        }
    }
    return out;
}

const json::Value* object(const json::Value& v, std::string_view name) {
    const json::Value* m = json::member(v, name);
    return m && m->IsObject() ? m : nullptr;
}

// ObjectMeta carries nothing a review may have: its decoded metadata holds
// at most a null creationTimestamp, managedFields, and (for a local review)
// the namespace.
bool emptyMeta(const json::Value* meta, bool allowNamespace) {
    if (!meta) {
        return true;
    }
    for (const auto& m : meta->GetObject()) {
        std::string_view name = json::view(m.name);
        if ((name == "creationTimestamp" && m.value.IsNull()) || name == "managedFields" ||
            (allowNamespace && name == "namespace")) {
            continue;
        }
        return false;
    }
    return true;
}

// Go's %#v of the internal NonResourceAttributes, as field errors print it.
std::string nonResourceText(const json::Value& nr) {
    return "authorization.NonResourceAttributes{Path:" + quoted(json::stringMember(nr, "path")) +
           ", Verb:" + quoted(json::stringMember(nr, "verb")) + "}";
}

meta::StatusCause invalid(std::string field, std::string value, std::string why) {
    return {"FieldValueInvalid", "Invalid value: " + value + ": " + why, std::move(field)};
}

// Mirrors ValidateSubjectAccessReviewSpec (`subject`: user or groups needed)
// and the metadata and namespace checks of each kind's validation.
std::vector<meta::StatusCause> validate(const json::Value& review, std::string_view kind) {
    std::vector<meta::StatusCause> causes;
    const json::Value* spec = object(review, "spec");
    static const json::Value kEmpty(rapidjson::kObjectType);
    const json::Value& sp = spec ? *spec : kEmpty;
    const json::Value* ra = object(sp, "resourceAttributes");
    const json::Value* nr = object(sp, "nonResourceAttributes");
    bool local = kind == "LocalSubjectAccessReview";
    if (ra && nr) {
        causes.push_back(invalid("spec.nonResourceAttributes", nonResourceText(*nr),
                                 "cannot be specified in combination with resourceAttributes"));
    }
    if (!ra && !nr) {
        causes.push_back(invalid("spec.resourceAttributes", "\"null\"",
                                 "exactly one of nonResourceAttributes or resourceAttributes "
                                 "must be specified"));
    }
    if (kind != "SelfSubjectAccessReview") {
        const json::Value* groups = json::member(sp, "groups");
        if (json::stringMember(sp, "user").empty() &&
            !(groups && groups->IsArray() && !groups->Empty())) {
            causes.push_back(invalid("spec.user", quoted(json::stringMember(sp, "user")),
                                     "at least one of user or group must be specified"));
        }
    }
    const json::Value* meta = object(review, "metadata");
    if (!emptyMeta(meta, local)) {
        causes.push_back(invalid(
            "metadata", "v1.ObjectMeta{Name:" + quoted(json::stringMember(*meta, "name")) + "}",
            local ? "must be empty except for namespace" : "must be empty"));
    }
    if (local) {
        std::string_view ns = meta ? json::stringMember(*meta, "namespace") : "";
        if (ra && json::stringMember(*ra, "namespace") != ns) {
            causes.push_back(invalid("spec.resourceAttributes.namespace",
                                     quoted(json::stringMember(*ra, "namespace")),
                                     "must match metadata.namespace"));
        }
        if (nr) {
            causes.push_back(invalid("spec.nonResourceAttributes", nonResourceText(*nr),
                                     "disallowed on this kind of request"));
        }
    }
    return causes;
}

// Mirrors authorizationutil.AuthorizationAttributesFrom for `user`.
authz::Attributes attributesFrom(const json::Value& spec, authn::UserInfo user) {
    authz::Attributes a;
    a.user = std::move(user);
    if (const json::Value* ra = object(spec, "resourceAttributes")) {
        a.isResourceRequest = true;
        a.verb = json::stringMember(*ra, "verb");
        a.namespace_ = json::stringMember(*ra, "namespace");
        a.apiGroup = json::stringMember(*ra, "group");
        a.apiVersion = json::stringMember(*ra, "version");
        if (a.apiVersion.empty()) {
            a.apiVersion = "*";
        }
        a.resource = json::stringMember(*ra, "resource");
        a.subresource = json::stringMember(*ra, "subresource");
        a.name = json::stringMember(*ra, "name");
    } else if (const json::Value* nr = object(spec, "nonResourceAttributes")) {
        a.path = json::stringMember(*nr, "path");
        a.verb = json::stringMember(*nr, "verb");
    }
    return a;
}

// The user a SubjectAccessReview's spec names.
authn::UserInfo specUser(const json::Value& spec) {
    authn::UserInfo u;
    u.name = json::stringMember(spec, "user");
    u.uid = json::stringMember(spec, "uid");
    u.groups = strings(json::member(spec, "groups"));
    if (const json::Value* extra = object(spec, "extra")) {
        for (const auto& m : extra->GetObject()) {
            u.extra[std::string(json::view(m.name))] = strings(&m.value);
        }
    }
    return u;
}

json::Value stringArray(const std::vector<std::string>& v, json::Allocator& a) {
    json::Value out(rapidjson::kArrayType);
    for (const std::string& s : v) {
        out.PushBack(json::stringValue(s, a), a);
    }
    return out;
}

// The review as answered: the request's object, metadata as kube returns
// it (no server fields), and `status`.
void answer(const Scope& s, json::Document& review, json::Value status) {
    auto& a = review.GetAllocator();
    json::Value meta(rapidjson::kObjectType);
    if (const json::Value* old = object(review, "metadata")) {
        std::string_view ns = json::stringMember(*old, "namespace");
        if (!ns.empty()) {
            meta.AddMember("namespace", json::stringValue(ns, a), a);
        }
    }
    meta.AddMember("creationTimestamp", json::Value(), a);
    json::Document out(rapidjson::kObjectType);
    auto& oa = out.GetAllocator();
    const registry::KindInfo& kind = s->store.kind();
    out.AddMember("kind", json::stringValue(kind.kind, oa), oa);
    out.AddMember("apiVersion", json::stringValue(kind.apiVersion(), oa), oa);
    out.AddMember("metadata", json::Value(meta, oa), oa);
    json::Value spec(rapidjson::kObjectType);
    if (json::Value* sp = json::member(review, "spec"); sp && sp->IsObject()) {
        spec.CopyFrom(*sp, oa);
    }
    out.AddMember("spec", spec, oa);
    out.AddMember("status", json::Value(status, oa), oa);
    s->respond(objectResponse(201, json::serialize(out), s->render));
}

}  // namespace

void createAccessReview(Scope s) {
    bool dryRun = false;
    auto review = readRequestObject(s, "CreateOptions", &dryRun);
    if (!review) {
        return;
    }
    const registry::KindInfo& kind = s->store.kind();
    auto& a = review->GetAllocator();
    if (!review->IsObject()) {
        review->SetObject();
    }
    if (kind.namespaced) {
        // The create handler's namespace rule: the URL's, or the same in the body.
        json::Value* meta = json::member(*review, "metadata");
        if (!meta || !meta->IsObject()) {
            json::setMember(*review, "metadata", json::Value(rapidjson::kObjectType), a);
            meta = json::member(*review, "metadata");
        }
        std::string_view bodyNs = json::stringMember(*meta, "namespace");
        if (!bodyNs.empty() && bodyNs != s->info.namespace_) {
            s->fail(
                meta::Status::badRequest("the namespace of the provided object does not "
                                         "match the namespace sent on the request"));
            return;
        }
        json::setMember(*meta, "namespace", json::stringValue(s->info.namespace_, a), a);
    }
    std::vector<meta::StatusCause> causes = validate(*review, kind.kind);
    if (!causes.empty()) {
        // kube names the decoded object's kind, which is empty by then.
        s->fail(meta::Status::invalid({kGroup, ""}, "", std::move(causes)));
        return;
    }
    static const json::Value kEmpty(rapidjson::kObjectType);
    const json::Value* spec = object(*review, "spec");
    const json::Value& sp = spec ? *spec : kEmpty;
    authn::UserInfo user =
        kind.kind == "SelfSubjectAccessReview" && s->req.user ? *s->req.user : specUser(sp);
    authz::Attributes attrs = attributesFrom(sp, std::move(user));
    authz::Result res{authz::Decision::NoOpinion, ""};
    if (s->req.authorizer) {
        res = s->req.authorizer->authorize(attrs);
    }
    json::Value status(rapidjson::kObjectType);
    status.AddMember("allowed", res.decision == authz::Decision::Allow, a);
    if (res.decision == authz::Decision::Deny) {
        status.AddMember("denied", true, a);
    }
    if (!res.reason.empty()) {
        status.AddMember("reason", json::stringValue(res.reason, a), a);
    }
    answer(s, *review, std::move(status));
}

void createRulesReview(Scope s) {
    bool dryRun = false;
    auto review = readRequestObject(s, "CreateOptions", &dryRun);
    if (!review) {
        return;
    }
    if (!review->IsObject()) {
        review->SetObject();
    }
    const json::Value* spec = object(*review, "spec");
    std::string_view ns = spec ? json::stringMember(*spec, "namespace") : "";
    if (ns.empty()) {
        s->fail(meta::Status::badRequest("no namespace on request"));
        return;
    }
    authz::SubjectRules rules;
    if (s->req.authorizer && s->req.user) {
        rules = s->req.authorizer->rulesFor(*s->req.user, ns);
    } else {
        rules.incomplete = true;
    }
    auto& a = review->GetAllocator();
    json::Value resourceRules(rapidjson::kArrayType);
    for (const authz::PolicyRule& r : rules.resourceRules) {
        json::Value o(rapidjson::kObjectType);
        o.AddMember("verbs", stringArray(r.verbs, a), a);
        if (!r.apiGroups.empty()) {
            o.AddMember("apiGroups", stringArray(r.apiGroups, a), a);
        }
        if (!r.resources.empty()) {
            o.AddMember("resources", stringArray(r.resources, a), a);
        }
        if (!r.resourceNames.empty()) {
            o.AddMember("resourceNames", stringArray(r.resourceNames, a), a);
        }
        resourceRules.PushBack(o, a);
    }
    json::Value nonResourceRules(rapidjson::kArrayType);
    for (const authz::PolicyRule& r : rules.nonResourceRules) {
        json::Value o(rapidjson::kObjectType);
        o.AddMember("verbs", stringArray(r.verbs, a), a);
        if (!r.nonResourceURLs.empty()) {
            o.AddMember("nonResourceURLs", stringArray(r.nonResourceURLs, a), a);
        }
        nonResourceRules.PushBack(o, a);
    }
    json::Value status(rapidjson::kObjectType);
    status.AddMember("resourceRules", resourceRules, a);
    status.AddMember("nonResourceRules", nonResourceRules, a);
    status.AddMember("incomplete", rules.incomplete, a);
    if (!rules.errors.empty()) {
        status.AddMember("evaluationError",
                         json::stringValue(util::aggregateErrors(rules.errors), a), a);
    }
    // kube answers a new review holding the status only.
    json::setMember(*review, "spec", json::Value(rapidjson::kObjectType), a);
    answer(s, *review, std::move(status));
}

}  // namespace kube::endpoints
