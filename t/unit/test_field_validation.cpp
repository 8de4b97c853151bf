// What a create or update body goes through before the store sees it: fields
// the kind lacks, keys written twice, values of the wrong type, and the
// fieldValidation directive, all with kube-apiserver's wording.
#include <string>
#include <string_view>
#include <vector>

#include "endpoints/field_validation.hpp"
#include "util/json.hpp"
#include "util/query.hpp"

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

#include "json_reading.hpp"

namespace json = kube::util::json;
using kube::endpoints::checkAgainstSchema;
using kube::endpoints::FieldValidation;
using kube::endpoints::SchemaCheck;

namespace {

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

SchemaCheck check(json::Document& d, std::string_view apiVersion, std::string_view kind) {
    return checkAgainstSchema(d, d.GetAllocator(), apiVersion, kind);
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) {
        out += (out.empty() ? "" : ", ") + s;
    }
    return out;
}

void unknown_fields_are_named_by_path_and_removed(void**) {
    json::Document d = parse(
        R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","bogus":1},)"
        R"("spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"extra":true,)"
        R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[)"
        R"({"name":"a","image":"nginx"},{"name":"b","image":"nginx","imagePullPolicyy":"x"}]}}}})");
    SchemaCheck c = check(d, "apps/v1", "Deployment");
    assert_true(c.checked);
    assert_false(c.typeError.has_value());
    assert_string_equal(joined(c.strictErrors).c_str(),
                        "unknown field \"metadata.bogus\", unknown field \"spec.extra\", "
                        "unknown field \"spec.template.spec.containers[1].imagePullPolicyy\"");
    assert_string_equal(
        json::serialize(d).c_str(),
        R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},)"
        R"("spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},)"
        R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[)"
        R"({"name":"a","image":"nginx"},{"name":"b","image":"nginx"}]}}}})");
}

void a_known_object_has_nothing_to_report(void**) {
    json::Document d = parse(
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"},)"
        R"("annotations":{"x":"y"},"managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}]},)"
        R"("data":{"k":"v"},"binaryData":{"b":"AAE="},"immutable":false})");
    std::string before = json::serialize(d);
    SchemaCheck c = check(d, "v1", "ConfigMap");
    assert_true(c.checked);
    assert_true(c.strictErrors.empty());
    assert_false(c.typeError.has_value());
    assert_string_equal(json::serialize(d).c_str(), before.c_str());
}

void a_repeated_key_is_reported_and_the_last_one_wins(void**) {
    json::Document d = parse(
        R"({"kind":"ConfigMap","metadata":{"name":"first","name":"second"},)"
        R"("data":{"k":"1","k":"2"}})");
    SchemaCheck c = check(d, "v1", "ConfigMap");
    assert_string_equal(joined(c.strictErrors).c_str(),
                        "duplicate field \"metadata.name\", duplicate field \"data.k\"");
    assert_string_equal(json::serialize(d).c_str(),
                        R"({"kind":"ConfigMap","metadata":{"name":"second"},"data":{"k":"2"}})");
}

void wrong_types_get_gos_message_with_the_struct_and_path(void**) {
    struct Case {
        const char* apiVersion;
        const char* kind;
        const char* body;
        const char* message;
    } cases[] = {
        {"apps/v1", "Deployment", R"({"spec":{"replicas":"3"}})",
         "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of "
         "type int32"},
        {"apps/v1", "Deployment", R"({"spec":{"replicas":1.5}})",
         "json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of "
         "type int32"},
        {"apps/v1", "Deployment",
         R"({"spec":{"template":{"spec":{"containers":[{"name":"a","ports":{"x":1}}]}}}})",
         "json: cannot unmarshal object into Go struct field "
         "Container.spec.template.spec.containers.ports of type []v1.ContainerPort"},
        {"v1", "Pod", R"({"spec":{"containers":[{"name":"a","args":["x",5]}]}})",
         "json: cannot unmarshal number into Go struct field Container.spec.containers.args of "
         "type string"},
        {"v1", "Pod", R"({"spec":{"containers":[{"name":"a","livenessProbe":[]}]}})",
         "json: cannot unmarshal array into Go struct field "
         "Container.spec.containers.livenessProbe of type v1.Probe"},
        {"v1", "ConfigMap", R"({"metadata":{"labels":{"a":1}}})",
         "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of "
         "type string"},
        {"v1", "ConfigMap", R"({"metadata":"x"})",
         "json: cannot unmarshal string into Go struct field ConfigMap.metadata of type "
         "v1.ObjectMeta"},
        {"v1", "ConfigMap", R"({"immutable":"yes"})",
         "json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool"},
        {"v1", "Secret", R"({"data":{"k":"not base64!"}})",
         "illegal base64 data at input byte 3"},
        {"v1", "Secret", R"({"data":{"k":"=AAA"}})", "illegal base64 data at input byte 0"},
        {"v1", "ResourceQuota", R"({"spec":{"hard":{"cpu":"lots"}}})",
         "quantities must match the regular expression "
         "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        {"v1", "Service", R"({"spec":{"ports":[{"port":80,"targetPort":true}]}})",
         "json: cannot unmarshal bool into Go value of type int32"},
        {"v1", "ConfigMap", R"({"metadata":{"creationTimestamp":"yesterday"}})",
         "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
         "\"yesterday\" as \"2006\""},
    };
    for (const Case& k : cases) {
        json::Document d = parse(k.body);
        SchemaCheck c = check(d, k.apiVersion, k.kind);
        assert_true(c.typeError.has_value());
        assert_string_equal(c.typeError->c_str(), k.message);
    }
}

void quantities_and_times_take_the_form_kube_stores(void**) {
    json::Document d = parse(
        R"({"metadata":{"creationTimestamp":"2026-01-02T03:04:05.678+02:00"},)"
        R"("spec":{"hard":{"cpu":2,"memory":"1Gi","pods":"1e3","storage":0.5,)"
        R"("requests.cpu":"1000m","limits.cpu":"1.5"}}})");
    SchemaCheck c = check(d, "v1", "ResourceQuota");
    assert_false(c.typeError.has_value());
    assert_string_equal(json::serialize(d).c_str(),
                        R"({"metadata":{"creationTimestamp":"2026-01-02T01:04:05Z"},)"
                        R"("spec":{"hard":{"cpu":"2","memory":"1Gi","pods":"1e3",)"
                        R"("storage":"500m","requests.cpu":"1","limits.cpu":"1500m"}}})");
}

void base64_may_break_lines_as_go_reads_it(void**) {
    json::Document d = parse(R"({"data":{"k":"aGVs\nbG8=\r\n"}})");
    SchemaCheck c = check(d, "v1", "Secret");
    assert_false(c.typeError.has_value());
}

void nulls_and_raw_json_pass_unchecked(void**) {
    json::Document d = parse(
        R"({"metadata":{"name":null,"labels":null,"managedFields":[{"fieldsV1":[1,"x"]}]},)"
        R"("data":null})");
    SchemaCheck c = check(d, "v1", "ConfigMap");
    assert_false(c.typeError.has_value());
    assert_true(c.strictErrors.empty());
}

void a_kind_without_a_schema_is_left_alone(void**) {
    json::Document d = parse(R"({"spec":{"anything":1}})");
    SchemaCheck c = check(d, "example.com/v1", "Widget");
    assert_false(c.checked);
    assert_true(c.strictErrors.empty());
    assert_string_equal(json::serialize(d).c_str(), R"({"spec":{"anything":1}})");
}

void the_directive_defaults_to_warn_and_refuses_unknown_values(void**) {
    kube::meta::Status err;
    auto q = kube::util::Query::parse("");
    assert_true(*kube::endpoints::parseFieldValidation(q, "CreateOptions", &err) ==
                FieldValidation::Warn);
    q = kube::util::Query::parse("fieldValidation=Strict");
    assert_true(*kube::endpoints::parseFieldValidation(q, "CreateOptions", &err) ==
                FieldValidation::Strict);
    q = kube::util::Query::parse("fieldValidation=Ignore");
    assert_true(*kube::endpoints::parseFieldValidation(q, "CreateOptions", &err) ==
                FieldValidation::Ignore);
    q = kube::util::Query::parse("fieldValidation=strict");
    assert_false(kube::endpoints::parseFieldValidation(q, "UpdateOptions", &err).has_value());
    assert_int_equal(err.code, 422);
    assert_string_equal(err.message.c_str(),
                        "UpdateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported "
                        "value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", "
                        "\"Warn\"");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unknown_fields_are_named_by_path_and_removed),
        cmocka_unit_test(a_known_object_has_nothing_to_report),
        cmocka_unit_test(a_repeated_key_is_reported_and_the_last_one_wins),
        cmocka_unit_test(wrong_types_get_gos_message_with_the_struct_and_path),
        cmocka_unit_test(quantities_and_times_take_the_form_kube_stores),
        cmocka_unit_test(base64_may_break_lines_as_go_reads_it),
        cmocka_unit_test(nulls_and_raw_json_pass_unchecked),
        cmocka_unit_test(a_kind_without_a_schema_is_left_alone),
        cmocka_unit_test(the_directive_defaults_to_warn_and_refuses_unknown_values),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
