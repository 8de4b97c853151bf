#include <optional>
#include <string>
#include <vector>

#include "endpoints/negotiation.hpp"

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

using kube::endpoints::DiscoveryForm;
using kube::endpoints::InputForm;
using kube::endpoints::MediaRange;
using kube::endpoints::Output;
using kube::endpoints::OutputForm;
using kube::meta::Status;

namespace {

// kubectl 1.32's Accept headers (spec/kube-api-wire.md §1).
const char* kGetAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";
const char* kDiscoveryAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;"
    "g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const char* kTypedAccept = "application/vnd.kubernetes.protobuf,application/json";
const char* kVersionAccept = "application/json, */*";

// By default an endpoint of a built-in kind: tables and protobuf.
Output output(const char* accept, bool allowTable = true, bool protobuf = true) {
    Status err;
    std::optional<Output> out =
        kube::endpoints::negotiateOutput(accept, {allowTable, protobuf}, &err);
    if (!out) {
        fail_msg("Accept \"%s\" was refused: %s", accept, err.message.c_str());
    }
    return *out;
}

Status refusedOutput(const char* accept, bool protobuf = true) {
    Status err;
    std::optional<Output> out = kube::endpoints::negotiateOutput(accept, {true, protobuf}, &err);
    assert_false(out.has_value());
    return err;
}

DiscoveryForm discovery(const char* accept) {
    Status err;
    auto form = kube::endpoints::negotiateDiscovery(accept, &err);
    if (!form) {
        fail_msg("discovery Accept \"%s\" was refused: %s", accept, err.message.c_str());
    }
    return *form;
}

void accept_entries_keep_their_parameters_and_order(void**) {
    std::vector<MediaRange> r = kube::endpoints::parseAccept(kGetAccept);
    assert_int_equal(r.size(), 3);
    assert_string_equal(r[0].type.c_str(), "application/json");
    assert_string_equal(r[0].as.c_str(), "Table");
    assert_string_equal(r[0].v.c_str(), "v1");
    assert_string_equal(r[0].g.c_str(), "meta.k8s.io");
    assert_string_equal(r[1].v.c_str(), "v1beta1");
    assert_string_equal(r[2].type.c_str(), "application/json");
    assert_true(r[2].as.empty());
    assert_true(r[2].q == 1.0);
}

void accept_entries_are_ordered_by_q_then_as_written(void**) {
    std::vector<MediaRange> r = kube::endpoints::parseAccept(
        "text/html;q=0.2, application/json;q=0.5 , Application/YAML;q=0.5, image/png;q=0.9");
    assert_int_equal(r.size(), 4);
    assert_string_equal(r[0].type.c_str(), "image/png");
    assert_true(r[0].q == 0.9);
    assert_string_equal(r[1].type.c_str(), "application/json");
    // Types are matched case-insensitively.
    assert_string_equal(r[2].type.c_str(), "application/yaml");
    assert_string_equal(r[3].type.c_str(), "text/html");
    assert_true(r[3].q == 0.2);
    // Empty entries are skipped.
    assert_int_equal(kube::endpoints::parseAccept(",, application/json,").size(), 1);
}

void kubectl_get_accept_negotiates_table_v1(void**) {
    Output o = output(kGetAccept);
    assert_true(o.form == OutputForm::Table);
    assert_string_equal(o.tableGroupVersion.c_str(), "meta.k8s.io/v1");
}

void table_v1beta1_is_served_when_asked_first(void**) {
    Output o = output("application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json");
    assert_true(o.form == OutputForm::Table);
    assert_string_equal(o.tableGroupVersion.c_str(), "meta.k8s.io/v1beta1");
}

void a_higher_q_wins_over_an_earlier_entry(void**) {
    Output o = output("application/json;q=0.5,application/json;as=Table;v=v1;g=meta.k8s.io");
    assert_true(o.form == OutputForm::Table);
    o = output("application/json;as=Table;v=v1;g=meta.k8s.io;q=0.1, application/json");
    assert_true(o.form == OutputForm::Json);
}

void a_specific_type_wins_over_a_wildcard_of_the_same_q(void**) {
    // goautoneg sorts "*/*" after concrete types of equal q.
    Output o = output("*/*, application/json;as=Table;v=v1;g=meta.k8s.io");
    assert_true(o.form == OutputForm::Table);
}

void verbs_without_tables_get_json_for_the_table_accept(void**) {
    Output o = output(kGetAccept, false);
    assert_true(o.form == OutputForm::Json);
}

void plain_wildcard_typed_and_empty_accepts_get_json(void**) {
    for (const char* accept :
         {"", "   ", "application/json", "*/*", "application/*", kVersionAccept,
          "application/json;charset=utf-8", "application/json;stream=watch"}) {
        Output o = output(accept);
        if (o.form != OutputForm::Json) {
            fail_msg("Accept \"%s\" should render JSON", accept);
        }
    }
}

void unknown_table_versions_and_transforms_are_skipped(void**) {
    Output o = output("application/json;as=Table;v=v2;g=meta.k8s.io, application/json");
    assert_true(o.form == OutputForm::Json);
    o = output("application/json;as=Table;v=v1;g=other.io,application/json");
    assert_true(o.form == OutputForm::Json);
}

void unsatisfiable_accept_is_406_with_kubes_message(void**) {
    for (const char* accept :
         {"application/xml", "text/html, image/png", "application/json;as=Table;v=v2;g=meta.k8s.io",
          "application/json;as=PartialObjectMetadataList;v=v9;g=x.io"}) {
        Status s = refusedOutput(accept);
        assert_int_equal(s.code, 406);
        assert_string_equal(s.reason.c_str(), "NotAcceptable");
        assert_string_equal(s.message.c_str(),
                            "406: Not Acceptable\n\nAvailable representations: application/json, "
                            "application/vnd.kubernetes.protobuf");
        assert_true(s.details.has_value());
        assert_string_equal(
            s.toJson().c_str(),
            R"J({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)J"
            R"J("message":"406: Not Acceptable\n\nAvailable representations: application/json, )J"
            R"J(application/vnd.kubernetes.protobuf","reason":"NotAcceptable","details":{},)J"
            R"J("code":406})J");
    }
}

void kubectl_typed_accept_gets_protobuf_for_a_kind_with_a_schema(void**) {
    assert_true(output(kTypedAccept).form == OutputForm::Protobuf);
    assert_true(output("application/vnd.kubernetes.protobuf").form == OutputForm::Protobuf);
    assert_true(output("Application/Vnd.Kubernetes.Protobuf").form == OutputForm::Protobuf);
    // Every verb: create, update and delete answer in protobuf too.
    assert_true(output(kTypedAccept, false).form == OutputForm::Protobuf);
}

void protobuf_and_json_entries_follow_q_then_order(void**) {
    assert_true(output("application/json;q=0.9, application/vnd.kubernetes.protobuf").form ==
                OutputForm::Protobuf);
    assert_true(output("application/vnd.kubernetes.protobuf;q=0.5, application/json").form ==
                OutputForm::Json);
    assert_true(output("application/json, application/vnd.kubernetes.protobuf").form ==
                OutputForm::Json);
    assert_true(output("application/vnd.kubernetes.protobuf;q=0, */*").form == OutputForm::Json);
    // A wildcard means JSON, the first of the server's types.
    assert_true(output("*/*;q=0.8, application/vnd.kubernetes.protobuf;q=0.9").form ==
                OutputForm::Protobuf);
    assert_true(output("*/*").form == OutputForm::Json);
}

void a_protobuf_table_is_skipped_for_the_next_entry(void**) {
    // kube allows the Table transform for JSON and YAML only.
    Output o = output("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,"
                      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
    assert_true(o.form == OutputForm::Table);
    o = output("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,"
               "application/vnd.kubernetes.protobuf");
    assert_true(o.form == OutputForm::Protobuf);
    Status s = refusedOutput("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io");
    assert_int_equal(s.code, 406);
}

void the_watch_stream_parameter_is_accepted_and_others_are_not(void**) {
    assert_true(output("application/vnd.kubernetes.protobuf;stream=watch").form ==
                OutputForm::Protobuf);
    assert_true(output("application/json;stream=watch").form == OutputForm::Json);
    assert_true(output("application/vnd.kubernetes.protobuf;stream=chunks, application/json")
                    .form == OutputForm::Json);
    std::vector<MediaRange> r =
        kube::endpoints::parseAccept("application/vnd.kubernetes.protobuf;stream=watch");
    assert_string_equal(r[0].stream.c_str(), "watch");
}

void a_kind_without_a_schema_answers_json_or_406_like_a_custom_resource(void**) {
    assert_true(output(kTypedAccept, true, false).form == OutputForm::Json);
    assert_true(output("application/vnd.kubernetes.protobuf;q=0.9, */*;q=0.1", true, false).form ==
                OutputForm::Json);
    Status s = refusedOutput("application/vnd.kubernetes.protobuf", false);
    assert_int_equal(s.code, 406);
    assert_string_equal(s.reason.c_str(), "NotAcceptable");
    assert_string_equal(s.message.c_str(),
                        "only the following media types are accepted: application/json");
}

void kubectl_discovery_accept_gets_aggregated_v2(void**) {
    assert_true(discovery(kDiscoveryAccept) == DiscoveryForm::AggregatedV2);
    assert_true(discovery("application/json;g=apidiscovery.k8s.io;v=v2beta1;"
                          "as=APIGroupDiscoveryList,application/json") ==
                DiscoveryForm::AggregatedV2Beta1);
}

void plain_discovery_accepts_get_the_legacy_documents(void**) {
    for (const char* accept : {"", "application/json", kVersionAccept, "*/*"}) {
        if (discovery(accept) != DiscoveryForm::Legacy) {
            fail_msg("discovery Accept \"%s\" should be legacy", accept);
        }
    }
}

void unknown_aggregated_discovery_alone_is_406(void**) {
    Status err;
    auto form = kube::endpoints::negotiateDiscovery(
        "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList", &err);
    assert_false(form.has_value());
    assert_int_equal(err.code, 406);
    assert_string_equal(err.reason.c_str(), "NotAcceptable");
    assert_string_equal(err.message.c_str(),
                        "only the following media types are accepted: application/json");
    form = kube::endpoints::negotiateDiscovery("application/xml", &err);
    assert_false(form.has_value());
    assert_int_equal(err.code, 406);
}

void empty_and_json_content_types_decode_as_json(void**) {
    Status err;
    for (const char* ct :
         {"", "application/json", "application/json; charset=utf-8", "Application/JSON"}) {
        auto in = kube::endpoints::negotiateInput(ct, &err);
        if (!in || *in != InputForm::Json) {
            fail_msg("Content-Type \"%s\" should decode as JSON", ct);
        }
    }
    auto yaml = kube::endpoints::negotiateInput("application/yaml", &err);
    assert_true(yaml.has_value() && *yaml == InputForm::Yaml);
    auto pb = kube::endpoints::negotiateInput("application/vnd.kubernetes.protobuf", &err);
    assert_true(pb.has_value() && *pb == InputForm::Protobuf);
}

void unknown_bodies_are_415_without_details(void**) {
    for (const char* ct : {"text/plain", "application/xml", "application/vnd.kubernetes.cbor"}) {
        Status err;
        auto in = kube::endpoints::negotiateInput(ct, &err);
        assert_false(in.has_value());
        assert_int_equal(err.code, 415);
        assert_string_equal(err.reason.c_str(), "UnsupportedMediaType");
        assert_string_equal(err.message.c_str(),
                            "the body of the request was in an unknown format - accepted media "
                            "types include: application/json, application/yaml, "
                            "application/vnd.kubernetes.protobuf");
        assert_false(err.details.has_value());
    }
}

void curl_and_wget_user_agents_get_pretty_output(void**) {
    using kube::endpoints::wantsPretty;
    assert_true(wantsPretty("curl/8.5.0", ""));
    assert_true(wantsPretty("Wget/1.21.3", ""));
    assert_false(wantsPretty("kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd", ""));
    assert_false(wantsPretty("", ""));
    assert_false(wantsPretty("python-requests/2.31", ""));
    // isPrettyPrint also counts browsers as humans.
    assert_true(wantsPretty("Mozilla/5.0 (X11; Linux x86_64)", ""));
}

void pretty_parameter_overrides_the_user_agent(void**) {
    using kube::endpoints::wantsPretty;
    assert_true(wantsPretty("kubectl/v1.32.4", "true"));
    assert_true(wantsPretty("kubectl/v1.32.4", "1"));
    assert_false(wantsPretty("curl/8.5.0", "false"));
    assert_false(wantsPretty("curl/8.5.0", "0"));
    // strconv.ParseBool's other spellings, and a non-boolean value is false.
    assert_true(wantsPretty("kubectl/v1.32.4", "True"));
    assert_true(wantsPretty("kubectl/v1.32.4", "t"));
    assert_false(wantsPretty("curl/8.5.0", "yes"));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accept_entries_keep_their_parameters_and_order),
        cmocka_unit_test(accept_entries_are_ordered_by_q_then_as_written),
        cmocka_unit_test(kubectl_get_accept_negotiates_table_v1),
        cmocka_unit_test(table_v1beta1_is_served_when_asked_first),
        cmocka_unit_test(a_higher_q_wins_over_an_earlier_entry),
        cmocka_unit_test(a_specific_type_wins_over_a_wildcard_of_the_same_q),
        cmocka_unit_test(verbs_without_tables_get_json_for_the_table_accept),
        cmocka_unit_test(plain_wildcard_typed_and_empty_accepts_get_json),
        cmocka_unit_test(unknown_table_versions_and_transforms_are_skipped),
        cmocka_unit_test(unsatisfiable_accept_is_406_with_kubes_message),
        cmocka_unit_test(kubectl_typed_accept_gets_protobuf_for_a_kind_with_a_schema),
        cmocka_unit_test(protobuf_and_json_entries_follow_q_then_order),
        cmocka_unit_test(a_protobuf_table_is_skipped_for_the_next_entry),
        cmocka_unit_test(the_watch_stream_parameter_is_accepted_and_others_are_not),
        cmocka_unit_test(a_kind_without_a_schema_answers_json_or_406_like_a_custom_resource),
        cmocka_unit_test(kubectl_discovery_accept_gets_aggregated_v2),
        cmocka_unit_test(plain_discovery_accepts_get_the_legacy_documents),
        cmocka_unit_test(unknown_aggregated_discovery_alone_is_406),
        cmocka_unit_test(empty_and_json_content_types_decode_as_json),
        cmocka_unit_test(unknown_bodies_are_415_without_details),
        cmocka_unit_test(curl_and_wget_user_agents_get_pretty_output),
        cmocka_unit_test(pretty_parameter_overrides_the_user_agent),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
