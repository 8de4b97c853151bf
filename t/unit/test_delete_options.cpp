#include <string>

#include "endpoints/delete_options.hpp"

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

using kube::endpoints::readDeleteOptions;
using kube::meta::Status;
using kube::registry::DeleteOptions;
using kube::util::Query;

namespace {

constexpr const char* kJson = "application/json";

std::optional<DeleteOptions> read(std::string_view body, std::string_view query = "",
                                  Status* error = nullptr, std::string_view type = kJson) {
    Status ignored;
    return readDeleteOptions(body, type, Query::parse(query), error ? error : &ignored);
}

// The failure of reading `body` (with `query`): code, reason and message.
void expectFailure(std::string_view body, std::string_view query, int code, const char* reason,
                   const std::string& message, std::string_view type = kJson) {
    Status s;
    if (read(body, query, &s, type)) {
        fail_msg("expected %d for %.*s", code, static_cast<int>(body.size()), body.data());
    }
    assert_int_equal(s.code, code);
    assert_string_equal(s.reason.c_str(), reason);
    assert_string_equal(s.message.c_str(), message.c_str());
}

void body_options_are_read(void**) {
    auto o = read(R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":30,)"
                  R"("preconditions":{"uid":"u-1","resourceVersion":"7"},)"
                  R"("propagationPolicy":"Foreground","dryRun":["All"]})");
    assert_true(o.has_value());
    assert_true(o->dryRun);
    assert_string_equal(o->uid->c_str(), "u-1");
    assert_string_equal(o->resourceVersion->c_str(), "7");
    assert_int_equal(*o->gracePeriodSeconds, 30);
    assert_string_equal(o->propagationPolicy->c_str(), "Foreground");
    assert_false(o->orphanDependents.has_value());
    // Empty preconditions are still preconditions: "" matches no object.
    o = read(R"({"preconditions":{"uid":""}})");
    assert_string_equal(o->uid->c_str(), "");
    // null leaves a field unset; a later key overrides an earlier one.
    o = read(R"({"preconditions":{"uid":"a"},"preconditions":null,"dryRun":["All"],"dryRun":[]})");
    assert_false(o->uid.has_value());
    assert_false(o->dryRun);
    assert_true(read("null").has_value());
}

void a_body_replaces_the_query(void**) {
    // As handlers/delete.go: with a body the query's options are not read.
    auto o = read("{}", "dryRun=All&gracePeriodSeconds=x");
    assert_true(o.has_value());
    assert_false(o->dryRun);
    o = read("", "dryRun=All&gracePeriodSeconds=5&orphanDependents=FALSE");
    assert_true(o->dryRun);
    assert_int_equal(*o->gracePeriodSeconds, 5);
    assert_false(*o->orphanDependents);
    // Only "0" and "false" in any case are false; anything else is true.
    assert_true(*read("", "orphanDependents=")->orphanDependents);
    assert_true(*read("", "orphanDependents=x")->orphanDependents);
    // The first of repeated values.
    assert_int_equal(*read("", "gracePeriodSeconds=1&gracePeriodSeconds=x")->gracePeriodSeconds, 1);
    assert_int_equal(*read("", "gracePeriodSeconds=-9223372036854775808")->gracePeriodSeconds,
                     INT64_MIN);
}

void query_integers_fail_as_strconv_does(void**) {
    expectFailure("", "gracePeriodSeconds=x", 400, "BadRequest",
                  "strconv.ParseInt: parsing \"x\": invalid syntax");
    expectFailure("", "gracePeriodSeconds=", 400, "BadRequest",
                  "strconv.ParseInt: parsing \"\": invalid syntax");
    expectFailure("", "gracePeriodSeconds=+5", 400, "BadRequest",
                  "strconv.ParseInt: parsing \" 5\": invalid syntax");
    expectFailure("", "gracePeriodSeconds=9223372036854775808", 400, "BadRequest",
                  "strconv.ParseInt: parsing \"9223372036854775808\": value out of range");
    expectFailure("", "gracePeriodSeconds=-99999999999999999999", 400, "BadRequest",
                  "strconv.ParseInt: parsing \"-99999999999999999999\": value out of range");
}

void options_are_validated(void**) {
    const std::string policies =
        "supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"";
    expectFailure(R"({"propagationPolicy":"Bad"})", "", 422, "Invalid",
                  "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported "
                  "value: \"Bad\": " +
                      policies);
    expectFailure(R"({"propagationPolicy":"Orphan","orphanDependents":false})", "", 422, "Invalid",
                  "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: "
                  "\"Orphan\": orphanDependents and deletionPropagation cannot be both set");
    expectFailure(R"({"dryRun":["All",null]})", "", 422, "Invalid",
                  "DeleteOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: "
                  "[]string{\"All\", \"\"}: supported values: \"All\"");
    expectFailure("", "dryRun=All&dryRun=x&propagationPolicy=", 422, "Invalid",
                  "DeleteOptions.meta.k8s.io \"\" is invalid: [propagationPolicy: Unsupported "
                  "value: \"\": " +
                      policies +
                      ", dryRun: Unsupported value: []string{\"All\", \"x\"}: supported "
                      "values: \"All\"]");
    Status s;
    read(R"({"propagationPolicy":"x","orphanDependents":true})", "", &s);
    assert_int_equal(s.details->causes.size(), 2);
    assert_string_equal(s.details->causes[0].reason.c_str(), "FieldValueInvalid");
    assert_string_equal(s.details->causes[1].reason.c_str(), "FieldValueNotSupported");
    assert_string_equal(s.details->causes[1].field.c_str(), "propagationPolicy");
}

void bodies_that_are_not_delete_options_fail_as_kube_does(void**) {
    // The decoder's error, as a 400 (kube 1.26 answers it as a 500 without a reason).
    expectFailure("{x", "", 400, "BadRequest",
                  "couldn't get version/kind; json parse error: invalid character 'x' looking "
                  "for beginning of object key string");
    expectFailure("[]", "", 400, "BadRequest",
                  "couldn't get version/kind; json parse error: json: cannot unmarshal array "
                  "into Go value of type struct { APIVersion string "
                  "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                  "\"json:\\\"kind,omitempty\\\"\" }");
    expectFailure(R"({"kind":5})", "", 400, "BadRequest",
                  "couldn't get version/kind; json parse error: json: cannot unmarshal number "
                  "into Go struct field .kind of type string");
    expectFailure(R"({"kind":"ConfigMap","apiVersion":"v1"})", "", 400, "BadRequest",
                  "no kind \"ConfigMap\" is registered for version \"v1\" in scheme "
                  "\"k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27\"");
    expectFailure(R"({"kind":"Foo"})", "", 400, "BadRequest",
                  "no kind \"Foo\" is registered for version \"meta.k8s.io/v1\" in scheme "
                  "\"k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27\"");
    expectFailure(R"({"kind":"ListOptions","apiVersion":"meta.k8s.io/v1"})", "", 400, "BadRequest",
                  "converting (v1.ListOptions) to (v1.DeleteOptions): unknown conversion");
    expectFailure(R"({"kind":"Status","apiVersion":"v1"})", "", 400, "BadRequest",
                  "converting (v1.Status) to (v1.DeleteOptions): unknown conversion");
    // DeleteOptions in any group version is taken.
    assert_true(read(R"({"kind":"DeleteOptions","apiVersion":"apps/v1"})").has_value());
    assert_true(read(R"({"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1"})").has_value());
}

void wrong_types_fail_with_go_messages(void**) {
    auto typeError = [](const char* body, const std::string& what) {
        expectFailure(body, "", 400, "BadRequest", "json: cannot unmarshal " + what);
    };
    typeError(R"({"gracePeriodSeconds":"x"})",
              "string into Go struct field DeleteOptions.gracePeriodSeconds of type int64");
    typeError(R"({"gracePeriodSeconds":1.5})",
              "number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64");
    typeError(R"({"preconditions":5})",
              "number into Go struct field DeleteOptions.preconditions of type v1.Preconditions");
    typeError(R"({"preconditions":{"uid":5}})",
              "number into Go struct field Preconditions.preconditions.uid of type types.UID");
    typeError(R"({"propagationPolicy":5})",
              "number into Go struct field DeleteOptions.propagationPolicy of type "
              "v1.DeletionPropagation");
    typeError(R"({"orphanDependents":"true"})",
              "string into Go struct field DeleteOptions.orphanDependents of type bool");
    typeError(R"({"dryRun":"All"})",
              "string into Go struct field DeleteOptions.dryRun of type []string");
    // The first wrong value in the document is the one reported.
    typeError(R"({"dryRun":[5],"orphanDependents":1})",
              "number into Go struct field DeleteOptions.dryRun of type string");
    // Names are matched exactly: "DryRun" is an unknown field, ignored.
    auto o = read(R"({"DryRun":["x"],"other":{}})");
    assert_true(o.has_value());
    assert_false(o->dryRun);
}

void yaml_and_protobuf_bodies_are_read(void**) {
    auto o = read("dryRun: [All]\npreconditions: {uid: u}\n", "", nullptr, "application/yaml");
    assert_true(o->dryRun);
    assert_string_equal(o->uid->c_str(), "u");
    expectFailure("dryRun: [All\n", "", 400, "BadRequest", "yaml: line 1: did not find expected ',' or ']'",
                  "application/yaml");
    // k8s\0 + Unknown{typeMeta{v1, DeleteOptions}, raw{preconditions{uid "x"}, dryRun "All"}}.
    const std::string pb(
        "k8s\0"
        "\x0a\x13\x0a\x02v1\x12\x0d"
        "DeleteOptions"
        "\x12\x0a\x12\x03\x0a\x01x\x2a\x03"
        "All",
        4 + 21 + 12);
    o = read(pb, "", nullptr, "application/vnd.kubernetes.protobuf");
    assert_true(o.has_value());
    assert_true(o->dryRun);
    assert_string_equal(o->uid->c_str(), "x");
    expectFailure("xx", "", 400, "BadRequest",
                  "provided data does not appear to be a protobuf message, expected prefix "
                  "[107 56 115 0]",
                  "application/vnd.kubernetes.protobuf");
    expectFailure("{}", "", 415, "UnsupportedMediaType",
                  "the body of the request was in an unknown format - accepted media types "
                  "include: application/json, application/yaml, "
                  "application/vnd.kubernetes.protobuf",
                  "text/plain");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(body_options_are_read),
        cmocka_unit_test(a_body_replaces_the_query),
        cmocka_unit_test(query_integers_fail_as_strconv_does),
        cmocka_unit_test(options_are_validated),
        cmocka_unit_test(bodies_that_are_not_delete_options_fail_as_kube_does),
        cmocka_unit_test(wrong_types_fail_with_go_messages),
        cmocka_unit_test(yaml_and_protobuf_bodies_are_read),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
