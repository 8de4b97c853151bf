#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "authn/authentication.hpp"
#include "authn/service_account.hpp"
#include "authn/token_cache.hpp"
#include "authn/token_file.hpp"

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
using std::chrono::seconds;

namespace {

const Clock::time_point kNow = Clock::from_time_t(1800000000);

authn::AuthResult alice() {
    authn::UserInfo u;
    u.name = "alice";
    u.groups = {"dev"};
    return authn::AuthResult::authenticated(u, {"api"});
}

void cache_keys_by_token_and_audiences(void**) {
    authn::TokenCache c;
    auto k = c.keyOf("t1", {});
    assert_int_equal(k.size(), 32);
    assert_true(k == c.keyOf("t1", {}));
    assert_true(k != c.keyOf("t2", {}));
    assert_true(c.keyOf("t1", {"a"}) != k);
    // length-prefixed: ["ab"] is not ["a", "b"], nor token "t1a" with ["b"]
    assert_true(c.keyOf("t1", {"ab"}) != c.keyOf("t1", {"a", "b"}));
    assert_true(c.keyOf("t1a", {"b"}) != c.keyOf("t1", {"ab"}));
    // the key is secret to each cache: another cache hashes differently
    authn::TokenCache other;
    assert_true(other.keyOf("t1", {}) != k);
}

void cache_keeps_successes_for_the_ttl_only(void**) {
    authn::TokenCache c(seconds(10));
    auto k = c.keyOf("t1", {});
    assert_null(c.find(k, kNow));
    c.put(k, alice(), kNow);
    const authn::AuthResult* hit = c.find(k, kNow + seconds(9));
    assert_non_null(hit);
    assert_string_equal(hit->user.name.c_str(), "alice");
    assert_int_equal(hit->audiences.size(), 1);
    assert_null(c.find(k, kNow + seconds(10)));
    assert_int_equal(c.size(), 0);
    // failures are never kept
    c.put(k, authn::AuthResult::failed("no"), kNow);
    c.put(k, authn::AuthResult::notMine(), kNow);
    assert_null(c.find(k, kNow));
}

void cache_never_answers_past_the_credential_expiry(void**) {
    authn::TokenCache c(seconds(10));
    auto k = c.keyOf("jwt", {});
    authn::AuthResult r = alice();
    r.expires = kNow + seconds(3);
    c.put(k, r, kNow);
    assert_non_null(c.find(k, kNow + seconds(2)));
    assert_null(c.find(k, kNow + seconds(3)));
    // already expired: not kept at all
    r.expires = kNow;
    c.put(k, r, kNow);
    assert_null(c.find(k, kNow));
}

void cache_is_bounded_and_drops_the_oldest(void**) {
    authn::TokenCache c(seconds(10), 3);
    for (int i = 0; i < 5; i++) {
        c.put(c.keyOf("t" + std::to_string(i), {}), alice(), kNow + seconds(i) / 10);
    }
    assert_int_equal(c.size(), 3);
    assert_null(c.find(c.keyOf("t0", {}), kNow + seconds(1)));
    assert_null(c.find(c.keyOf("t1", {}), kNow + seconds(1)));
    assert_non_null(c.find(c.keyOf("t4", {}), kNow + seconds(1)));
    // the same key put again many times keeps one entry
    for (int i = 0; i < 100; i++) {
        c.put(c.keyOf("t4", {}), alice(), kNow + seconds(1));
    }
    assert_int_equal(c.size(), 3);
}

// A service-account getter that counts reads and can lose the account.
struct CountingGetter : authn::ObjectGetter {
    mutable int reads = 0;
    bool deleted = false;
    void get(std::string_view resource, std::string_view, std::string_view name,
             std::function<void(const json::Value*, std::string_view)> done) const override {
        reads++;
        if (deleted || resource != "serviceaccounts") {
            done(nullptr, std::string(resource) + " \"" + std::string(name) + "\" not found");
            return;
        }
        json::Document doc;
        json::parse(R"({"metadata":{"name":"sa","uid":"sa-uid"}})", doc);
        done(&doc, "");
    }
};

authn::KeyRef rsaKey() {
    EVP_PKEY* pkey = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", 2048);
    char path[] = "/tmp/authn-cache-key-XXXXXX";
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

struct Server {
    CountingGetter getter;
    Clock::time_point now = kNow;
    std::shared_ptr<authn::AuthenticationConfig> config =
        std::make_shared<authn::AuthenticationConfig>();
    std::unique_ptr<authn::Authentication> auth;

    Server() {
        auto opts = std::make_shared<authn::ServiceAccountOptions>();
        opts->issuers = {"https://kube.test"};
        opts->signingKey = rsaKey();
        opts->keys = {opts->signingKey};
        config->serviceAccounts = opts;
        std::string error;
        config->tokenFile = authn::TokenFile::parse("tok,bob,uid-b\n", "/x/tokens.csv", &error);
        auth = std::make_unique<authn::Authentication>(config, getter, [this] { return now; });
    }

    std::string token(int64_t expirationSeconds) const {
        authn::TokenClaims c;
        c.namespace_ = "ns";
        c.serviceAccountName = "sa";
        c.serviceAccountUid = "sa-uid";
        c.audiences = {"https://kube.test"};
        c.expirationSeconds = expirationSeconds;
        return authn::issueToken(*config->serviceAccounts, c, kNow);
    }

    authn::AuthResult check(const std::string& token,
                            const std::vector<std::string>& auds = {}) const {
        authn::AuthResult out = authn::AuthResult::failed("no answer");
        auth->authenticateToken(token, auds, [&](authn::AuthResult&& r) { out = std::move(r); });
        return out;
    }
};

void service_account_success_is_cached_for_ten_seconds(void**) {
    Server s;
    std::string t = s.token(3600);
    assert_true(s.check(t).ok());
    assert_int_equal(s.getter.reads, 1);
    s.now = kNow + seconds(9);
    authn::AuthResult again = s.check(t);
    assert_true(again.ok());
    assert_string_equal(again.user.name.c_str(), "system:serviceaccount:ns:sa");
    assert_int_equal(s.getter.reads, 1);
    // as in kube: the deleted account's token still passes within the TTL...
    s.getter.deleted = true;
    assert_true(s.check(t).ok());
    assert_int_equal(s.getter.reads, 1);
    // ... and not after it; the failure is not cached
    s.now = kNow + seconds(10);
    assert_false(s.check(t).ok());
    assert_false(s.check(t).ok());
    assert_int_equal(s.getter.reads, 3);
}

void cached_token_is_not_used_past_its_exp(void**) {
    Server s;
    std::string t = s.token(5);
    assert_true(s.check(t).ok());
    s.now = kNow + seconds(4);
    assert_true(s.check(t).ok());
    assert_int_equal(s.getter.reads, 1);
    // past exp, within the TTL: the authenticator decides again (its own
    // leeway lets it pass); after the leeway it is refused
    s.now = kNow + seconds(6);
    assert_true(s.check(t).ok());
    assert_int_equal(s.getter.reads, 2);
    s.now = kNow + seconds(5 + 61);
    authn::AuthResult late = s.check(t);
    assert_false(late.ok());
    assert_string_equal(late.error.c_str(), "service account token has expired");
}

void cache_entry_is_per_audience(void**) {
    Server s;
    std::string t = s.token(3600);
    assert_true(s.check(t).ok());
    // another audience is a miss, and this one fails
    authn::AuthResult other = s.check(t, {"https://elsewhere"});
    assert_false(other.ok());
    assert_int_equal(s.getter.reads, 1);
    // the token file's user is cached as well
    assert_true(s.check("tok").ok());
    assert_true(s.check("tok").ok());
    assert_false(s.check("nope").ok());
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cache_keys_by_token_and_audiences),
        cmocka_unit_test(cache_keeps_successes_for_the_ttl_only),
        cmocka_unit_test(cache_never_answers_past_the_credential_expiry),
        cmocka_unit_test(cache_is_bounded_and_drops_the_oldest),
        cmocka_unit_test(service_account_success_is_cached_for_ten_seconds),
        cmocka_unit_test(cached_token_is_not_used_past_its_exp),
        cmocka_unit_test(cache_entry_is_per_audience),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
