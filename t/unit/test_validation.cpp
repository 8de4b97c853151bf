#include <string>
#include <vector>

#include "registry/validation.hpp"
#include "util/json.hpp"

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

namespace json = kube::util::json;
namespace v = kube::registry::validation;
using kube::meta::StatusCause;
using kube::registry::NameRule;

namespace {

const char* kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

std::vector<StatusCause> validate(const char* metadataJson, bool namespaced = true,
                                  NameRule rule = NameRule::DNS1123Subdomain) {
    json::Document doc;
    assert_false(json::parse(metadataJson, doc).has_value());
    return v::validateObjectMeta(doc, namespaced, rule);
}

void assertCause(const StatusCause& c, const char* reason, const char* field, const char* message) {
    assert_string_equal(c.reason.c_str(), reason);
    assert_string_equal(c.field.c_str(), field);
    assert_string_equal(c.message.c_str(), message);
}

void bad_name_gives_the_exact_kube_cause(void** /*state*/) {
    // spec/kube-api-wire.md §5.4, ConfigMap "Bad_Name".
    auto errs = validate(R"({"name":"Bad_Name","namespace":"wire"})");
    assert_int_equal(errs.size(), 1);
    std::string want = std::string("Invalid value: \"Bad_Name\": ") + kSubdomainMsg;
    assertCause(errs[0], "FieldValueInvalid", "metadata.name", want.c_str());
}

void missing_name_is_required(void** /*state*/) {
    auto errs = validate(R"({"namespace":"wire"})");
    assert_int_equal(errs.size(), 1);
    assertCause(errs[0], "FieldValueRequired", "metadata.name",
                "Required value: name or generateName is required");
    errs = validate("null", false);
    assert_int_equal(errs.size(), 1);
    assert_string_equal(errs[0].field.c_str(), "metadata.name");
}

void valid_metadata_has_no_errors(void** /*state*/) {
    auto errs = validate(R"({"name":"web-1.example","namespace":"default",
        "labels":{"app":"web","example.com/tier":"","k8s.io/x_Y.z":"A-b_c.9"},
        "annotations":{"Example.COM/Note":"anything at all"},"generation":3,
        "finalizers":["example.com/cleanup"],
        "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs",
                            "uid":"u1","controller":true}]})");
    assert_int_equal(errs.size(), 0);
}

void generate_name_may_end_in_a_dash(void** /*state*/) {
    assert_int_equal(
        validate(R"({"generateName":"web-","name":"web-x1z2q","namespace":"n"})").size(), 0);
    // The mask replaces the last two characters, so "a.-" is checked as "aa".
    assert_int_equal(validate(R"({"generateName":"a.-","name":"a","namespace":"n"})").size(), 0);
    auto errs = validate(R"({"generateName":"Web-","name":"x","namespace":"n"})");
    assert_int_equal(errs.size(), 1);
    assert_string_equal(errs[0].field.c_str(), "metadata.generateName");
    assert_true(errs[0].message.starts_with("Invalid value: \"Web-\": a lowercase RFC 1123"));
}

void namespace_is_required_or_forbidden_by_scope(void** /*state*/) {
    auto errs = validate(R"({"name":"a"})", true);
    assert_int_equal(errs.size(), 1);
    assertCause(errs[0], "FieldValueRequired", "metadata.namespace", "Required value");

    errs = validate(R"({"name":"a","namespace":"n"})", false);
    assert_int_equal(errs.size(), 1);
    assertCause(errs[0], "FieldValueForbidden", "metadata.namespace",
                "Forbidden: not allowed on this type");

    errs = validate(R"({"name":"a","namespace":"a.b"})", true);
    assert_int_equal(errs.size(), 1);
    assertCause(errs[0], "FieldValueInvalid", "metadata.namespace",
                "Invalid value: \"a.b\": must not contain dots");
}

void name_rules_follow_the_kind(void** /*state*/) {
    auto errs = validate(R"({"name":"1abc"})", false, NameRule::DNS1035Label);
    assert_int_equal(errs.size(), 1);
    assert_string_equal(
        errs[0].message.c_str(),
        "Invalid value: \"1abc\": a DNS-1035 label must consist of lower case alphanumeric "
        "characters or '-', start with an alphabetic character, and end with an alphanumeric "
        "character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')");
}

void path_segment_names_reject_slash_and_percent(void** /*state*/) {
    auto errs = validate(R"({"name":"system:a/b%c"})", false, NameRule::PathSegment);
    assert_int_equal(errs.size(), 2);
    assert_string_equal(errs[0].message.c_str(),
                        "Invalid value: \"system:a/b%c\": may not contain '/'");
    assert_string_equal(errs[1].message.c_str(),
                        "Invalid value: \"system:a/b%c\": may not contain '%'");
    errs = validate(R"({"name":".."})", false, NameRule::PathSegment);
    assert_int_equal(errs.size(), 1);
    assert_string_equal(errs[0].message.c_str(), "Invalid value: \"..\": may not be '..'");
    assert_int_equal(validate(R"({"name":"Upper:Case"})", false, NameRule::PathSegment).size(), 0);
}

void label_keys_and_values_are_checked(void** /*state*/) {
    auto errs = validate(R"({"name":"a","namespace":"n","labels":{"bad key":"ok","k":"-bad"}})");
    assert_int_equal(errs.size(), 2);
    assertCause(errs[0], "FieldValueInvalid", "metadata.labels",
                "Invalid value: \"bad key\": name part must consist of alphanumeric characters, "
                "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
                "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
    assertCause(errs[1], "FieldValueInvalid", "metadata.labels",
                "Invalid value: \"-bad\": a valid label must be an empty string or consist of "
                "alphanumeric characters, '-', '_' or '.', and must start and end with an "
                "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
                "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
}

void qualified_name_prefix_errors_are_prefixed(void** /*state*/) {
    auto msgs = v::isQualifiedName("/name");
    assert_int_equal(msgs.size(), 1);
    assert_string_equal(msgs[0].c_str(), "prefix part must be non-empty");
    msgs = v::isQualifiedName("Example.com/name");
    assert_int_equal(msgs.size(), 1);
    assert_true(msgs[0].starts_with("prefix part a lowercase RFC 1123 subdomain"));
    msgs = v::isQualifiedName("a/b/c");
    assert_int_equal(msgs.size(), 1);
    assert_true(msgs[0].starts_with("a qualified name must consist of"));
    assert_true(
        msgs[0].ends_with(" with an optional DNS subdomain prefix and '/' (e.g. "
                          "'example.com/MyName')"));
    msgs = v::isQualifiedName("p/");
    assert_int_equal(msgs.size(), 2);
    assert_string_equal(msgs[0].c_str(), "name part must be non-empty");
    msgs = v::isQualifiedName(std::string(64, 'a'));
    assert_int_equal(msgs.size(), 1);
    assert_string_equal(msgs[0].c_str(), "name part must be no more than 63 characters");
}

void annotation_keys_ignore_case_and_total_size_is_limited(void** /*state*/) {
    std::string big(v::kTotalAnnotationSizeLimit, 'x');
    std::string meta = R"({"name":"a","namespace":"n","annotations":{"A":")" + big + R"("}})";
    auto errs = validate(meta.c_str());
    assert_int_equal(errs.size(), 1);
    assertCause(errs[0], "FieldValueTooLong", "metadata.annotations",
                "Too long: must have at most 262144 bytes");
    errs = validate(R"({"name":"a","namespace":"n","annotations":{"a b":"x"}})");
    assert_int_equal(errs.size(), 1);
    assert_true(errs[0].message.starts_with("Invalid value: \"a b\": name part must consist"));
}

void wrong_json_types_are_reported_at_their_path(void** /*state*/) {
    auto errs = validate(R"({"name":5,"namespace":"n","labels":{"a":1},"annotations":"x"})");
    assert_int_equal(errs.size(), 3);
    assertCause(errs[0], "FieldValueTypeInvalid", "metadata.name",
                "Invalid value: 5: must be a string");
    assertCause(errs[1], "FieldValueTypeInvalid", "metadata.labels[a]",
                "Invalid value: 1: must be a string");
    assertCause(errs[2], "FieldValueTypeInvalid", "metadata.annotations",
                "Invalid value: \"x\": must be an object");
    errs = validate(R"("text")");
    assert_int_equal(errs.size(), 1);
    assertCause(errs[0], "FieldValueTypeInvalid", "metadata",
                "Invalid value: \"text\": must be an object");
    // null labels and label values are Go's zero values, not errors.
    assert_int_equal(validate(R"({"name":"a","namespace":"n","labels":{"a":null}})").size(), 0);
}

void negative_generation_is_invalid(void** /*state*/) {
    auto errs = validate(R"({"name":"a","namespace":"n","generation":-1})");
    assert_int_equal(errs.size(), 1);
    assertCause(errs[0], "FieldValueInvalid", "metadata.generation",
                "Invalid value: -1: must be greater than or equal to 0");
}

void owner_references_need_version_kind_name_and_uid(void** /*state*/) {
    auto errs =
        validate(R"({"name":"a","namespace":"n","ownerReferences":[{"apiVersion":"apps/"}]})");
    assert_int_equal(errs.size(), 4);
    assertCause(errs[0], "FieldValueInvalid", "metadata.ownerReferences.apiVersion",
                "Invalid value: \"apps/\": version must not be empty");
    assertCause(errs[1], "FieldValueInvalid", "metadata.ownerReferences.kind",
                "Invalid value: \"\": must not be empty");
    errs = validate(R"({"name":"a","namespace":"n","ownerReferences":[
        {"apiVersion":"v1","kind":"Event","name":"e","uid":"1"},
        {"apiVersion":"v1","kind":"Pod","name":"p","uid":"2","controller":true},
        {"apiVersion":"v1","kind":"Pod","name":"q","uid":"3","controller":true}]})");
    assert_int_equal(errs.size(), 2);
    assert_true(errs[0].message.ends_with(": /v1, Kind=Event is disallowed from being an owner"));
    assert_true(errs[1].message.ends_with(
        ": Only one reference can have Controller set to true. Found \"true\" in references for "
        "Pod/p and Pod/q"));
}

void conflicting_finalizers_are_invalid(void** /*state*/) {
    auto errs =
        validate(R"({"name":"a","namespace":"n","finalizers":["orphan","foregroundDeletion"]})");
    assert_int_equal(errs.size(), 1);
    assertCause(errs[0], "FieldValueInvalid", "metadata.finalizers",
                "Invalid value: []string{\"orphan\", \"foregroundDeletion\"}: finalizer orphan "
                "and foregroundDeletion cannot be both set");
}

void format_checks_match_go(void** /*state*/) {
    assert_int_equal(v::isDNS1123Subdomain("a.b-c.d").size(), 0);
    assert_int_equal(v::isDNS1123Subdomain("a..b").size(), 1);
    assert_int_equal(v::isDNS1123Subdomain("").size(), 1);
    auto long_ = v::isDNS1123Subdomain(std::string(254, 'a'));
    assert_int_equal(long_.size(), 1);
    assert_string_equal(long_[0].c_str(), "must be no more than 253 characters");
    auto label = v::isDNS1123Label("-a");
    assert_int_equal(label.size(), 1);
    assert_string_equal(label[0].c_str(),
                        "a lowercase RFC 1123 label must consist of lower case alphanumeric "
                        "characters or '-', and must start and end with an alphanumeric character "
                        "(e.g. 'my-name',  or '123-abc', regex used for validation is "
                        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    assert_int_equal(v::isDNS1035Label("").size(), 1);
    assert_int_equal(v::isValidLabelValue("").size(), 0);
    assert_int_equal(v::isConfigMapKey("key.name").size(), 0);
    auto dots = v::isConfigMapKey("..a");
    assert_int_equal(dots.size(), 1);
    assert_string_equal(dots[0].c_str(), "must not start with '..'");
    auto bad = v::isConfigMapKey("a/b");
    assert_int_equal(bad.size(), 1);
    assert_string_equal(bad[0].c_str(),
                        "a valid config key must consist of alphanumeric characters, '-', '_' or "
                        "'.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for "
                        "validation is '[-._a-zA-Z0-9]+')");
}

void field_errors_print_values_like_go(void** /*state*/) {
    assert_string_equal(v::field::invalid("f", 42, "d").message.c_str(), "Invalid value: 42: d");
    assert_string_equal(v::field::invalid("f", true, "").message.c_str(), "Invalid value: true");
    assert_string_equal(v::field::invalid("f", 0.5, "d").message.c_str(), "Invalid value: 0.5: d");
    assert_string_equal(v::field::invalid("f", 1e21, "d").message.c_str(),
                        "Invalid value: 1e+21: d");
    assert_string_equal(v::field::invalid("f", 1e6, "d").message.c_str(),
                        "Invalid value: 1e+06: d");
    assert_string_equal(v::field::invalid("f", 123456.5, "d").message.c_str(),
                        "Invalid value: 123456.5: d");
    assert_string_equal(v::field::invalid("f", 0.00001, "d").message.c_str(),
                        "Invalid value: 1e-05: d");
    assert_string_equal(v::field::invalid("f", "a\"b\n\x01\xff", "d").message.c_str(),
                        "Invalid value: \"a\\\"b\\n\\x01\\xff\": d");
    assert_string_equal(v::field::invalid("f", "caf\xc3\xa9", "d").message.c_str(),
                        "Invalid value: \"caf\xc3\xa9\": d");
    assert_string_equal(v::field::invalid("f", v::BadValue::null(), "d").message.c_str(),
                        "Invalid value: null: d");
    assertCause(v::field::notSupported("spec.type", "X", {"A", "B"}), "FieldValueNotSupported",
                "spec.type", "Unsupported value: \"X\": supported values: \"A\", \"B\"");
    assertCause(v::field::duplicate("spec.ports[1]", "p"), "FieldValueDuplicate", "spec.ports[1]",
                "Duplicate value: \"p\"");
    assertCause(v::field::forbidden("spec", ""), "FieldValueForbidden", "spec", "Forbidden");
    assertCause(v::field::tooMany("items", 5, 3), "FieldValueTooMany", "items",
                "Too many: 5: must have at most 3 items");
    assertCause(v::field::internalError("x", "boom"), "InternalError", "x", "Internal error: boom");
    assert_string_equal(v::field::index(v::field::child("spec", "ports"), 2).c_str(),
                        "spec.ports[2]");
    assert_string_equal(v::field::key("metadata.labels", "app").c_str(), "metadata.labels[app]");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_name_gives_the_exact_kube_cause),
        cmocka_unit_test(missing_name_is_required),
        cmocka_unit_test(valid_metadata_has_no_errors),
        cmocka_unit_test(generate_name_may_end_in_a_dash),
        cmocka_unit_test(namespace_is_required_or_forbidden_by_scope),
        cmocka_unit_test(name_rules_follow_the_kind),
        cmocka_unit_test(path_segment_names_reject_slash_and_percent),
        cmocka_unit_test(label_keys_and_values_are_checked),
        cmocka_unit_test(qualified_name_prefix_errors_are_prefixed),
        cmocka_unit_test(annotation_keys_ignore_case_and_total_size_is_limited),
        cmocka_unit_test(wrong_json_types_are_reported_at_their_path),
        cmocka_unit_test(negative_generation_is_invalid),
        cmocka_unit_test(owner_references_need_version_kind_name_and_uid),
        cmocka_unit_test(conflicting_finalizers_are_invalid),
        cmocka_unit_test(format_checks_match_go),
        cmocka_unit_test(field_errors_print_values_like_go),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
