#include "authn/oidc.hpp"

#include <cerrno>
#include <cstring>
#include <sstream>

#include "util/file.hpp"
#include "util/go_text.hpp"
#include "util/time.hpp"
#include "util/yaml.hpp"

namespace kube::authn {

namespace json = util::json;

namespace {

using Clock = std::chrono::system_clock;
// go-oidc's allowedClockSkew.
constexpr int64_t kClockSkew = 5 * 60;

// The claim a CEL expression of the simplest form names: claims.x or
// claims["x"] / claims['x']; "" for anything else.
std::string claimOfExpression(std::string_view e) {
    if (e.starts_with("claims.")) {
        std::string_view name = e.substr(7);
        for (char c : name) {
            if (!isalnum(static_cast<unsigned char>(c)) && c != '_') {
                return "";
            }
        }
        return std::string(name);
    }
    if (e.starts_with("claims[") && e.ends_with("]") && e.size() > 10) {
        std::string_view q = e.substr(7, e.size() - 8);
        if ((q.front() == '"' || q.front() == '\'') && q.back() == q.front()) {
            return std::string(q.substr(1, q.size() - 2));
        }
    }
    return "";
}

// Reads claim:/expression:/prefix: of one mapping; false with `error` set.
bool readMapping(const json::Value* m, const std::string& field, bool required, ClaimMapping& out,
                 std::string* error) {
    if (!m || m->IsNull()) {
        if (required) {
            *error = field + ": Required value: claim or expression is required";
            return false;
        }
        return true;
    }
    std::string claim(json::stringMember(*m, "claim"));
    std::string_view expression = json::stringMember(*m, "expression");
    if (!claim.empty() && !expression.empty()) {
        *error = field + ": Invalid value: \"\": claim and expression can't both be set";
        return false;
    }
    if (!expression.empty()) {
        claim = claimOfExpression(expression);
        if (claim.empty()) {
            *error = field + ".expression: Invalid value: \"" + std::string(expression) +
                     "\": only expressions naming one claim (claims.<name>) are supported";
            return false;
        }
        out.prefixSet = true;  // expressions take no prefix
    } else if (!claim.empty()) {
        const json::Value* prefix = json::member(*m, "prefix");
        if (!prefix || !prefix->IsString()) {
            if (field.ends_with("uid")) {
                out.prefixSet = true;
            } else {
                *error = field +
                         ".prefix: Required value: prefix is required when claim is set. "
                         "It can be set to an empty string to disable prefixing";
                return false;
            }
        } else {
            out.prefix = json::view(*prefix);
            out.prefixSet = true;
        }
    } else if (required) {
        *error = field + ": Required value: claim or expression is required";
        return false;
    }
    out.claim = claim;
    return true;
}

std::string dirOf(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

std::vector<JwtAuthenticatorConfig> loadAuthenticationConfiguration(const std::string& path,
                                                                    std::string* error) {
    auto text = util::readFile(path, error);
    if (!text) {
        return {};
    }
    auto out = parseAuthenticationConfiguration(*text, dirOf(path), error);
    if (!error->empty()) {
        *error = "\"" + path + "\": " + *error;
    }
    return out;
}

std::vector<JwtAuthenticatorConfig> parseAuthenticationConfiguration(std::string_view text,
                                                                     const std::string& dir,
                                                                     std::string* error) {
    std::vector<JwtAuthenticatorConfig> out;
    json::Document doc;
    if (auto why = util::yaml::toJson(text, doc)) {
        *error = *why;
        return {};
    }
    std::string_view apiVersion = json::stringMember(doc, "apiVersion");
    if (json::stringMember(doc, "kind") != "AuthenticationConfiguration" ||
        (apiVersion != "apiserver.config.k8s.io/v1alpha1" &&
         apiVersion != "apiserver.config.k8s.io/v1beta1" &&
         apiVersion != "apiserver.config.k8s.io/v1")) {
        *error = "no kind \"" + std::string(json::stringMember(doc, "kind")) +
                 "\" is registered for version \"" + std::string(apiVersion) + "\"";
        return {};
    }
    const json::Value* jwt = json::member(doc, "jwt");
    if (!jwt || jwt->IsNull()) {
        return out;
    }
    if (!jwt->IsArray()) {
        *error = "jwt: Invalid value: a list is required";
        return {};
    }
    for (rapidjson::SizeType i = 0; i < jwt->Size(); i++) {
        const json::Value& e = (*jwt)[i];
        std::string at = "jwt[" + std::to_string(i) + "]";
        JwtAuthenticatorConfig c;
        const json::Value* issuer = json::member(e, "issuer");
        c.issuerUrl = issuer ? json::stringMember(*issuer, "url") : "";
        if (c.issuerUrl.empty()) {
            *error = at + ".issuer.url: Required value";
            return {};
        }
        if (!c.issuerUrl.starts_with("https://") || c.issuerUrl.find('#') != std::string::npos) {
            *error = at + ".issuer.url: Invalid value: \"" + c.issuerUrl +
                     "\": URL scheme must be https";
            return {};
        }
        for (const JwtAuthenticatorConfig& prev : out) {
            if (prev.issuerUrl == c.issuerUrl) {
                *error = at + ".issuer.url: Duplicate value: \"" + c.issuerUrl + "\"";
                return {};
            }
        }
        if (const json::Value* auds = json::member(*issuer, "audiences"); auds && auds->IsArray()) {
            for (const json::Value& a : auds->GetArray()) {
                if (a.IsString() && a.GetStringLength()) {
                    c.audiences.emplace_back(json::view(a));
                }
            }
        }
        if (c.audiences.empty()) {
            *error = at +
                     ".issuer.audiences: Required value: at least one issuer.audiences is "
                     "required";
            return {};
        }
        c.audienceMatchPolicy = json::stringMember(*issuer, "audienceMatchPolicy");
        if (c.audiences.size() > 1 && c.audienceMatchPolicy != "MatchAny") {
            *error = at + ".issuer.audienceMatchPolicy: Invalid value: \"" + c.audienceMatchPolicy +
                     "\": audienceMatchPolicy must be MatchAny for multiple audiences";
            return {};
        }
        if (!c.audienceMatchPolicy.empty() && c.audienceMatchPolicy != "MatchAny") {
            *error = at + ".issuer.audienceMatchPolicy: Invalid value: \"" + c.audienceMatchPolicy +
                     "\": audienceMatchPolicy must be empty or MatchAny";
            return {};
        }
        c.jwksFile = json::stringMember(*issuer, "jwksFile");
        if (c.jwksFile.empty()) {
            *error = at +
                     ".issuer.jwksFile: Required value: this server reads the issuer's "
                     "keys from a JWKS file";
            return {};
        }
        if (c.jwksFile.front() != '/') {
            c.jwksFile = dir + "/" + c.jwksFile;
        }
        const json::Value* mappings = json::member(e, "claimMappings");
        if (!mappings ||
            !readMapping(json::member(*mappings, "username"), at + ".claimMappings.username", true,
                         c.username, error) ||
            !readMapping(json::member(*mappings, "groups"), at + ".claimMappings.groups", false,
                         c.groups, error) ||
            !readMapping(json::member(*mappings, "uid"), at + ".claimMappings.uid", false, c.uid,
                         error)) {
            if (error->empty()) {
                *error = at +
                         ".claimMappings.username: Required value: claim or expression is "
                         "required";
            }
            return {};
        }
        if (const json::Value* extra = json::member(*mappings, "extra");
            extra && extra->IsArray()) {
            for (rapidjson::SizeType j = 0; j < extra->Size(); j++) {
                std::string field = at + ".claimMappings.extra[" + std::to_string(j) + "]";
                std::string key(json::stringMember((*extra)[j], "key"));
                std::string expr(json::stringMember((*extra)[j], "valueExpression"));
                std::string claim = claimOfExpression(expr);
                if (key.empty() || key.find('/') == std::string::npos) {
                    *error = field + ".key: Invalid value: \"" + key +
                             "\": must be a domain-prefixed path (such as \"acme.io/foo\")";
                    return {};
                }
                if (claim.empty()) {
                    *error = field + ".valueExpression: Invalid value: \"" + expr +
                             "\": only expressions naming one claim (claims.<name>) are supported";
                    return {};
                }
                for (char& ch : key) {
                    ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
                }
                c.extra.push_back({key, claim});
            }
        }
        auto jwks = util::readFile(c.jwksFile, error);
        if (!jwks) {
            *error = at + ".issuer.jwksFile: " + *error;
            return {};
        }
        c.keys = Key::fromJwks(*jwks, error);
        if (c.keys.empty()) {
            *error = at + ".issuer.jwksFile: \"" + c.jwksFile + "\": " + *error;
            return {};
        }
        error->clear();
        out.push_back(std::move(c));
    }
    return out;
}

OidcAuthenticator::OidcAuthenticator(std::shared_ptr<const JwtAuthenticatorConfig> config,
                                     std::function<Clock::time_point()> clock)
    : config_(std::move(config)), clock_(std::move(clock)) {}

void OidcAuthenticator::authenticateToken(std::string_view token, const std::vector<std::string>&,
                                          AuthCallback done) const {
    done(authenticate(token));
}

AuthResult OidcAuthenticator::authenticate(std::string_view token) const {
    auto jws = Jws::parse(token);
    if (!jws || json::stringMember(jws->payload, "iss") != config_->issuerUrl) {
        return AuthResult::notMine();
    }
    const json::Value& p = jws->payload;
    bool verified = false;
    for (const KeyRef& k : config_->keys) {
        if ((jws->kid.empty() || k->kid() == jws->kid) && jws->verify(*k).empty()) {
            verified = true;
            break;
        }
    }
    if (!verified) {
        return AuthResult::failed(
            "oidc: verify token: failed to verify signature: failed to verify id token signature");
    }
    int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(clock_().time_since_epoch()).count();
    auto exp = numericDate(p, "exp");
    if (!exp) {
        return AuthResult::failed("oidc: verify token: oidc: malformed claims: missing exp");
    }
    if (now - kClockSkew > *exp) {
        return AuthResult::failed("oidc: verify token: oidc: token is expired (Token Expiry: " +
                                  util::time::formatUnixSeconds(*exp) + ")");
    }
    if (auto nbf = numericDate(p, "nbf"); nbf && now + kClockSkew < *nbf) {
        return AuthResult::failed(
            "oidc: verify token: oidc: current time " + util::time::formatUnixSeconds(now) +
            " before the nbf (not before) time: " + util::time::formatUnixSeconds(*nbf));
    }
    std::vector<std::string> tokenAuds = audiences(p);
    bool audOk = false;
    for (const std::string& a : tokenAuds) {
        audOk = audOk || std::find(config_->audiences.begin(), config_->audiences.end(), a) !=
                             config_->audiences.end();
    }
    if (!audOk) {
        return AuthResult::failed("oidc: verify token: oidc: expected audience in " +
                                  util::quotedList(config_->audiences) + " got " +
                                  util::quotedList(tokenAuds));
    }
    UserInfo user;
    const std::string& uclaim = config_->username.claim;
    const json::Value* name = json::member(p, uclaim);
    if (!name) {
        return AuthResult::failed("oidc: parse username claims \"" + uclaim +
                                  "\": claim not present");
    }
    if (!name->IsString()) {
        return AuthResult::failed("oidc: parse username claims \"" + uclaim +
                                  "\": json: cannot unmarshal into Go value of type string");
    }
    if (uclaim == "email") {
        const json::Value* verifiedEmail = json::member(p, "email_verified");
        if (verifiedEmail && !(verifiedEmail->IsBool() && verifiedEmail->GetBool())) {
            return AuthResult::failed("oidc: email not verified");
        }
    }
    user.name = config_->username.prefix + std::string(json::view(*name));
    if (user.name.empty()) {
        return AuthResult::failed("oidc: empty username is not allowed");
    }
    if (!config_->groups.claim.empty()) {
        if (const json::Value* g = json::member(p, config_->groups.claim)) {
            if (g->IsString()) {
                user.groups.push_back(config_->groups.prefix + std::string(json::view(*g)));
            } else if (g->IsArray()) {
                for (const json::Value& v : g->GetArray()) {
                    if (!v.IsString()) {
                        return AuthResult::failed("oidc: parse groups claim \"" +
                                                  config_->groups.claim +
                                                  "\": json: cannot unmarshal into Go value of "
                                                  "type string");
                    }
                    user.groups.push_back(config_->groups.prefix + std::string(json::view(v)));
                }
            } else if (!g->IsNull()) {
                return AuthResult::failed("oidc: parse groups claim \"" + config_->groups.claim +
                                          "\": json: cannot unmarshal into Go value of type "
                                          "string");
            }
        }
    }
    if (!config_->uid.claim.empty()) {
        const json::Value* uid = json::member(p, config_->uid.claim);
        if (uid && uid->IsString()) {
            user.uid = json::view(*uid);
        }
    }
    for (const ExtraMapping& m : config_->extra) {
        const json::Value* v = json::member(p, m.claim);
        if (!v) {
            continue;
        }
        if (v->IsString()) {
            user.extra[m.key].emplace_back(json::view(*v));
        } else if (v->IsArray()) {
            for (const json::Value& item : v->GetArray()) {
                if (item.IsString()) {
                    user.extra[m.key].emplace_back(json::view(item));
                }
            }
        }
    }
    AuthResult r = AuthResult::authenticated(std::move(user));
    r.expires = std::chrono::system_clock::time_point(std::chrono::seconds(*exp));
    return r;
}

}  // namespace kube::authn
