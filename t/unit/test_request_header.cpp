// authn::userFromRequestHeaders: kube's request-header authenticator, the
// headers an authenticating proxy sets. (The proxy certificate check runs in
// t/034-proxy-impersonation.t with real certificates.)
#include <string>
#include <vector>

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

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_username_no_user),
        cmocka_unit_test(user_groups_and_extras_from_the_default_headers),
        cmocka_unit_test(configured_headers_are_tried_in_order),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
