#include <map>
#include <string>
#include <vector>

#include "registry/scheme.hpp"
#include "registry/store.hpp"
#include "util/field_selector.hpp"
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

using kube::util::FieldSelector;
namespace json = kube::util::json;
namespace registry = kube::registry;

namespace {

using Fields = std::map<std::string, std::string>;

FieldSelector mustParse(const char* text) {
    std::string err;
    auto sel = FieldSelector::parse(text, &err);
    if (!sel) {
        print_error("parse(%s) failed: %s\n", text, err.c_str());
    }
    assert_true(sel.has_value());
    return *sel;
}

std::string parseError(const char* text) {
    std::string err;
    assert_false(FieldSelector::parse(text, &err).has_value());
    return err;
}

bool matches(const FieldSelector& sel, const Fields& f) {
    return sel.matches([&f](std::string_view k) {
        auto it = f.find(std::string(k));
        return it == f.end() ? std::string() : it->second;
    });
}

// fields.TestSelectorParse and TestEscapedValues.
void operators_and_escapes_parse_as_kube(void**) {
    FieldSelector s = mustParse("b!=x,a==y,c=z");
    const auto& r = s.requirements();
    assert_int_equal(r.size(), 3);
    assert_string_equal(r[0].field.c_str(), "a");  // terms are sorted
    assert_false(r[0].notEquals);
    assert_string_equal(r[0].value.c_str(), "y");
    assert_true(r[1].notEquals);
    assert_string_equal(r[2].value.c_str(), "z");
    assert_string_equal(mustParse("a=x\\,y\\=z\\\\").requirements()[0].value.c_str(), "x,y=z\\");
    assert_string_equal(mustParse("a=").requirements()[0].value.c_str(), "");
    assert_true(mustParse("").empty());
    assert_int_equal(mustParse("a=b,,c=d").requirements().size(), 2);
    assert_string_equal(mustParse("a=!b").requirements()[0].value.c_str(), "!b");
}

void bad_selectors_get_kube_messages(void**) {
    assert_string_equal(parseError("foo").c_str(),
                        "invalid selector: 'foo'; can't understand 'foo'");
    assert_string_equal(parseError("a=b,foo").c_str(),
                        "invalid selector: 'a=b,foo'; can't understand 'foo'");
    assert_string_equal(parseError("a=b=c").c_str(),
                        "invalid field selector: unescaped character in value: 61");
    assert_string_equal(parseError("a=b\\x").c_str(),
                        "invalid field selector: invalid escape sequence: \\x");
    assert_string_equal(parseError("a=b\\").c_str(),
                        "invalid field selector: invalid escape sequence: \\");
}

void terms_match_field_values(void**) {
    Fields f = {{"metadata.name", "a,b"}, {"status.phase", "Running"}};
    assert_true(matches(mustParse("metadata.name=a\\,b"), f));
    assert_true(matches(mustParse("status.phase!=Pending,metadata.name==a\\,b"), f));
    assert_false(matches(mustParse("status.phase=Pending"), f));
    assert_false(matches(mustParse("status.phase!=Running"), f));
    assert_true(matches(mustParse("spec.nodeName="), f));  // unset fields are ""
    assert_true(matches(mustParse(""), f));
}

void exact_match_reports_only_equality_terms(void**) {
    FieldSelector s = mustParse("a=b,metadata.name==n2");
    assert_string_equal(s.requiresExactMatch("metadata.name")->c_str(), "n2");
    assert_false(mustParse("metadata.name!=x").requiresExactMatch("metadata.name").has_value());
    assert_false(mustParse("a=b").requiresExactMatch("metadata.name").has_value());
}

const registry::KindInfo& kind(registry::Scheme& s, const char* group, const char* version,
                               const char* resource) {
    const registry::KindInfo* k = s.find(group, version, resource);
    assert_non_null(k);
    return *k;
}

std::string selectorError(const registry::KindInfo& k, const char* labels, const char* fields) {
    registry::ListOptions opts;
    kube::meta::Status err;
    assert_false(registry::parseSelectors(k, labels, fields, opts, &err));
    assert_int_equal(err.code, 400);
    return err.message;
}

void unsupported_fields_are_rejected_per_kind(void**) {
    registry::Scheme s;
    registry::addBuiltinKinds(s);
    const auto& cm = kind(s, "", "v1", "configmaps");
    const auto& pods = kind(s, "", "v1", "pods");
    const auto& ns = kind(s, "", "v1", "namespaces");
    const auto& jobs = kind(s, "batch", "v1", "jobs");
    assert_string_equal(selectorError(cm, "", "spec.bogus=1").c_str(),
                        "\"spec.bogus\" is not a known field selector: only \"metadata.name\", "
                        "\"metadata.namespace\"");
    assert_string_equal(selectorError(pods, "", "spec.bogus=1").c_str(),
                        "field label not supported: spec.bogus");
    assert_string_equal(selectorError(ns, "", "metadata.namespace=x").c_str(),
                        "field label not supported: metadata.namespace");
    // The label selector is decoded first, as in kube's ListOptions conversion.
    assert_string_equal(selectorError(pods, "a in b", "spec.bogus=1").c_str(),
                        "unable to parse requirement: found 'b' expected: '('");
    registry::ListOptions opts;
    kube::meta::Status err;
    assert_true(registry::parseSelectors(pods, "app", "status.phase=Running,spec.host=n1", opts,
                                         &err));
    assert_true(registry::parseSelectors(jobs, "", "status.successful=1", opts, &err));
    assert_true(registry::parseSelectors(cm, "", "metadata.namespace=x", opts, &err));
    assert_int_equal(opts.fieldSelector.requirements().size(), 1);
}

void field_values_come_from_the_object_with_kube_defaults(void**) {
    registry::Scheme s;
    registry::addBuiltinKinds(s);
    const auto& pods = kind(s, "", "v1", "pods");
    const auto& events = kind(s, "", "v1", "events");
    const auto& nodes = kind(s, "", "v1", "nodes");
    json::Document pod;
    pod.Parse(R"({"metadata":{"name":"p","namespace":"ns"},"spec":{"nodeName":"n1"},
                 "status":{"phase":"Running"}})");
    assert_string_equal(registry::selectableFieldValue(pods, pod, "metadata.name").c_str(), "p");
    assert_string_equal(registry::selectableFieldValue(pods, pod, "metadata.namespace").c_str(),
                        "ns");
    assert_string_equal(registry::selectableFieldValue(pods, pod, "spec.host").c_str(), "n1");
    assert_string_equal(registry::selectableFieldValue(pods, pod, "status.phase").c_str(),
                        "Running");
    assert_string_equal(registry::selectableFieldValue(pods, pod, "spec.hostNetwork").c_str(),
                        "false");
    assert_string_equal(registry::selectableFieldValue(pods, pod, "status.podIP").c_str(), "");
    json::Document ev;
    ev.Parse(R"({"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p"},
                "source":{"component":"kubelet"},"type":"Warning"})");
    assert_string_equal(registry::selectableFieldValue(events, ev, "source").c_str(), "kubelet");
    assert_string_equal(registry::selectableFieldValue(events, ev, "involvedObject.kind").c_str(),
                        "Pod");
    json::Document node;
    node.Parse(R"({"metadata":{"name":"n"},"spec":{"unschedulable":true}})");
    assert_string_equal(registry::selectableFieldValue(nodes, node, "spec.unschedulable").c_str(),
                        "true");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(operators_and_escapes_parse_as_kube),
        cmocka_unit_test(bad_selectors_get_kube_messages),
        cmocka_unit_test(terms_match_field_values),
        cmocka_unit_test(exact_match_reports_only_equality_terms),
        cmocka_unit_test(unsupported_fields_are_rejected_per_kind),
        cmocka_unit_test(field_values_come_from_the_object_with_kube_defaults),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
