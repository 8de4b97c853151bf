#include "authn/service_account.hpp"

#include <set>

#include "util/base64.hpp"
#include "util/go_text.hpp"
#include "util/time.hpp"
#include "util/uid.hpp"

namespace kube::authn {

namespace json = util::json;

namespace {

using Clock = std::chrono::system_clock;
// go-jose's jwt.DefaultLeeway: an object deleted this recently still counts.
constexpr std::chrono::seconds kLeeway{60};
using GetDone = std::function<void(const json::Value*, std::string_view)>;

// The token's unverified issuer (hasCorrectIssuer's peek), "" when the
// token is not shaped like a JWT.
std::string peekIssuer(std::string_view token) {
    size_t start = token.find_first_not_of(" \t\r\n");
    if (start != std::string_view::npos && token[start] == '{') {
        return "";
    }
    size_t first = token.find('.');
    size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
    if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
        return "";
    }
    auto payload = decodeBase64Url(token.substr(first + 1, second - first - 1));
    json::Document doc;
    if (!payload || json::parse(*payload, doc) || !doc.IsObject()) {
        return "";
    }
    return std::string(json::stringMember(doc, "iss"));
}

std::string_view uidOf(const json::Value& obj) {
    const json::Value* uid = json::at(obj, {"metadata", "uid"});
    return uid && uid->IsString() ? json::view(*uid) : std::string_view();
}

// True when the object's deletionTimestamp is set and before `before`
// (with `before` unset: whenever it is set).
bool deletedBefore(const json::Value& obj, std::optional<Clock::time_point> before) {
    const json::Value* ts = json::at(obj, {"metadata", "deletionTimestamp"});
    if (!ts || !ts->IsString()) {
        return false;
    }
    if (!before) {
        return true;
    }
    auto t = util::time::parseRFC3339(json::view(*ts));
    return t && *t < std::chrono::time_point_cast<util::time::Duration>(*before);
}

std::string claimString(const json::Value& obj, std::initializer_list<std::string_view> path) {
    const json::Value* v = json::at(obj, path);
    return v && v->IsString() ? std::string(json::view(*v)) : std::string();
}

}  // namespace

UserInfo ServiceAccountInfo::userInfo() const {
    UserInfo u;
    u.name = kServiceAccountUsernamePrefix + namespace_ + ":" + name;
    u.uid = uid;
    u.groups = {kAllServiceAccountsGroup, std::string(kAllServiceAccountsGroup) + ":" + namespace_};
    if (!podName.empty()) {
        u.extra[kPodNameKey] = {podName};
        u.extra[kPodUidKey] = {podUid};
    }
    if (!nodeName.empty()) {
        u.extra[kNodeNameKey] = {nodeName};
        if (!nodeUid.empty()) {
            u.extra[kNodeUidKey] = {nodeUid};
        }
    }
    if (!credentialId.empty()) {
        u.extra[kCredentialIdKey] = {credentialId};
    }
    return u;
}

std::vector<std::string> ServiceAccountOptions::audiences() const {
    if (!apiAudiences.empty()) {
        return apiAudiences;
    }
    if (!issuers.empty()) {
        return {issuers.front()};
    }
    return {};
}

ServiceAccountAuthenticator::ServiceAccountAuthenticator(
    std::shared_ptr<const ServiceAccountOptions> options, const ObjectGetter& getter,
    std::function<Clock::time_point()> clock)
    : options_(std::move(options)), getter_(getter), clock_(std::move(clock)) {}

void ServiceAccountAuthenticator::authenticateToken(std::string_view token,
                                                    const std::vector<std::string>& requested,
                                                    AuthCallback done) const {
    std::string issuer = peekIssuer(token);
    bool legacy = issuer == kLegacyServiceAccountIssuer;
    const auto& issuers = options_->issuers;
    if (issuer.empty() ||
        (!legacy && std::find(issuers.begin(), issuers.end(), issuer) == issuers.end())) {
        done(AuthResult::notMine());
        return;
    }
    auto parsed = Jws::parse(token);
    if (!parsed) {
        done(AuthResult::notMine());
        return;
    }
    auto jws = std::make_shared<Jws>(std::move(*parsed));
    std::vector<const Key*> keys;
    for (const KeyRef& k : options_->keys) {
        if (jws->kid.empty() || k->kid() == jws->kid) {
            keys.push_back(k.get());
        }
    }
    if (keys.empty()) {
        done(AuthResult::failed("invalid signature, no keys found"));
        return;
    }
    std::vector<std::string> errors;
    bool verified = false;
    for (const Key* k : keys) {
        std::string why = jws->verify(*k);
        if (why.empty()) {
            verified = true;
            break;
        }
        errors.push_back(why);
    }
    if (!verified) {
        done(AuthResult::failed(util::aggregateErrors(errors)));
        return;
    }
    std::vector<std::string> implicit = options_->audiences();
    std::vector<std::string> tokenAuds = audiences(jws->payload);
    if (tokenAuds.empty()) {
        tokenAuds = implicit;
    }
    const std::vector<std::string>& wanted = requested.empty() ? implicit : requested;
    std::vector<std::string> auds;
    for (const std::string& a : tokenAuds) {
        if (std::find(wanted.begin(), wanted.end(), a) != wanted.end() &&
            std::find(auds.begin(), auds.end(), a) == auds.end()) {
            auds.push_back(a);
        }
    }
    if (auds.empty() && !implicit.empty()) {
        done(AuthResult::failed("token audiences " + util::quotedList(tokenAuds) +
                                " is invalid for the target audiences " +
                                util::quotedList(wanted)));
        return;
    }
    if (legacy) {
        validateLegacy(jws, std::string(token), std::move(auds), std::move(done));
    } else {
        validateBound(jws, std::move(auds), std::move(done));
    }
}

// Mirrors the bound-token validator (pkg/serviceaccount/claims.go).
void ServiceAccountAuthenticator::validateBound(std::shared_ptr<Jws> jws,
                                                std::vector<std::string> auds,
                                                AuthCallback done) const {
    const json::Value& p = jws->payload;
    Clock::time_point now = clock_();
    std::string times = checkTimes(p, now);
    if (times == "expired") {
        done(AuthResult::failed("service account token has expired"));
        return;
    }
    if (times == "not valid yet") {
        done(AuthResult::failed("service account token is not valid yet"));
        return;
    }
    if (!times.empty()) {
        done(
            AuthResult::failed("service account token claims could not be validated due to "
                               "unexpected validation error"));
        return;
    }
    // TokenRequest always sets exp; a bound token without one is refused
    // (go-jose alone would let it live forever).
    std::optional<int64_t> exp = numericDate(p, "exp");
    if (!exp) {
        done(AuthResult::failed("service account token has no expiration"));
        return;
    }
    auto info = std::make_shared<ServiceAccountInfo>();
    info->namespace_ = claimString(p, {"kubernetes.io", "namespace"});
    info->name = claimString(p, {"kubernetes.io", "serviceaccount", "name"});
    std::string saUid = claimString(p, {"kubernetes.io", "serviceaccount", "uid"});
    const json::Value* pod = json::at(p, {"kubernetes.io", "pod"});
    const json::Value* secret = json::at(p, {"kubernetes.io", "secret"});
    const json::Value* node = json::at(p, {"kubernetes.io", "node"});
    std::string podName = pod ? claimString(*pod, {"name"}) : "";
    std::string podUid = pod ? claimString(*pod, {"uid"}) : "";
    std::string secretName = secret ? claimString(*secret, {"name"}) : "";
    std::string secretUid = secret ? claimString(*secret, {"uid"}) : "";
    std::string nodeName = node ? claimString(*node, {"name"}) : "";
    std::string nodeUid = node ? claimString(*node, {"uid"}) : "";
    std::string jti(json::stringMember(p, "jti"));
    if (!jti.empty()) {
        info->credentialId = "JTI=" + jti;
    }
    Clock::time_point before = now - kLeeway;
    std::string ns = info->namespace_;
    std::string saName = info->name;

    // The checks run one after another, each on the previous one's read.
    auto result = std::make_shared<AuthCallback>(std::move(done));
    auto finish = [result, info, auds = std::move(auds), exp = *exp]() {
        AuthResult r = AuthResult::authenticated(info->userInfo(), auds);
        r.expires = Clock::time_point(std::chrono::seconds(exp));
        (*result)(std::move(r));
    };
    auto checkNode = [this, result, info, nodeName, nodeUid, before, finish]() {
        if (nodeName.empty()) {
            finish();
            return;
        }
        getter_.get(
            "nodes", "", nodeName,
            [result, info, nodeName, nodeUid, before, finish](const json::Value* obj,
                                                              std::string_view) {
                if (!obj || deletedBefore(*obj, before)) {
                    (*result)(AuthResult::failed("service account token has been invalidated"));
                    return;
                }
                if (uidOf(*obj) != nodeUid) {
                    (*result)(AuthResult::failed(
                        "node UID (" + std::string(uidOf(*obj)) +
                        ") does not match service account node ref claim (" + nodeUid + ")"));
                    return;
                }
                info->nodeName = nodeName;
                info->nodeUid = nodeUid;
                finish();
            });
    };
    auto checkPod = [this, result, info, ns, podName, podUid, before, checkNode]() {
        if (podName.empty()) {
            checkNode();
            return;
        }
        getter_.get(
            "pods", ns, podName,
            [result, info, podName, podUid, before, checkNode](const json::Value* obj,
                                                               std::string_view) {
                if (!obj || deletedBefore(*obj, before)) {
                    (*result)(AuthResult::failed("service account token has been invalidated"));
                    return;
                }
                if (uidOf(*obj) != podUid) {
                    (*result)(AuthResult::failed(
                        "pod UID (" + std::string(uidOf(*obj)) +
                        ") does not match service account pod ref claim (" + podUid + ")"));
                    return;
                }
                info->podName = podName;
                info->podUid = podUid;
                checkNode();
            });
    };
    auto checkSecret = [this, result, ns, secretName, secretUid, before, checkPod]() {
        if (secretName.empty()) {
            checkPod();
            return;
        }
        getter_.get(
            "secrets", ns, secretName,
            [result, secretUid, before, checkPod](const json::Value* obj, std::string_view) {
                if (!obj || deletedBefore(*obj, before)) {
                    (*result)(AuthResult::failed("service account token has been invalidated"));
                    return;
                }
                if (uidOf(*obj) != secretUid) {
                    (*result)(AuthResult::failed(
                        "secret UID (" + std::string(uidOf(*obj)) +
                        ") does not match service account secret ref claim (" + secretUid + ")"));
                    return;
                }
                checkPod();
            });
    };
    getter_.get(
        "serviceaccounts", ns, saName,
        [result, info, ns, saName, saUid, before, checkSecret](const json::Value* obj,
                                                               std::string_view error) {
            if (!obj) {
                (*result)(AuthResult::failed(std::string(error)));
                return;
            }
            if (deletedBefore(*obj, before)) {
                (*result)(AuthResult::failed("service account " + ns + "/" + saName +
                                             " has been deleted"));
                return;
            }
            if (uidOf(*obj) != saUid) {
                (*result)(AuthResult::failed("service account UID (" + std::string(uidOf(*obj)) +
                                             ") does not match claim (" + saUid + ")"));
                return;
            }
            info->uid = saUid;
            checkSecret();
        });
}

// Mirrors the legacy validator (pkg/serviceaccount/legacy.go) with lookup.
void ServiceAccountAuthenticator::validateLegacy(std::shared_ptr<Jws> jws, std::string token,
                                                 std::vector<std::string> auds,
                                                 AuthCallback done) const {
    const json::Value& p = jws->payload;
    std::string sub(json::stringMember(p, "sub"));
    std::string ns(json::stringMember(p, "kubernetes.io/serviceaccount/namespace"));
    std::string secretName(json::stringMember(p, "kubernetes.io/serviceaccount/secret.name"));
    std::string saName(json::stringMember(p, "kubernetes.io/serviceaccount/service-account.name"));
    std::string saUid(json::stringMember(p, "kubernetes.io/serviceaccount/service-account.uid"));
    const char* missing = sub.empty()          ? "sub claim is missing"
                          : ns.empty()         ? "namespace claim is missing"
                          : secretName.empty() ? "secretName claim is missing"
                          : saName.empty()     ? "serviceAccountName claim is missing"
                          : saUid.empty()      ? "serviceAccountUID claim is missing"
                                               : nullptr;
    if (missing) {
        done(AuthResult::failed(missing));
        return;
    }
    if (sub != kServiceAccountUsernamePrefix + ns + ":" + saName) {
        done(AuthResult::failed("sub claim is invalid"));
        return;
    }
    std::optional<int64_t> exp = numericDate(p, "exp");
    auto result = std::make_shared<AuthCallback>(std::move(done));
    getter_.get("secrets", ns, secretName,
                [this, result, token, ns, saName, saUid, auds, exp](const json::Value* secret,
                                                                    std::string_view) {
                    if (!secret || deletedBefore(*secret, std::nullopt)) {
                        (*result)(AuthResult::failed("Token has been invalidated"));
                        return;
                    }
                    const json::Value* data = json::at(*secret, {"data", "token"});
                    auto stored = data && data->IsString() ? util::decodeBase64(json::view(*data))
                                                           : std::nullopt;
                    if (!stored || *stored != token) {
                        (*result)(AuthResult::failed("Token does not match server's copy"));
                        return;
                    }
                    getter_.get("serviceaccounts", ns, saName,
                                [result, ns, saName, saUid, auds, exp](const json::Value* sa,
                                                                       std::string_view error) {
                                    if (!sa) {
                                        (*result)(AuthResult::failed(std::string(error)));
                                        return;
                                    }
                                    if (deletedBefore(*sa, std::nullopt)) {
                                        (*result)(AuthResult::failed("ServiceAccount " + ns + "/" +
                                                                     saName + " has been deleted"));
                                        return;
                                    }
                                    if (uidOf(*sa) != saUid) {
                                        (*result)(AuthResult::failed(
                                            "ServiceAccount UID (" + std::string(uidOf(*sa)) +
                                            ") does not match claim (" + saUid + ")"));
                                        return;
                                    }
                                    ServiceAccountInfo info;
                                    info.namespace_ = ns;
                                    info.name = saName;
                                    info.uid = saUid;
                                    AuthResult r = AuthResult::authenticated(info.userInfo(), auds);
                                    if (exp) {
                                        r.expires = Clock::time_point(std::chrono::seconds(*exp));
                                    }
                                    (*result)(std::move(r));
                                });
                });
}

std::string issueToken(const ServiceAccountOptions& options, const TokenClaims& c,
                       Clock::time_point now, std::string* jtiOut) {
    if (!options.signingKey || options.issuers.empty()) {
        return "";
    }
    int64_t t = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    json::Document doc(rapidjson::kObjectType);
    auto& a = doc.GetAllocator();
    auto str = [&a](std::string_view s) { return json::stringValue(s, a); };
    auto ref = [&](const std::string& name, const std::string& uid) {
        json::Value r(rapidjson::kObjectType);
        r.AddMember("name", str(name), a);
        r.AddMember("uid", str(uid), a);
        return r;
    };
    std::string jti = util::newUid();
    // Members in Go's map order (sorted), as go-jose serializes merged claims.
    json::Value aud(rapidjson::kArrayType);
    for (const std::string& s : c.audiences) {
        aud.PushBack(str(s), a);
    }
    doc.AddMember("aud", aud, a);
    doc.AddMember("exp", t + c.expirationSeconds, a);
    doc.AddMember("iat", t, a);
    doc.AddMember("iss", str(options.issuers.front()), a);
    doc.AddMember("jti", str(jti), a);
    json::Value k8s(rapidjson::kObjectType);
    k8s.AddMember("namespace", str(c.namespace_), a);
    if (!c.nodeName.empty()) {
        k8s.AddMember("node", ref(c.nodeName, c.nodeUid), a);
    }
    if (!c.podName.empty()) {
        k8s.AddMember("pod", ref(c.podName, c.podUid), a);
    }
    if (!c.secretName.empty()) {
        k8s.AddMember("secret", ref(c.secretName, c.secretUid), a);
    }
    k8s.AddMember("serviceaccount", ref(c.serviceAccountName, c.serviceAccountUid), a);
    if (c.warnAfterSeconds) {
        k8s.AddMember("warnafter", t + c.warnAfterSeconds, a);
    }
    doc.AddMember("kubernetes.io", k8s, a);
    doc.AddMember("nbf", t, a);
    doc.AddMember(
        "sub", str(kServiceAccountUsernamePrefix + c.namespace_ + ":" + c.serviceAccountName), a);
    if (jtiOut) {
        *jtiOut = jti;
    }
    return signJws(doc, *options.signingKey);
}

}  // namespace kube::authn
