// authn::userFromRequestHeaders: kube's request-header authenticator, the
// headers an authenticating proxy sets, and its place first in the
// authenticator union. (The proxy certificate check runs in
// t/034-proxy-impersonation.t with real certificates.)
#include <chrono>
#include <string>
#include <vector>

#include "authn/authentication.hpp"
#include "authn/request_header.hpp"

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

namespace {

void no_username_no_user(void**) {
    authn::RequestHeaderConfig config;
    assert_false(authn::userFromRequestHeaders(config, {{"X-Remote-Group", "g"}}).has_value());
    assert_false(authn::userFromRequestHeaders(config, {{"X-Remote-User", ""}}).has_value());
}

void user_groups_and_extras_from_the_default_headers(void**) {
    authn::RequestHeaderConfig config;
    std::optional<authn::UserInfo> u = authn::userFromRequestHeaders(
        config, {{"x-remote-user", "jane"},
                 {"X-Remote-Group", "a,b"},  // one group: values are not split
                 {"X-Remote-Extra-Scopes", "s1"},
                 {"X-REMOTE-GROUP", "c"},
                 {"X-Remote-Extra-Acme.com%2Fproject", "p"},
                 {"X-Remote-Extra-scopes", "s2"},
                 {"X-Remote-Group", ""}});
    assert_true(u.has_value());
    assert_string_equal(u->name.c_str(), "jane");
    std::vector<std::string> groups{"a,b", "c"};
    assert_true(u->groups == groups);
    std::vector<std::string> scopes{"s1", "s2"};
    assert_true(u->extra["scopes"] == scopes);
    assert_string_equal(u->extra["acme.com/project"][0].c_str(), "p");
    assert_true(u->uid.empty());
}

void configured_headers_are_tried_in_order(void**) {
    authn::RequestHeaderConfig config;
    config.usernameHeaders = {"X-First", "X-Second"};
    config.uidHeaders = {"X-Uid"};
    config.groupHeaders = {"X-G1", "X-G2"};
    config.extraHeaderPrefixes = {"X-E1-", "X-E2-"};
    std::optional<authn::UserInfo> u =
        authn::userFromRequestHeaders(config, {{"X-Second", "second"},
                                               {"X-First", ""},
                                               {"X-Uid", "42"},
                                               {"X-G2", "two"},
                                               {"X-G1", "one"},
                                               {"X-E2-k", "b"},
                                               {"X-E1-k", "a"},
                                               {"X-Remote-User", "ignored"}});
    assert_string_equal(u->name.c_str(), "second");
    assert_string_equal(u->uid.c_str(), "42");
    std::vector<std::string> groups{"one", "two"};
    assert_true(u->groups == groups);
    std::vector<std::string> k{"a", "b"};
    assert_true(u->extra["k"] == k);
    assert_true(authn::isRequestHeader(config, "x-e1-anything"));
    assert_true(authn::isRequestHeader(config, "X-UID"));
    assert_false(authn::isRequestHeader(config, "X-Remote-User"));
}

struct NoObjects : authn::ObjectGetter {
    void get(
        std::string_view, std::string_view, std::string_view,
        std::function<void(const kube::util::json::Value*, std::string_view)> done) const override {
        done(nullptr, "not found");
    }
};

authn::AuthResult authenticate(const authn::RequestCredentials& creds) {
    static NoObjects objects;
    authn::Authentication authentication(std::make_shared<authn::AuthenticationConfig>(), objects,
                                         [] { return std::chrono::system_clock::now(); });
    authn::AuthResult out;
    bool called = false;
    authentication.authenticateRequest(creds, [&](authn::AuthResult&& r) {
        out = std::move(r);
        called = true;
    });
    assert_true(called);
    return out;
}

void the_proxys_user_comes_first_and_is_authenticated(void**) {
    authn::RequestCredentials creds;
    creds.requestHeaderUser = authn::UserInfo{"jane", "", {"dev"}, {}};
    creds.certificateUser = authn::UserInfo{"front-proxy", "", {"system:authenticated"}, {}};
    creds.authorization = "Bearer whatever";
    authn::AuthResult r = authenticate(creds);
    assert_true(r.ok());
    assert_string_equal(r.user.name.c_str(), "jane");
    std::vector<std::string> groups{"dev", "system:authenticated"};
    assert_true(r.user.groups == groups);
}

void a_certificate_that_is_not_the_proxys_still_authenticates_its_user(void**) {
    authn::RequestCredentials creds;
    creds.requestHeaderError = "x509: certificate signed by unknown authority";
    creds.certificateUser = authn::UserInfo{"admin", "", {"system:masters"}, {}};
    authn::AuthResult r = authenticate(creds);
    assert_true(r.ok());
    assert_string_equal(r.user.name.c_str(), "admin");
}

void the_proxys_certificate_without_a_user_is_an_error_of_both(void**) {
    authn::RequestCredentials creds;
    creds.certificateError =
        "verifying certificate failed: x509: unable to get local issuer "
        "certificate";
    authn::AuthResult r = authenticate(creds);
    assert_int_equal(static_cast<int>(r.outcome),
                     static_cast<int>(authn::AuthResult::Outcome::Failed));
    creds.requestHeaderError = "x509: subject with cn=other is not in the allowed list";
    r = authenticate(creds);
    assert_string_equal(r.error.c_str(),
                        "[x509: subject with cn=other is not in the allowed list, verifying "
                        "certificate failed: x509: unable to get local issuer certificate]");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_username_no_user),
        cmocka_unit_test(user_groups_and_extras_from_the_default_headers),
        cmocka_unit_test(configured_headers_are_tried_in_order),
        cmocka_unit_test(the_proxys_user_comes_first_and_is_authenticated),
        cmocka_unit_test(a_certificate_that_is_not_the_proxys_still_authenticates_its_user),
        cmocka_unit_test(the_proxys_certificate_without_a_user_is_an_error_of_both),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
