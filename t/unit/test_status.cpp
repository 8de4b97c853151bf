#include <string>
#include <vector>

#include "apis/meta/status.hpp"

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

using kube::meta::GroupKind;
using kube::meta::GroupResource;
using kube::meta::Status;
using kube::meta::StatusCause;
using kube::meta::StatusDetails;

namespace {

const GroupResource kConfigMaps{"", "configmaps"};
const GroupResource kDeployments{"apps", "deployments"};

void expectJson(const Status& s, int code, const char* want) {
    assert_int_equal(s.code, code);
    assert_string_equal(s.toJson().c_str(), want);
}

void not_found_names_the_resource_and_fills_details(void**) {
    expectJson(Status::notFound(kConfigMaps, "nosuch"), 404,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"configmaps \"nosuch\" not found","reason":"NotFound",)J"
               R"J("details":{"name":"nosuch","kind":"configmaps"},"code":404})J");
    // A group qualifies the resource in the message and appears in details.
    expectJson(Status::notFound(kDeployments, "web"), 404,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"deployments.apps \"web\" not found","reason":"NotFound",)J"
               R"J("details":{"name":"web","group":"apps","kind":"deployments"},"code":404})J");
}

void already_exists_is_409_with_resource_details(void**) {
    expectJson(Status::alreadyExists(kConfigMaps, "a"), 409,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"configmaps \"a\" already exists","reason":"AlreadyExists",)J"
               R"J("details":{"name":"a","kind":"configmaps"},"code":409})J");
}

void optimistic_lock_conflict_has_kubes_exact_message(void**) {
    expectJson(Status::optimisticLockConflict(kConfigMaps, "a"), 409,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"Operation cannot be fulfilled on configmaps \"a\": the object has )J"
               R"J(been modified; please apply your changes to the latest version and try again",)J"
               R"J("reason":"Conflict","details":{"name":"a","kind":"configmaps"},"code":409})J");
    Status c = Status::conflict(kDeployments, "web", "Precondition failed: UID in precondition: x");
    assert_string_equal(c.message.c_str(),
                        "Operation cannot be fulfilled on deployments.apps \"web\": Precondition "
                        "failed: UID in precondition: x");
    assert_string_equal(c.reason.c_str(), "Conflict");
}

void invalid_with_one_cause_inlines_it_and_uses_the_kind(void**) {
    const char* detail =
        "Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower "
        "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    Status s = Status::invalid({"", "ConfigMap"}, "Bad_Name",
                               {{"FieldValueInvalid", detail, "metadata.name"}});
    assert_int_equal(s.code, 422);
    assert_string_equal(
        s.message.c_str(),
        (std::string("ConfigMap \"Bad_Name\" is invalid: metadata.name: ") + detail).c_str());
    // On the wire the regex backslash is doubled; details.kind is the Kind.
    std::string wire =
        R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
        R"J("message":"ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid )J"
        R"J(value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of )J"
        R"J(lower case alphanumeric characters, '-' or '.', and must start and end )J"
        R"J(with an alphanumeric character (e.g. 'example.com', regex used for )J"
        R"J(validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*)J"
        R"J([a-z0-9])?)*')","reason":"Invalid","details":{"name":"Bad_Name",)J"
        R"J("kind":"ConfigMap","causes":[{"reason":"FieldValueInvalid","message":)J"
        R"J("Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must )J"
        R"J(consist of lower case alphanumeric characters, '-' or '.', and must )J"
        R"J(start and end with an alphanumeric character (e.g. 'example.com', )J"
        R"J(regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.)J"
        R"J([a-z0-9]([-a-z0-9]*[a-z0-9])?)*')","field":"metadata.name"}]},)J"
        R"J("code":422})J";
    assert_string_equal(s.toJson().c_str(), wire.c_str());
}

void invalid_with_several_causes_lists_them_in_brackets(void**) {
    Status s = Status::invalid(
        {"apps", "Deployment"}, "web",
        {{"FieldValueRequired", "Required value", "spec.selector"},
         {"FieldValueInvalid", "Invalid value: 0: must be positive", "spec.replicas"}});
    assert_string_equal(s.message.c_str(),
                        "Deployment.apps \"web\" is invalid: [spec.selector: Required value, "
                        "spec.replicas: Invalid value: 0: must be positive]");
    assert_string_equal(
        s.toJson().c_str(),
        R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
        R"J("message":"Deployment.apps \"web\" is invalid: [spec.selector: Required value, )J"
        R"J(spec.replicas: Invalid value: 0: must be positive]","reason":"Invalid",)J"
        R"J("details":{"name":"web","group":"apps","kind":"Deployment","causes":[)J"
        R"J({"reason":"FieldValueRequired","message":"Required value","field":"spec.selector"},)J"
        R"J({"reason":"FieldValueInvalid","message":"Invalid value: 0: must be positive",)J"
        R"J("field":"spec.replicas"}]},"code":422})J");
    // No causes: the bare "is invalid".
    assert_string_equal(Status::invalid({"", "ConfigMap"}, "a", {}).message.c_str(),
                        "ConfigMap \"a\" is invalid");
}

void bad_request_unsupported_media_type_and_unauthorized_have_no_details(void**) {
    expectJson(Status::badRequest("the namespace of the provided object does not match the "
                                  "namespace sent on the request"),
               400,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"the namespace of the provided object does not match the namespace )J"
               R"J(sent on the request","reason":"BadRequest","code":400})J");
    expectJson(Status::unsupportedMediaType("the body of the request was in an unknown format"),
               415,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"the body of the request was in an unknown format",)J"
               R"J("reason":"UnsupportedMediaType","code":415})J");
    expectJson(Status::unauthorized(), 401,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"Unauthorized","reason":"Unauthorized","code":401})J");
}

void unauthorized_without_a_reason_says_not_authorized(void**) {
    // errors.NewUnauthorized("") falls back to "not authorized".
    Status s = Status::unauthorized("");
    assert_string_equal(s.message.c_str(), "not authorized");
}

void generic_not_found_method_not_allowed_and_not_acceptable_have_empty_details(void**) {
    expectJson(Status::notFoundGeneric(), 404,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"the server could not find the requested resource",)J"
               R"J("reason":"NotFound","details":{},"code":404})J");
    expectJson(Status::methodNotSupported(), 405,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"the server does not allow this method on the requested resource",)J"
               R"J("reason":"MethodNotAllowed","details":{},"code":405})J");
    expectJson(Status::notAcceptable("406: Not Acceptable\n\nAvailable representations: "
                                     "application/json"),
               406,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"406: Not Acceptable\n\nAvailable representations: )J"
               R"J(application/json","reason":"NotAcceptable","details":{},"code":406})J");
}

void forbidden_has_kubes_three_message_forms(void**) {
    // With a resource and no name: the anonymous list of spec §5.4.
    expectJson(Status::forbidden({"", "namespaces"}, "",
                                 "User \"system:anonymous\" cannot list resource \"namespaces\" "
                                 "in API group \"\" at the cluster scope"),
               403,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"namespaces is forbidden: User \"system:anonymous\" cannot list )J"
               R"J(resource \"namespaces\" in API group \"\" at the cluster scope",)J"
               R"J("reason":"Forbidden","details":{"kind":"namespaces"},"code":403})J");
    // With a name: quoted after the resource.
    expectJson(Status::forbidden(kConfigMaps, "late",
                                 "unable to create new content in namespace raw because it is "
                                 "being terminated"),
               403,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"configmaps \"late\" is forbidden: unable to create new content in )J"
               R"J(namespace raw because it is being terminated","reason":"Forbidden",)J"
               R"J("details":{"name":"late","kind":"configmaps"},"code":403})J");
    // No resource at all: a bare "forbidden: ".
    expectJson(Status::forbidden({}, "", "User \"bob\" cannot get path \"/metrics\""), 403,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"forbidden: User \"bob\" cannot get path \"/metrics\"",)J"
               R"J("reason":"Forbidden","details":{},"code":403})J");
}

void success_status_carries_delete_details_and_no_code(void**) {
    StatusDetails d;
    d.name = "web";
    d.group = "apps";
    d.kind = "deployments";
    d.uid = "6f1d7a8c-0000-4000-8000-000000000001";
    Status s = Status::successful(d);
    assert_int_equal(s.code, 200);
    assert_true(s.success);
    assert_string_equal(s.toJson().c_str(),
                        R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",)J"
                        R"J("details":{"name":"web","group":"apps","kind":"deployments",)J"
                        R"J("uid":"6f1d7a8c-0000-4000-8000-000000000001"}})J");
}

void too_many_requests_carries_retry_after_in_details(void**) {
    expectJson(Status::tooManyRequests("Too many requests, please try again later.", 3), 429,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"Too many requests, please try again later.",)J"
               R"J("reason":"TooManyRequests","details":{"retryAfterSeconds":3},"code":429})J");
    // A zero retry keeps the (then empty) details, as NewTooManyRequests does.
    assert_string_equal(Status::tooManyRequests("x", 0).toJson().c_str(),
                        R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
                        R"J("message":"x","reason":"TooManyRequests","details":{},"code":429})J");
}

void expired_and_service_unavailable_have_no_details(void**) {
    expectJson(Status::expired("too old resource version: 1 (252)"), 410,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"too old resource version: 1 (252)","reason":"Expired",)J"
               R"J("code":410})J");
    expectJson(Status::serviceUnavailable("storage is unavailable"), 503,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"storage is unavailable","reason":"ServiceUnavailable",)J"
               R"J("code":503})J");
    Status big = Status::requestEntityTooLarge("Request entity too large: limit is 3145728");
    assert_int_equal(big.code, 413);
    assert_string_equal(big.reason.c_str(), "RequestEntityTooLarge");
    assert_false(big.details.has_value());
}

void internal_error_has_one_cause_with_only_the_message(void**) {
    // errors.NewInternalError: the cause has a message and no reason (type).
    expectJson(Status::internalError("boom"), 500,
               R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
               R"J("message":"Internal error occurred: boom","reason":"InternalError",)J"
               R"J("details":{"causes":[{"message":"boom"}]},"code":500})J");
}

void pretty_form_is_indented_by_two_spaces_in_the_same_order(void**) {
    std::string want =
        "{\n"
        "  \"kind\": \"Status\",\n"
        "  \"apiVersion\": \"v1\",\n"
        "  \"metadata\": {},\n"
        "  \"status\": \"Failure\",\n"
        "  \"message\": \"configmaps \\\"a\\\" not found\",\n"
        "  \"reason\": \"NotFound\",\n"
        "  \"details\": {\n"
        "    \"name\": \"a\",\n"
        "    \"kind\": \"configmaps\"\n"
        "  },\n"
        "  \"code\": 404\n"
        "}";
    assert_string_equal(Status::notFound(kConfigMaps, "a").toJson(true).c_str(), want.c_str());
    std::string generic = Status::notFoundGeneric().toJson(true);
    assert_true(generic.find("\n  \"details\": {},\n") != std::string::npos);
}

void invalid_utf8_from_the_client_is_written_as_replacement_characters(void**) {
    // Names and messages echo paths and query values, which may be any bytes.
    Status s = Status::notFound(kConfigMaps,
                                "a\xff"
                                "b");
    s.details->causes.push_back({"FieldValueInvalid", "bad \xc3(", "metadata.name\xed\xa0\x80"});
    std::string got = s.toJson();
    assert_string_equal(
        got.c_str(),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
        "\"message\":\"configmaps \\\"a\xef\xbf\xbd"
        "b\\\" not found\",\"reason\":\"NotFound\","
        "\"details\":{\"name\":\"a\xef\xbf\xbd"
        "b\",\"kind\":\"configmaps\",\"causes\":"
        "[{\"reason\":\"FieldValueInvalid\",\"message\":\"bad \xef\xbf\xbd(\",\"field\":"
        "\"metadata.name\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"}]},\"code\":404}");
    assert_string_equal(Status::badRequest("q=\x80").toJson().c_str(),
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                        "\"status\":\"Failure\",\"message\":\"q=\xef\xbf\xbd\","
                        "\"reason\":\"BadRequest\",\"code\":400}");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(not_found_names_the_resource_and_fills_details),
        cmocka_unit_test(already_exists_is_409_with_resource_details),
        cmocka_unit_test(optimistic_lock_conflict_has_kubes_exact_message),
        cmocka_unit_test(invalid_with_one_cause_inlines_it_and_uses_the_kind),
        cmocka_unit_test(invalid_with_several_causes_lists_them_in_brackets),
        cmocka_unit_test(bad_request_unsupported_media_type_and_unauthorized_have_no_details),
        cmocka_unit_test(unauthorized_without_a_reason_says_not_authorized),
        cmocka_unit_test(
            generic_not_found_method_not_allowed_and_not_acceptable_have_empty_details),
        cmocka_unit_test(forbidden_has_kubes_three_message_forms),
        cmocka_unit_test(success_status_carries_delete_details_and_no_code),
        cmocka_unit_test(too_many_requests_carries_retry_after_in_details),
        cmocka_unit_test(expired_and_service_unavailable_have_no_details),
        cmocka_unit_test(internal_error_has_one_cause_with_only_the_message),
        cmocka_unit_test(pretty_form_is_indented_by_two_spaces_in_the_same_order),
        cmocka_unit_test(invalid_utf8_from_the_client_is_written_as_replacement_characters),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
