#include "endpoints/handlers/authentication.hpp"

#include "apis/authentication/kinds.hpp"
#include "util/time.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

// kube's ExpirationExtensionSeconds and WarnOnlyBoundTokenExpirationSeconds.
constexpr int64_t kExtendedExpiration = 24 * 365 * 60 * 60;
constexpr int64_t kWarnOnlyExpiration = 60 * 60 + 7;
constexpr int64_t kMinExpiration = 10 * 60;
constexpr int64_t kMaxExpiration = int64_t(1) << 32;

json::Value userInfoJson(const authn::UserInfo& u, json::Allocator& a) {
    json::Value out(rapidjson::kObjectType);
    out.AddMember("username", json::stringValue(u.name, a), a);
    if (!u.uid.empty()) {
        out.AddMember("uid", json::stringValue(u.uid, a), a);
    }
    if (!u.groups.empty()) {
        json::Value groups(rapidjson::kArrayType);
        for (const std::string& g : u.groups) {
            groups.PushBack(json::stringValue(g, a), a);
        }
        out.AddMember("groups", groups, a);
    }
    if (!u.extra.empty()) {
        json::Value extra(rapidjson::kObjectType);
        for (const auto& [key, values] : u.extra) {
            json::Value list(rapidjson::kArrayType);
            for (const std::string& v : values) {
                list.PushBack(json::stringValue(v, a), a);
            }
            extra.AddMember(json::stringValue(key, a), list, a);
        }
        out.AddMember("extra", extra, a);
    }
    return out;
}

std::string nowText(const Scope& s) {
    return util::time::formatRFC3339(s->render.table.now);
}

meta::Status invalidTokenRequest(std::string field, std::string value, std::string why) {
    std::string message = "Invalid value: " + value + ": " + why;
    return meta::Status::invalid({"authentication.k8s.io", "TokenRequest"}, "",
                                 {{"FieldValueInvalid", message, std::move(field)}});
}

struct TokenPlan {
    std::shared_ptr<json::Document> req;
    authn::TokenClaims claims;
    int64_t specExpiration = 0;
};

void issue(const Scope& s, const authn::Authentication& auth, std::shared_ptr<TokenPlan> plan) {
    const authn::ServiceAccountOptions& opts = auth.serviceAccounts();
    std::string token = authn::issueToken(opts, plan->claims, s->render.table.now);
    if (token.empty()) {
        s->fail(meta::Status::internalError("no service account signing key is configured "
                                            "(kube_service_account_signing_key_file)"));
        return;
    }
    json::Document& out = *plan->req;
    auto& a = out.GetAllocator();
    json::setMember(out, "kind", json::Value("TokenRequest"), a);
    json::setMember(out, "apiVersion", json::Value("authentication.k8s.io/v1"), a);
    json::Value meta(rapidjson::kObjectType);
    meta.AddMember("name", json::stringValue(s->info.name, a), a);
    meta.AddMember("namespace", json::stringValue(s->info.namespace_, a), a);
    meta.AddMember("creationTimestamp", json::stringValue(nowText(s), a), a);
    json::setMember(out, "metadata", std::move(meta), a);
    json::Value& spec = out["spec"];
    json::Value auds(rapidjson::kArrayType);
    for (const std::string& aud : plan->claims.audiences) {
        auds.PushBack(json::stringValue(aud, a), a);
    }
    json::setMember(spec, "audiences", std::move(auds), a);
    json::setMember(spec, "expirationSeconds", json::Value(plan->specExpiration), a);
    if (!json::member(spec, "boundObjectRef")) {
        spec.AddMember("boundObjectRef", json::Value(), a);
    }
    json::Value status(rapidjson::kObjectType);
    status.AddMember("token", json::stringValue(token, a), a);
    auto expires = s->render.table.now + std::chrono::seconds(plan->specExpiration);
    status.AddMember("expirationTimestamp",
                     json::stringValue(util::time::formatRFC3339(expires), a), a);
    json::setMember(out, "status", std::move(status), a);
    s->respond(objectResponse(201, json::serialize(out), s->render));
}

}  // namespace

void createToken(Scope s, const authn::Authentication& auth, const authn::ObjectGetter& getter) {
    bool dryRun = false;
    auto req = readRequestObject(s, apis::authentication::tokenRequestKind(), "CreateOptions",
                                 &dryRun);
    if (!req) {
        return;
    }
    if (!req->IsObject() || !json::member(*req, "spec") || !(*req)["spec"].IsObject()) {
        json::setMember(*req, "spec", json::Value(rapidjson::kObjectType), req->GetAllocator());
    }
    auto plan = std::make_shared<TokenPlan>();
    plan->req = req;
    const json::Value& spec = (*req)["spec"];
    // SetDefaults_TokenRequestSpec, then ValidateTokenRequest.
    const json::Value* exp = json::member(spec, "expirationSeconds");
    int64_t seconds = exp && exp->IsInt64() ? exp->GetInt64() : 3600;
    if (seconds < kMinExpiration) {
        s->fail(invalidTokenRequest("spec.expirationSeconds", std::to_string(seconds),
                                    "may not specify a duration less than 10 minutes"));
        return;
    }
    if (seconds > kMaxExpiration) {
        s->fail(invalidTokenRequest("spec.expirationSeconds", std::to_string(seconds),
                                    "may not specify a duration larger than 2^32 seconds"));
        return;
    }
    const authn::ServiceAccountOptions& opts = auth.serviceAccounts();
    authn::TokenClaims& c = plan->claims;
    if (const json::Value* auds = json::member(spec, "audiences"); auds && auds->IsArray()) {
        for (const json::Value& v : auds->GetArray()) {
            if (v.IsString()) {
                c.audiences.emplace_back(json::view(v));
            }
        }
    }
    if (c.audiences.empty()) {
        c.audiences = opts.audiences();
    }
    if (opts.maxExpiration.count() > 0 && seconds > opts.maxExpiration.count()) {
        seconds = opts.maxExpiration.count();
    }
    plan->specExpiration = seconds;
    c.expirationSeconds = seconds;
    c.namespace_ = s->info.namespace_;
    c.serviceAccountName = s->info.name;

    std::string boundKind, boundName, boundUid, boundApiVersion;
    if (const json::Value* ref = json::member(spec, "boundObjectRef"); ref && ref->IsObject()) {
        boundKind = json::stringMember(*ref, "kind");
        boundName = json::stringMember(*ref, "name");
        boundUid = json::stringMember(*ref, "uid");
        boundApiVersion = json::stringMember(*ref, "apiVersion");
    }
    std::string saName = s->info.name;
    s->store.get(s->info.namespace_, saName, [s, &auth, &getter, plan, boundKind, boundName,
                                              boundUid, boundApiVersion,
                                              saName](const meta::Status* err,
                                                      std::string_view stored) {
        if (err) {
            s->fail(*err);
            return;
        }
        json::Document sa;
        if (auto why = json::parse(stored, sa)) {
            s->fail(meta::Status::internalError(*why));
            return;
        }
        plan->claims.serviceAccountUid = std::string(json::view(*json::at(sa, {"metadata", "uid"})));
        if (boundKind.empty() && boundName.empty()) {
            issue(s, auth, plan);
            return;
        }
        bool core = boundApiVersion.empty() || boundApiVersion == "v1";
        if (!core || (boundKind != "Pod" && boundKind != "Secret")) {
            std::string group = boundApiVersion.find('/') == std::string::npos
                                    ? ""
                                    : boundApiVersion.substr(0, boundApiVersion.find('/'));
            std::string version = boundApiVersion.substr(boundApiVersion.find('/') + 1);
            s->fail(meta::Status::badRequest("cannot bind token for serviceaccount \"" + saName +
                                             "\" to object of type \"" + group + "/" + version +
                                             ", Kind=" + boundKind + "\""));
            return;
        }
        bool pod = boundKind == "Pod";
        std::string resource = pod ? "pods" : "secrets";
        getter.get(resource, s->info.namespace_, boundName,
                   [s, &auth, plan, pod, resource, boundName, boundUid, saName](
                       const json::Value* obj, std::string_view) {
                       if (!obj) {
                           s->fail(meta::Status::notFound({"", resource}, boundName));
                           return;
                       }
                       std::string uid(json::view(*json::at(*obj, {"metadata", "uid"})));
                       if (!boundUid.empty() && boundUid != uid) {
                           s->fail(meta::Status::conflict(
                               {"", pod ? "Pod" : "Secret"}, boundName,
                               "the UID in the bound object reference (" + boundUid +
                                   ") does not match the UID in record. The object might have "
                                   "been deleted and then recreated"));
                           return;
                       }
                       authn::TokenClaims& c = plan->claims;
                       if (pod) {
                           std::string_view podSa =
                               json::stringMember(json::member(*obj, "spec") ? (*obj)["spec"]
                                                                             : *obj,
                                                  "serviceAccountName");
                           if (podSa != saName) {
                               s->fail(meta::Status::badRequest(
                                   "cannot bind token for serviceaccount \"" + saName +
                                   "\" to pod running with different serviceaccount name."));
                               return;
                           }
                           c.podName = boundName;
                           c.podUid = uid;
                           // ExtendExpiration: the warn-only duration of
                           // projected volumes becomes a year, with warnafter.
                           if (auth.serviceAccounts().extendExpiration &&
                               c.expirationSeconds == kWarnOnlyExpiration) {
                               c.expirationSeconds = kExtendedExpiration;
                               c.warnAfterSeconds = kWarnOnlyExpiration;
                           }
                       } else {
                           c.secretName = boundName;
                           c.secretUid = uid;
                       }
                       issue(s, auth, plan);
                   });
    });
}

void createTokenReview(Scope s, const authn::Authentication& auth) {
    bool dryRun = false;
    auto review = readRequestObject(s, "CreateOptions", &dryRun);
    if (!review) {
        return;
    }
    std::string token(json::stringMember(json::member(*review, "spec") ? (*review)["spec"]
                                                                       : *review,
                                         "token"));
    if (token.empty()) {
        s->fail(meta::Status::badRequest("token is required for TokenReview in authentication"));
        return;
    }
    std::vector<std::string> audiences;
    if (const json::Value* auds = json::at(*review, {"spec", "audiences"}); auds && auds->IsArray()) {
        for (const json::Value& v : auds->GetArray()) {
            if (v.IsString()) {
                audiences.emplace_back(json::view(v));
            }
        }
    }
    auth.authenticateToken(token, audiences, [s, review, audiences](authn::AuthResult&& r) {
        json::Document& out = *review;
        auto& a = out.GetAllocator();
        json::setMember(out, "kind", json::Value("TokenReview"), a);
        json::setMember(out, "apiVersion", json::Value("authentication.k8s.io/v1"), a);
        json::Value meta(rapidjson::kObjectType);
        meta.AddMember("creationTimestamp", json::Value(), a);
        json::setMember(out, "metadata", std::move(meta), a);
        json::Value status(rapidjson::kObjectType);
        bool ok = r.ok() && !(!audiences.empty() && r.audiences.empty());
        if (ok) {
            status.AddMember("authenticated", true, a);
            authn::addAuthenticatedGroup(r.user);
            status.AddMember("user", userInfoJson(r.user, a), a);
            json::Value auds(rapidjson::kArrayType);
            for (const std::string& aud : r.audiences) {
                auds.PushBack(json::stringValue(aud, a), a);
            }
            status.AddMember("audiences", auds, a);
        } else {
            status.AddMember("user", json::Value(rapidjson::kObjectType), a);
            std::string error = r.outcome == authn::AuthResult::Outcome::Failed
                                    ? "[invalid bearer token, " + r.error + "]"
                                    : "invalid bearer token";
            status.AddMember("error", json::stringValue(error, a), a);
        }
        json::setMember(out, "status", std::move(status), a);
        s->respond(objectResponse(201, json::serialize(out), s->render));
    });
}

void createSelfSubjectReview(Scope s) {
    // The body says nothing the answer depends on; kube decodes it only to
    // type-check it.
    json::Document out(rapidjson::kObjectType);
    auto& a = out.GetAllocator();
    out.AddMember("kind", "SelfSubjectReview", a);
    out.AddMember("apiVersion", json::stringValue(s->store.kind().apiVersion(), a), a);
    json::Value meta(rapidjson::kObjectType);
    meta.AddMember("creationTimestamp", json::stringValue(nowText(s), a), a);
    out.AddMember("metadata", meta, a);
    json::Value status(rapidjson::kObjectType);
    authn::UserInfo none;
    status.AddMember("userInfo", userInfoJson(s->req.user ? *s->req.user : none, a), a);
    out.AddMember("status", status, a);
    s->respond(objectResponse(201, json::serialize(out), s->render));
}

}  // namespace kube::endpoints
