#include <string>
#include <vector>

#include "authn/authentication.hpp"
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

namespace {

authn::AuthResult lookup(const authn::TokenFile& f, std::string_view token) {
    authn::AuthResult out;
    f.authenticateToken(token, {}, [&](authn::AuthResult&& r) { out = std::move(r); });
    return out;
}

void token_file_reads_users_groups_and_ignores_extra_columns(void**) {
    std::string error;
    auto f = authn::TokenFile::parse(
        "t1,alice,uid-a,\"dev,ops\",ignored\n"
        "\n"
        "t2,bob,uid-b\r\n"
        "t3,carol,uid-c,\n",
        "/x/tokens.csv", &error);
    assert_non_null(f.get());
    assert_int_equal(f->size(), 3);
    auto a = lookup(*f, "t1");
    assert_true(a.ok());
    assert_string_equal(a.user.name.c_str(), "alice");
    assert_string_equal(a.user.uid.c_str(), "uid-a");
    assert_int_equal(a.user.groups.size(), 2);
    assert_string_equal(a.user.groups[1].c_str(), "ops");
    auto b = lookup(*f, "t2");
    assert_true(b.ok());
    assert_true(b.user.groups.empty());
    // kube keeps strings.Split's one empty group for an empty 4th column
    assert_int_equal(lookup(*f, "t3").user.groups.size(), 1);
    assert_true(lookup(*f, "nope").outcome == authn::AuthResult::Outcome::NotMine);
    assert_true(lookup(*f, "").outcome == authn::AuthResult::Outcome::NotMine);
}

void token_file_errors_name_file_and_line(void**) {
    std::string error;
    auto f = authn::TokenFile::parse("t1,alice,uid\nt2,bob\n", "/x/tokens.csv", &error);
    assert_null(f.get());
    assert_string_equal(error.c_str(),
                        "token file '/x/tokens.csv' must have at least 3 columns (token, user "
                        "name, user uid), found 2 on line 2");
    error.clear();
    f = authn::TokenFile::parse("t1,al\"ice,uid\n", "/x/tokens.csv", &error);
    assert_null(f.get());
    assert_string_equal(error.c_str(), "parse error on line 1, column 6: bare \" in non-quoted-field");
    error.clear();
    f = authn::TokenFile::parse("t1,alice,uid,\"a,b\n", "/x/tokens.csv", &error);
    assert_null(f.get());
    assert_true(error.find("extraneous or missing \" in quoted-field") != std::string::npos);
}

void token_file_skips_empty_tokens_and_last_duplicate_wins(void**) {
    std::string error;
    std::vector<std::string> warnings;
    auto f = authn::TokenFile::parse(",nobody,u0\nt,first,u1\nt,second,u2\n", "/f", &error,
                                     &warnings);
    assert_non_null(f.get());
    assert_int_equal(warnings.size(), 2);
    assert_string_equal(lookup(*f, "t").user.name.c_str(), "second");
}

void missing_token_file_is_an_error(void**) {
    std::string error;
    assert_null(authn::TokenFile::load("/nonexistent/tokens.csv", &error).get());
    assert_true(error.find("/nonexistent/tokens.csv") != std::string::npos);
}

void bearer_header_is_read_as_kube_reads_it(void**) {
    assert_true(authn::bearerToken("Bearer abc") == std::string_view("abc"));
    assert_true(authn::bearerToken("bEaReR   abc  ") == std::string_view("abc"));
    assert_false(authn::bearerToken("Basic abc").has_value());
    assert_false(authn::bearerToken("Bearer").has_value());
    assert_false(authn::bearerToken("Bearer ").has_value());
    assert_false(authn::bearerToken("").has_value());
}

void authenticated_group_is_added_once(void**) {
    authn::UserInfo u{"a", "", {"x"}, {}};
    authn::addAuthenticatedGroup(u);
    authn::addAuthenticatedGroup(u);
    assert_int_equal(u.groups.size(), 2);
    assert_string_equal(u.groups[1].c_str(), "system:authenticated");
    authn::UserInfo anon = authn::anonymousUser();
    authn::addAuthenticatedGroup(anon);
    assert_int_equal(anon.groups.size(), 1);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(token_file_reads_users_groups_and_ignores_extra_columns),
        cmocka_unit_test(token_file_errors_name_file_and_line),
        cmocka_unit_test(token_file_skips_empty_tokens_and_last_duplicate_wins),
        cmocka_unit_test(missing_token_file_is_an_error),
        cmocka_unit_test(bearer_header_is_read_as_kube_reads_it),
        cmocka_unit_test(authenticated_group_is_added_once),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
