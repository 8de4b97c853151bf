#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "authn/authentication.hpp"
#include "authn/jwt.hpp"
#include "authn/oidc.hpp"
#include "authn/service_account.hpp"

// cmocka last: its fail() macro breaks standard headers included after it.
// clang-format off
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}
// clang-format on

namespace authn = kube::authn;
namespace json = kube::util::json;
using Clock = std::chrono::system_clock;
using Outcome = authn::AuthResult::Outcome;

namespace {

const Clock::time_point kNow = Clock::from_time_t(1800000000);

// A fresh key written as PEM and read back the way the directives read it.
authn::KeyRef makeKey(const char* type, const char* param) {
    EVP_PKEY* pkey = std::string(type) == "RSA" ? EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", 2048)
                                                : EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", param);
    char path[] = "/tmp/authn-key-XXXXXX";
    int fd = mkstemp(path);
    FILE* f = fdopen(fd, "w");
    PEM_write_PrivateKey(f, pkey, nullptr, nullptr, 0, nullptr, nullptr);
    fclose(f);
    EVP_PKEY_free(pkey);
    std::string error;
    auto keys = authn::Key::loadPem(path, &error);
    unlink(path);
    assert_int_equal(keys.size(), 1);
    return keys[0];
}

struct FakeGetter : authn::ObjectGetter {
    std::map<std::string, std::string> objects;  // "resource/ns/name" -> JSON
    void get(std::string_view resource, std::string_view ns, std::string_view name,
             std::function<void(const json::Value*, std::string_view)> done) const override {
        auto it = objects.find(std::string(resource) + "/" + std::string(ns) + "/" +
                               std::string(name));
        if (it == objects.end()) {
            done(nullptr, std::string(resource) + " \"" + std::string(name) + "\" not found");
            return;
        }
        json::Document doc;
        json::parse(it->second, doc);
        done(&doc, "");
    }
};

struct Fixture {
    authn::KeyRef rsa = makeKey("RSA", nullptr);
    authn::KeyRef ec = makeKey("EC", "P-256");
    authn::KeyRef foreign = makeKey("RSA", nullptr);
    std::shared_ptr<authn::ServiceAccountOptions> opts =
        std::make_shared<authn::ServiceAccountOptions>();
    FakeGetter getter;

    Fixture() {
        opts->issuers = {"https://kube.test", "https://old.test"};
        opts->keys = {rsa, ec};
        opts->signingKey = rsa;
        getter.objects["serviceaccounts/ns/sa"] = R"({"metadata":{"name":"sa","uid":"sa-uid"}})";
        getter.objects["pods/ns/p"] = R"({"metadata":{"name":"p","uid":"pod-uid"}})";
    }

    authn::TokenClaims claims() const {
        authn::TokenClaims c;
        c.namespace_ = "ns";
        c.serviceAccountName = "sa";
        c.serviceAccountUid = "sa-uid";
        c.audiences = {"https://kube.test"};
        return c;
    }

    authn::AuthResult check(const std::string& token, Clock::time_point at = kNow,
                            std::vector<std::string> auds = {}) const {
        authn::ServiceAccountAuthenticator a(opts, getter, [at] { return at; });
        authn::AuthResult out;
        out.error = "no answer";
        a.authenticateToken(token, auds, [&](authn::AuthResult&& r) { out = std::move(r); });
        return out;
    }
};

std::string part(const std::string& jsonText) {
    return authn::encodeBase64Url(jsonText);
}

void base64url_round_trips_and_refuses_padding(void**) {
    for (std::string s : {"", "a", "ab", "abc", "abcd", "\xff\xfe\x00x"}) {
        auto back = authn::decodeBase64Url(authn::encodeBase64Url(s));
        assert_true(back && *back == s);
    }
    assert_false(authn::decodeBase64Url("YQ==").has_value());
    assert_false(authn::decodeBase64Url("a+b/").has_value());
    assert_false(authn::decodeBase64Url("Y").has_value());
    assert_false(authn::decodeBase64Url("YR").has_value());  // non-zero trailing bits
}

void issued_token_authenticates_as_the_service_account(void**) {
    Fixture fx;
    auto c = fx.claims();
    c.podName = "p";
    c.podUid = "pod-uid";
    std::string jti;
    std::string token = authn::issueToken(*fx.opts, c, kNow, &jti);
    assert_false(token.empty());
    auto r = fx.check(token, kNow + std::chrono::seconds(10));
    assert_true(r.ok());
    assert_string_equal(r.user.name.c_str(), "system:serviceaccount:ns:sa");
    assert_string_equal(r.user.uid.c_str(), "sa-uid");
    assert_int_equal(r.user.groups.size(), 2);
    assert_string_equal(r.user.groups[1].c_str(), "system:serviceaccounts:ns");
    assert_string_equal(r.user.extra.at(authn::kPodNameKey)[0].c_str(), "p");
    assert_string_equal(r.user.extra.at(authn::kCredentialIdKey)[0].c_str(),
                        ("JTI=" + jti).c_str());
    assert_int_equal(r.audiences.size(), 1);
    // the header names the key as kube does
    auto jws = authn::Jws::parse(token);
    assert_true(jws.has_value());
    assert_string_equal(jws->alg.c_str(), "RS256");
    assert_string_equal(jws->kid.c_str(), fx.rsa->kid().c_str());
}

void es256_tokens_verify(void**) {
    Fixture fx;
    fx.opts->signingKey = fx.ec;
    std::string token = authn::issueToken(*fx.opts, fx.claims(), kNow);
    assert_string_equal(authn::Jws::parse(token)->alg.c_str(), "ES256");
    assert_true(fx.check(token).ok());
    for (const char* curve : {"P-384", "P-521"}) {
        fx.opts->signingKey = makeKey("EC", curve);
        fx.opts->keys.push_back(fx.opts->signingKey);
        assert_true(fx.check(authn::issueToken(*fx.opts, fx.claims(), kNow)).ok());
    }
}

void expired_and_future_tokens_fail(void**) {
    Fixture fx;
    auto c = fx.claims();
    c.expirationSeconds = 600;
    std::string token = authn::issueToken(*fx.opts, c, kNow);
    // one minute of leeway
    assert_true(fx.check(token, kNow + std::chrono::seconds(650)).ok());
    auto r = fx.check(token, kNow + std::chrono::seconds(700));
    assert_true(r.outcome == Outcome::Failed);
    assert_string_equal(r.error.c_str(), "service account token has expired");
    r = fx.check(token, kNow - std::chrono::seconds(120));
    assert_string_equal(r.error.c_str(), "service account token is not valid yet");
}

void foreign_key_alg_none_and_bad_signatures_fail(void**) {
    Fixture fx;
    auto foreignOpts = std::make_shared<authn::ServiceAccountOptions>(*fx.opts);
    foreignOpts->signingKey = fx.foreign;
    std::string token = authn::issueToken(*foreignOpts, fx.claims(), kNow);
    auto r = fx.check(token);
    assert_true(r.outcome == Outcome::Failed);
    assert_string_equal(r.error.c_str(), "invalid signature, no keys found");

    std::string good = authn::issueToken(*fx.opts, fx.claims(), kNow);
    auto jws = authn::Jws::parse(good);
    std::string payload = good.substr(good.find('.') + 1);
    payload = payload.substr(0, payload.find('.'));
    std::string noKid = part(R"({"alg":"RS256"})") + "." + payload + "." +
                        good.substr(good.rfind('.') + 1);
    // a header changed after signing (kid dropped) no longer verifies
    assert_true(fx.check(noKid).outcome == Outcome::Failed);
    std::string tampered = good;
    tampered[tampered.size() - 5] = tampered[tampered.size() - 5] == 'A' ? 'B' : 'A';
    r = fx.check(tampered);
    assert_true(r.outcome == Outcome::Failed);
    assert_string_equal(r.error.c_str(), "square/go-jose: error in cryptographic primitive");

    std::string none = part(R"({"alg":"none"})") + "." + payload + ".";
    r = fx.check(none);
    assert_true(r.outcome == Outcome::Failed);
    assert_string_equal(r.error.c_str(),
                        "[square/go-jose: unknown/unsupported algorithm, square/go-jose: "
                        "unknown/unsupported algorithm]");
    std::string hs = part(R"({"alg":"HS256"})") + "." + payload + ".c2ln";
    assert_true(fx.check(hs).outcome == Outcome::Failed);
    // an RSA token claiming ES256 is refused, not confused
    std::string es = part(R"({"alg":"ES256"})") + "." + payload + "." +
                     good.substr(good.rfind('.') + 1);
    assert_true(fx.check(es).outcome == Outcome::Failed);
}

void malformed_tokens_are_not_service_account_tokens(void**) {
    Fixture fx;
    std::string good = authn::issueToken(*fx.opts, fx.claims(), kNow);
    for (size_t cut : {size_t(1), size_t(10), good.find('.'), good.find('.') + 5,
                       good.rfind('.'), good.size() - 3}) {
        auto r = fx.check(good.substr(0, cut));
        assert_true(r.outcome != Outcome::Authenticated);
    }
    assert_true(fx.check("not-a-jwt").outcome == Outcome::NotMine);
    assert_true(fx.check("a.b.c.d").outcome == Outcome::NotMine);
    assert_true(fx.check(part("{}") + "." + part("[]") + ".x").outcome == Outcome::NotMine);
    assert_true(fx.check("{\"alg\":1}.e30.x").outcome == Outcome::NotMine);
    // a payload with padding, or characters outside base64url
    std::string padded = good.substr(0, good.find('.') + 1) + "e30=" + good.substr(good.rfind('.'));
    assert_true(fx.check(padded).outcome == Outcome::NotMine);
}

void wrong_issuer_or_audience_fails(void**) {
    Fixture fx;
    auto other = std::make_shared<authn::ServiceAccountOptions>(*fx.opts);
    other->issuers = {"https://elsewhere"};
    assert_true(fx.check(authn::issueToken(*other, fx.claims(), kNow)).outcome ==
                Outcome::NotMine);
    // the second issuer is accepted
    other->issuers = {"https://old.test"};
    assert_true(fx.check(authn::issueToken(*other, fx.claims(), kNow)).ok());
    auto c = fx.claims();
    c.audiences = {"vault"};
    std::string token = authn::issueToken(*fx.opts, c, kNow);
    auto r = fx.check(token);
    assert_true(r.outcome == Outcome::Failed);
    assert_string_equal(r.error.c_str(), "token audiences [\"vault\"] is invalid for the target "
                                         "audiences [\"https://kube.test\"]");
    assert_true(fx.check(token, kNow, {"vault"}).ok());
}

void deleted_or_recreated_objects_invalidate_tokens(void**) {
    Fixture fx;
    auto c = fx.claims();
    c.podName = "p";
    c.podUid = "pod-uid";
    std::string token = authn::issueToken(*fx.opts, c, kNow);
    fx.getter.objects["pods/ns/p"] = R"({"metadata":{"name":"p","uid":"other"}})";
    auto r = fx.check(token);
    assert_string_equal(r.error.c_str(),
                        "pod UID (other) does not match service account pod ref claim (pod-uid)");
    fx.getter.objects.erase("pods/ns/p");
    assert_string_equal(fx.check(token).error.c_str(),
                        "service account token has been invalidated");
    fx.getter.objects["serviceaccounts/ns/sa"] = R"({"metadata":{"name":"sa","uid":"new"}})";
    assert_string_equal(fx.check(token).error.c_str(),
                        "service account UID (new) does not match claim (sa-uid)");
    fx.getter.objects.erase("serviceaccounts/ns/sa");
    assert_string_equal(fx.check(token).error.c_str(), "serviceaccounts \"sa\" not found");
}

void legacy_secret_tokens_match_the_secret(void**) {
    Fixture fx;
    json::Document p(rapidjson::kObjectType);
    auto& a = p.GetAllocator();
    p.AddMember("iss", "kubernetes/serviceaccount", a);
    p.AddMember("kubernetes.io/serviceaccount/namespace", "ns", a);
    p.AddMember("kubernetes.io/serviceaccount/secret.name", "sa-token", a);
    p.AddMember("kubernetes.io/serviceaccount/service-account.name", "sa", a);
    p.AddMember("kubernetes.io/serviceaccount/service-account.uid", "sa-uid", a);
    p.AddMember("sub", "system:serviceaccount:ns:sa", a);
    std::string token = authn::signJws(p, *fx.rsa);
    assert_string_equal(fx.check(token).error.c_str(), "Token has been invalidated");
    fx.getter.objects["secrets/ns/sa-token"] =
        R"({"metadata":{"name":"sa-token","uid":"s"},"data":{"token":")" +
        std::string(EVP_ENCODE_LENGTH(0), '\0').substr(0, 0) + "eA==\"}}";
    assert_string_equal(fx.check(token).error.c_str(), "Token does not match server's copy");
    std::string b64(4 * ((token.size() + 2) / 3) + 1, '\0');
    b64.resize(EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()),
                               reinterpret_cast<const unsigned char*>(token.data()),
                               static_cast<int>(token.size())));
    fx.getter.objects["secrets/ns/sa-token"] =
        R"({"metadata":{"name":"sa-token","uid":"s"},"data":{"token":")" + b64 + "\"}}";
    auto r = fx.check(token);
    assert_true(r.ok());
    assert_string_equal(r.user.name.c_str(), "system:serviceaccount:ns:sa");
}

void key_id_and_jwk_follow_kube(void**) {
    Fixture fx;
    assert_int_equal(fx.rsa->kid().size(), 43);  // base64url of a SHA-256
    json::Document d(rapidjson::kObjectType);
    json::Value jwk = fx.ec->toJwk(d.GetAllocator());
    assert_string_equal(json::stringMember(jwk, "kty").data(), "EC");
    assert_string_equal(std::string(json::stringMember(jwk, "crv")).c_str(), "P-256");
    assert_int_equal(json::stringMember(jwk, "x").size(), 43);
    // a JWKS of our own keys reads back to the same key ids
    json::Value keys(rapidjson::kArrayType);
    keys.PushBack(fx.rsa->toJwk(d.GetAllocator()), d.GetAllocator());
    keys.PushBack(jwk, d.GetAllocator());
    d.AddMember("keys", keys, d.GetAllocator());
    std::string error;
    auto back = authn::Key::fromJwks(json::serialize(d), &error);
    assert_int_equal(back.size(), 2);
    assert_string_equal(back[0]->kid().c_str(), fx.rsa->kid().c_str());
    assert_string_equal(authn::keyIdOf(back[1]->pkey()).c_str(), fx.ec->kid().c_str());
}

void oidc_maps_claims_with_prefixes(void**) {
    Fixture fx;
    json::Document d(rapidjson::kObjectType);
    json::Value keys(rapidjson::kArrayType);
    keys.PushBack(fx.ec->toJwk(d.GetAllocator()), d.GetAllocator());
    d.AddMember("keys", keys, d.GetAllocator());
    char path[] = "/tmp/authn-jwks-XXXXXX";
    int fd = mkstemp(path);
    std::string text = json::serialize(d);
    assert_true(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    close(fd);
    std::string config = std::string(R"(apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: https://idp.test
    audiences: [kube, other]
    audienceMatchPolicy: MatchAny
    jwksFile: )") + path + R"(
  claimMappings:
    username: {claim: email, prefix: "oidc:"}
    groups: {claim: groups, prefix: "g:"}
    uid: {claim: sub}
    extra:
    - key: example.com/tenant
      valueExpression: claims.tenant
)";
    std::string error;
    auto configs = authn::parseAuthenticationConfiguration(config, "/tmp", &error);
    unlink(path);
    assert_int_equal(configs.size(), 1);
    authn::OidcAuthenticator oidc(std::make_shared<authn::JwtAuthenticatorConfig>(configs[0]),
                                  [] { return kNow; });
    auto run = [&](const std::string& payload) {
        json::Document p;
        json::parse(payload, p);
        authn::AuthResult out;
        oidc.authenticateToken(authn::signJws(p, *fx.ec), {},
                               [&](authn::AuthResult&& r) { out = std::move(r); });
        return out;
    };
    auto r = run(R"({"iss":"https://idp.test","aud":"kube","exp":1800000100,"sub":"42",
                     "email":"jane@x","email_verified":true,"groups":["a","b"],"tenant":"t1"})");
    assert_true(r.ok());
    assert_string_equal(r.user.name.c_str(), "oidc:jane@x");
    assert_string_equal(r.user.uid.c_str(), "42");
    assert_string_equal(r.user.groups[1].c_str(), "g:b");
    assert_string_equal(r.user.extra.at("example.com/tenant")[0].c_str(), "t1");
    r = run(R"({"iss":"https://idp.test","aud":"nope","exp":1800000100,"email":"j"})");
    assert_true(r.outcome == Outcome::Failed);
    r = run(R"({"iss":"https://idp.test","aud":"kube","exp":1799990000,"email":"j"})");
    assert_true(r.error.find("token is expired") != std::string::npos);
    r = run(R"({"iss":"https://idp.test","aud":"kube","exp":1800000100,"email":"j",
                "email_verified":false})");
    assert_string_equal(r.error.c_str(), "oidc: email not verified");
    r = run(R"({"iss":"https://other","aud":"kube","exp":1800000100,"email":"j"})");
    assert_true(r.outcome == Outcome::NotMine);
    // signed by a key the JWKS does not hold
    json::Document p;
    json::parse(R"({"iss":"https://idp.test","aud":"kube","exp":1800000100,"email":"j"})", p);
    authn::AuthResult out;
    oidc.authenticateToken(authn::signJws(p, *fx.rsa), {},
                           [&](authn::AuthResult&& res) { out = std::move(res); });
    assert_true(out.outcome == Outcome::Failed);
}

void authentication_config_errors_name_the_field(void**) {
    std::string error;
    auto c = authn::parseAuthenticationConfiguration(
        "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n"
        "jwt:\n- issuer: {url: 'http://x', audiences: [a]}\n",
        "/", &error);
    assert_true(c.empty());
    assert_string_equal(error.c_str(),
                        "jwt[0].issuer.url: Invalid value: \"http://x\": URL scheme must be https");
    error.clear();
    c = authn::parseAuthenticationConfiguration(
        "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n"
        "jwt:\n- issuer: {url: 'https://x', audiences: [a, b]}\n",
        "/", &error);
    assert_true(error.find("audienceMatchPolicy") != std::string::npos);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(base64url_round_trips_and_refuses_padding),
        cmocka_unit_test(issued_token_authenticates_as_the_service_account),
        cmocka_unit_test(es256_tokens_verify),
        cmocka_unit_test(expired_and_future_tokens_fail),
        cmocka_unit_test(foreign_key_alg_none_and_bad_signatures_fail),
        cmocka_unit_test(malformed_tokens_are_not_service_account_tokens),
        cmocka_unit_test(wrong_issuer_or_audience_fails),
        cmocka_unit_test(deleted_or_recreated_objects_invalidate_tokens),
        cmocka_unit_test(legacy_secret_tokens_match_the_secret),
        cmocka_unit_test(key_id_and_jwk_follow_kube),
        cmocka_unit_test(oidc_maps_claims_with_prefixes),
        cmocka_unit_test(authentication_config_errors_name_the_field),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
