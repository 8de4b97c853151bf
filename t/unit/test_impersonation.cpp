// authn::parseImpersonation / impersonationAttributes / impersonatedUser:
// kube's WithImpersonation, header by header.
#include <string>
#include <vector>

#include "authn/impersonation.hpp"

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
using Kind = authn::ImpersonationRequest::Kind;

namespace {

std::vector<std::string> groupsOf(const std::vector<authn::Header>& headers) {
    return authn::impersonatedUser(authn::parseImpersonation(headers).requests).groups;
}

void no_headers_no_impersonation(void**) {
    authn::ImpersonationParse p =
        authn::parseImpersonation({{"Authorization", "Bearer x"}, {"Impersonate-User", ""}});
    assert_true(p.requests.empty());
    assert_false(p.error.has_value());
}

void a_user_then_groups_extras_and_uid_in_kube_order(void**) {
    authn::ImpersonationParse p = authn::parseImpersonation({
        {"impersonate-uid", "u-1"},
        {"Impersonate-Extra-Scopes", "a"},
        {"Impersonate-Group", "g1"},
        {"IMPERSONATE-USER", "alice"},
        {"Impersonate-User", "bob"},  // only the first counts, as Header.Get
        {"Impersonate-Extra-Example.com%2Fteam", "b"},
        {"Impersonate-Group", "g2"},
        {"Impersonate-Extra-Scopes", "c"},
    });
    assert_false(p.error.has_value());
    assert_int_equal(p.requests.size(), 7);
    assert_true(p.requests[0].kind == Kind::User);
    assert_string_equal(p.requests[0].name.c_str(), "alice");
    assert_true(p.requests[1].kind == Kind::Group);
    assert_string_equal(p.requests[2].name.c_str(), "g2");
    assert_true(p.requests[3].kind == Kind::UserExtra);
    assert_string_equal(p.requests[3].extraKey.c_str(), "scopes");
    assert_string_equal(p.requests[4].extraKey.c_str(), "example.com/team");
    assert_string_equal(p.requests[5].name.c_str(), "c");
    assert_true(p.requests[6].kind == Kind::Uid);

    authn::UserInfo u = authn::impersonatedUser(p.requests);
    assert_string_equal(u.name.c_str(), "alice");
    assert_string_equal(u.uid.c_str(), "u-1");
    assert_int_equal(u.groups.size(), 3);
    assert_string_equal(u.groups[2].c_str(), "system:authenticated");
    assert_int_equal(u.extra["scopes"].size(), 2);
    assert_string_equal(u.extra["example.com/team"][0].c_str(), "b");
}

void groups_without_a_user_is_kubes_internal_error(void**) {
    authn::ImpersonationParse p = authn::parseImpersonation(
        {{"Impersonate-Group", "g1"}, {"Impersonate-Extra-K", "v"}, {"Impersonate-Uid", "1"}});
    assert_true(p.requests.empty());
    assert_string_equal(p.error->c_str(),
                        "requested [{Group  g1    } {UserExtra  v  authentication.k8s.io/v1  k} "
                        "{UID  1  authentication.k8s.io/v1  }] without impersonating a user");
}

void a_bad_escape_keeps_the_key(void**) {
    authn::ImpersonationParse p =
        authn::parseImpersonation({{"Impersonate-User", "a"}, {"Impersonate-Extra-X%zz", "v"}});
    assert_string_equal(p.requests[1].extraKey.c_str(), "x%zz");
}

void service_accounts_are_namespaced_and_get_their_groups(void**) {
    authn::ImpersonationParse p =
        authn::parseImpersonation({{"Impersonate-User", "system:serviceaccount:ns1:robot"}});
    assert_true(p.requests[0].kind == Kind::ServiceAccount);
    kube::authz::Attributes a =
        authn::impersonationAttributes(authn::UserInfo{"me", "", {}, {}}, p.requests[0]);
    assert_string_equal(a.verb.c_str(), "impersonate");
    assert_string_equal(a.resource.c_str(), "serviceaccounts");
    assert_string_equal(a.namespace_.c_str(), "ns1");
    assert_string_equal(a.name.c_str(), "robot");
    assert_true(a.isResourceRequest);
    authn::UserInfo u = authn::impersonatedUser(p.requests);
    assert_string_equal(u.name.c_str(), "system:serviceaccount:ns1:robot");
    std::vector<std::string> want{"system:serviceaccounts", "system:serviceaccounts:ns1",
                                  "system:authenticated"};
    assert_true(u.groups == want);
    // Not an account name: a plain user.
    for (const char* name : {"system:serviceaccount:ns1", "system:serviceaccount::x",
                             "system:serviceaccount:a:b:c", "system:serviceaccount:a:"}) {
        assert_true(authn::parseImpersonation({{"Impersonate-User", name}}).requests[0].kind ==
                    Kind::User);
    }
}

void groups_asked_for_replace_the_accounts(void**) {
    std::vector<std::string> want{"g", "system:authenticated"};
    assert_true(groupsOf({{"Impersonate-User", "system:serviceaccount:a:b"},
                          {"Impersonate-Group", "g"}}) == want);
    want = {"system:unauthenticated"};
    assert_true(groupsOf({{"Impersonate-User", "x"},
                          {"Impersonate-Group", "system:unauthenticated"}}) == want);
    want = {"system:unauthenticated"};
    assert_true(groupsOf({{"Impersonate-User", "system:anonymous"}}) == want);
    want = {"system:authenticated", "system:unauthenticated"};
    assert_true(groupsOf({{"Impersonate-User", "system:anonymous"},
                          {"Impersonate-Group", "system:authenticated"}}) == want);
}

void each_part_names_its_resource(void**) {
    authn::ImpersonationParse p = authn::parseImpersonation({{"Impersonate-User", "u"},
                                                             {"Impersonate-Group", "g"},
                                                             {"Impersonate-Extra-Scopes", "s"},
                                                             {"Impersonate-Uid", "1"}});
    authn::UserInfo me{"me", "", {"system:authenticated"}, {}};
    const char* resources[] = {"users", "groups", "userextras", "uids"};
    const char* groups[] = {"", "", "authentication.k8s.io", "authentication.k8s.io"};
    for (size_t i = 0; i < 4; i++) {
        kube::authz::Attributes a = authn::impersonationAttributes(me, p.requests[i]);
        assert_string_equal(a.resource.c_str(), resources[i]);
        assert_string_equal(a.apiGroup.c_str(), groups[i]);
        assert_string_equal(a.user.name.c_str(), "me");
        assert_true(a.namespace_.empty());
    }
    assert_string_equal(authn::impersonationAttributes(me, p.requests[2]).subresource.c_str(),
                        "scopes");
    assert_true(authn::isImpersonationHeader("IMPERSONATE-EXTRA-x"));
    assert_false(authn::isImpersonationHeader("Impersonate"));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_headers_no_impersonation),
        cmocka_unit_test(a_user_then_groups_extras_and_uid_in_kube_order),
        cmocka_unit_test(groups_without_a_user_is_kubes_internal_error),
        cmocka_unit_test(a_bad_escape_keeps_the_key),
        cmocka_unit_test(service_accounts_are_namespaced_and_get_their_groups),
        cmocka_unit_test(groups_asked_for_replace_the_accounts),
        cmocka_unit_test(each_part_names_its_resource),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
