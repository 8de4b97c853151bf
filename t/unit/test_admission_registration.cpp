// admissionregistration.k8s.io/v1 (webhook configurations, validating admission policies and
// their bindings) and apiregistration.k8s.io/v1 APIServices: kube's defaults, validation messages
// (webhook configurations and APIServices as kube-apiserver 1.26.5 answers; policies as kube
// 1.33's source words them), table cells, the local APIServices of the served group/versions, and
// the Warning a write gets when a registered webhook or bound policy would have matched it.
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "endpoints/protobuf_codec.hpp"
#include "registry/table_cells.hpp"
#include "server/server.hpp"
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

#include "served_answers.hpp"
#include "served_server.hpp"

namespace {

namespace json = kube::util::json;
using kube::endpoints::HttpResponse;

using Server = kube::testing::ServedServer;

constexpr const char* kAdm = "/apis/admissionregistration.k8s.io/v1";
constexpr const char* kApiServices = "/apis/apiregistration.k8s.io/v1/apiservices";
constexpr const char* kTable = "application/json;as=Table;v=v1;g=meta.k8s.io";

// The answers' readers every kind's unit test shares.
auto& parse = kube::testing::parseJson;
auto& at = kube::testing::bodyAt;
auto& causes = kube::testing::statusCauses;

// A table's column names and its first row's cells.
std::string tableOf(const std::string& body) {
    json::Document d = parse(body);
    std::string out;
    for (const json::Value& c : d["columnDefinitions"].GetArray()) {
        out += std::string(json::stringMember(c, "name")) + " ";
    }
    return out + json::serialize(d["rows"][0]["cells"]);
}

std::string warnings(const HttpResponse& r) {
    std::string out;
    for (const auto& [name, value] : r.headers) {
        if (name == "Warning") {
            out += value + "\n";
        }
    }
    return out;
}

constexpr const char* kGoodHook =
    R"({"metadata":{"name":"cm-hook"},"webhooks":[{"name":"cm.hooks.example.com",)"
    R"("clientConfig":{"service":{"namespace":"default","name":"hooks"}},)"
    R"("rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],)"
    R"("resources":["configmaps"]}],"sideEffects":"None","admissionReviewVersions":["v1"]}]})";

void webhook_configurations_get_kubes_defaults_and_columns(void**) {
    Server s;
    HttpResponse r =
        s.send("POST", std::string(kAdm) + "/validatingwebhookconfigurations", kGoodHook);
    assert_int_equal(r.status, 201);
    assert_string_equal(at(r.body, {"metadata", "generation"}).c_str(), "1");
    assert_string_equal(
        at(r.body, {"webhooks"}).c_str(),
        R"([{"name":"cm.hooks.example.com","clientConfig":{"service":{"namespace":"default",)"
        R"("name":"hooks","port":443}},"rules":[{"operations":["CREATE"],"apiGroups":[""],)"
        R"("apiVersions":["v1"],"resources":["configmaps"],"scope":"*"}],)"
        R"("sideEffects":"None","admissionReviewVersions":["v1"],"failurePolicy":"Fail",)"
        R"("matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},)"
        R"("timeoutSeconds":10}])");
    r = s.send("POST", std::string(kAdm) + "/mutatingwebhookconfigurations", kGoodHook);
    assert_int_equal(r.status, 201);
    assert_non_null(strstr(r.body.c_str(), R"("timeoutSeconds":10,"reinvocationPolicy":"Never")"));
    r = s.send("GET", std::string(kAdm) + "/mutatingwebhookconfigurations/cm-hook", "",
               "application/json", kTable);
    assert_int_equal(r.status, 200);
    assert_string_equal(tableOf(r.body).c_str(), R"(Name Webhooks Age ["cm-hook",1,"0s"])");
}

void webhook_configuration_checks_are_kubes(void**) {
    Server s;
    HttpResponse r = s.send("POST", std::string(kAdm) + "/mutatingwebhookconfigurations",
                            R"BODY({"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"h-admreg-bad"},"webhooks":[{"name":"nodots","clientConfig":{"url":"http://x/y?q=1#f","service":{"name":"s","namespace":"n"}},"rules":[{"operations":["CREATE","*","BOGUS"],"apiGroups":["*","apps"],"apiVersions":["*","v1",""],"resources":["*/*","pods"],"scope":"Bogus"}],"sideEffects":"Some","admissionReviewVersions":["v2","v2","Bad_"],"timeoutSeconds":31,"failurePolicy":"Maybe","matchPolicy":"Close","reinvocationPolicy":"Sometimes","namespaceSelector":{"matchExpressions":[{"key":"a","operator":"In"}]}},{"name":"nodots","clientConfig":{},"admissionReviewVersions":[]},{"name":"c.example.com","clientConfig":{"url":"ftp://user@x/y"},"sideEffects":"None","admissionReviewVersions":["v1"]},{"name":"d.example.com","clientConfig":{"service":{"name":"S_","namespace":"","path":"noslash","port":0}},"sideEffects":"None","admissionReviewVersions":["v1"],"timeoutSeconds":0,"rules":[{"operations":[],"apiGroups":[],"apiVersions":[],"resources":[]},{"operations":["UPDATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods/*","pods/status","*/status","*/scale","deployments/scale","*","x"]}]}]})BODY");
    assert_int_equal(r.status, 422);
    const char* want =
        "webhooks[0].name: Invalid value: \"nodots\": should be a domain with at least three segments separated by dots\n"
        "webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{\"CREATE\", \"*\", \"BOGUS\"}: if '*' is present, must not specify other operations\n"
        "webhooks[0].rules[0].operations[2]: Unsupported value: \"BOGUS\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\"\n"
        "webhooks[0].rules[0].apiGroups: Invalid value: []string{\"*\", \"apps\"}: if '*' is present, must not specify other API groups\n"
        "webhooks[0].rules[0].apiVersions: Invalid value: []string{\"*\", \"v1\", \"\"}: if '*' is present, must not specify other API versions\n"
        "webhooks[0].rules[0].apiVersions[2]: Required value\n"
        "webhooks[0].rules[0].resources: Invalid value: []string{\"*/*\", \"pods\"}: if '*/*' is present, must not specify other resources\n"
        "webhooks[0].rules[0].scope: Unsupported value: \"Bogus\": supported values: \"*\", \"Cluster\", \"Namespaced\"\n"
        "webhooks[0].failurePolicy: Unsupported value: \"Maybe\": supported values: \"Fail\", \"Ignore\"\n"
        "webhooks[0].matchPolicy: Unsupported value: \"Close\": supported values: \"Equivalent\", \"Exact\"\n"
        "webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\"\n"
        "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds\n"
        "webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'\n"
        "webhooks[0].reinvocationPolicy: Unsupported value: \"Sometimes\": supported values: \"IfNeeded\", \"Never\"\n"
        "webhooks[0].clientConfig: Required value: exactly one of url or service is required\n"
        "webhooks[0].admissionReviewVersions[1]: Invalid value: \"v2\": duplicate version\n"
        "webhooks[0].admissionReviewVersions[2]: Invalid value: \"Bad_\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')\n"
        "webhooks[0].admissionReviewVersions: Invalid value: []string{\"v2\", \"v2\", \"Bad_\"}: must include at least one of v1, v1beta1\n"
        "webhooks[1].name: Invalid value: \"nodots\": should be a domain with at least three segments separated by dots\n"
        "webhooks[1].sideEffects: Required value: must specify one of None, NoneOnDryRun\n"
        "webhooks[1].clientConfig: Required value: exactly one of url or service is required\n"
        "webhooks[1].admissionReviewVersions: Required value: must specify one of v1, v1beta1\n"
        "webhooks[1].name: Duplicate value: \"nodots\"\n"
        "webhooks[2].clientConfig.url: Invalid value: \"ftp\": 'https' is the only allowed URL scheme; desired format: https://host[/path]\n"
        "webhooks[2].clientConfig.url: Invalid value: \"user\": user information is not permitted in the URL\n"
        "webhooks[3].rules[0].operations: Required value\n"
        "webhooks[3].rules[0].apiGroups: Required value\n"
        "webhooks[3].rules[0].apiVersions: Required value\n"
        "webhooks[3].rules[0].resources: Required value\n"
        "webhooks[3].rules[1].resources[1]: Invalid value: \"pods/status\": if 'pods/*' is present, must not specify pods/status\n"
        "webhooks[3].rules[1].resources[4]: Invalid value: \"deployments/scale\": if '*/scale' is present, must not specify deployments/scale\n"
        "webhooks[3].rules[1].resources: Invalid value: []string{\"pods/*\", \"pods/status\", \"*/status\", \"*/scale\", \"deployments/scale\", \"*\", \"x\"}: if '*' is present, must not specify other resources without subresources\n"
        "webhooks[3].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds\n"
        "webhooks[3].clientConfig.service.name: Required value: service name is required\n"
        "webhooks[3].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive\n"
        "webhooks[3].clientConfig.service.path: Invalid value: \"noslash\": must start with a '/'\n";
    assert_string_equal(causes(r.body).c_str(), want);
}

void match_conditions_are_compiled_as_kube_1_33_does(void**) {
    Server s;
    HttpResponse r = s.send(
        "POST", std::string(kAdm) + "/validatingwebhookconfigurations",
        R"({"metadata":{"name":"mc"},"webhooks":[{"name":"mc.hooks.example.com",)"
        R"("clientConfig":{"url":"https://hooks.example.com/v"},"sideEffects":"None",)"
        R"("admissionReviewVersions":["v1"],"matchConditions":[{"name":"","expression":" "},)"
        R"({"name":"bad name!","expression":"object.metadata.name +"},)"
        R"({"name":"ok","expression":"1 + 'a' == 2"},{"name":"ok","expression":"'x'"},)"
        R"({"name":"fine","expression":"object.metadata.name == 'x' && request.dryRun != true"}]}]})");
    assert_int_equal(r.status, 422);
    std::string got = causes(r.body);
    assert_non_null(strstr(got.c_str(), "webhooks[0].matchConditions[0].expression: Required value\n"
                                        "webhooks[0].matchConditions[0].name: Required value\n"));
    assert_non_null(strstr(got.c_str(), "webhooks[0].matchConditions[1].expression: Invalid value: "
                                        "\"object.metadata.name +\": compilation failed: ERROR: "
                                        "<input>:1:23: Syntax error:"));
    assert_non_null(strstr(got.c_str(), "webhooks[0].matchConditions[1].name: Invalid value: "
                                        "\"bad name!\": name part must consist of"));
    assert_non_null(strstr(got.c_str(), "webhooks[0].matchConditions[2].expression: Invalid value: "
                                        "\"1 + 'a' == 2\": compilation failed: ERROR: <input>:1:3: "
                                        "found no matching overload for '_+_' applied to "
                                        "'(int, string)'"));
    assert_non_null(strstr(got.c_str(), "webhooks[0].matchConditions[3].expression: Invalid value: "
                                        "\"'x'\": must evaluate to bool\n"
                                        "webhooks[0].matchConditions[3].name: Duplicate value: "
                                        "\"ok\"\n"));
    assert_null(strstr(got.c_str(), "matchConditions[4]"));
}

void api_services_are_checked_as_kube_checks_them(void**) {
    Server s;
    HttpResponse r = s.send(
        "POST", kApiServices,
        R"({"metadata":{"name":"v1.wrong"},"spec":{"group":"Bad_Group","version":"V1",)"
        R"("groupPriorityMinimum":0,"versionPriority":1001,"caBundle":"YWJj","insecureSkipTLSVerify":true}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(
        causes(r.body).c_str(),
        "metadata.name: Invalid value: \"v1.wrong\": must be `spec.version+\".\"+spec.group`: "
        "\"V1.Bad_Group\"\n"
        "spec.group: Invalid value: \"Bad_Group\": a lowercase RFC 1123 subdomain must consist of "
        "lower case alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
        "spec.version: Invalid value: \"V1\": a DNS-1035 label must consist of lower case "
        "alphanumeric characters or '-', start with an alphabetic character, and end with an "
        "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')\n"
        "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000\n"
        "spec.versionPriority: Invalid value: 1001: must be positive and less than 1000\n"
        "spec.caBundle: Invalid value: \"3 bytes\": local APIServices may not have a caBundle\n"
        "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have "
        "insecureSkipTLSVerify\n");
    r = s.send("POST", kApiServices,
               R"({"metadata":{"name":"v1.h.example.com"},"spec":{"group":"h.example.com",)"
               R"("version":"v1","groupPriorityMinimum":20001,"versionPriority":0,)"
               R"("service":{"port":0},"caBundle":"YWJj","insecureSkipTLSVerify":true}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(
        causes(r.body).c_str(),
        "spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000\n"
        "spec.versionPriority: Invalid value: 0: must be positive and less than 1000\n"
        "spec.service.namespace: Required value\n"
        "spec.service.name: Required value\n"
        "spec.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, "
        "inclusive\n"
        "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present\n");
    r = s.send("POST", kApiServices,
               R"({"metadata":{"name":"v2."},"spec":{"version":"v2","groupPriorityMinimum":1,)"
               R"("versionPriority":1}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(causes(r.body).c_str(),
                        "spec.group: Required value: only v1 may have an empty group and it better "
                        "be legacy kube\n");
    r = s.send("POST", kApiServices,
               R"({"metadata":{"name":"v1.h.example.com"},"spec":{"group":"h.example.com",)"
               R"("version":"v1","groupPriorityMinimum":100,"versionPriority":10,)"
               R"("service":{"namespace":"h","name":"svc"}}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(at(r.body, {"spec", "service", "port"}).c_str(), "443");
    r = s.send("GET", std::string(kApiServices) + "/v1.h.example.com", "", "application/json",
               kTable);
    assert_string_equal(tableOf(r.body).c_str(),
                        R"(Name Service Available Age ["v1.h.example.com","h/svc","Unknown","0s"])");
}

// The worker that runs the controllers.
kube::server::ServerOptions owner() {
    kube::server::ServerOptions o;
    o.rbacPolicyOwner = true;
    return o;
}

void every_served_group_version_has_its_local_api_service(void**) {
    Server s(owner());
    HttpResponse r = s.send("GET", std::string(kApiServices) + "/v1.apps");
    assert_int_equal(r.status, 200);
    assert_string_equal(at(r.body, {"spec"}).c_str(),
                        R"({"group":"apps","version":"v1","groupPriorityMinimum":17800,)"
                        R"("versionPriority":15})");
    assert_string_equal(
        at(r.body, {"metadata", "labels"}).c_str(),
        R"({"kube-aggregator.kubernetes.io/automanaged":"onstart"})");
    std::string conditions = at(r.body, {"status", "conditions"});
    assert_non_null(strstr(conditions.c_str(), R"("type":"Available","status":"True",)"));
    assert_non_null(strstr(conditions.c_str(),
                           R"("reason":"Local","message":"Local APIServices are always available"})"));
    r = s.send("GET", std::string(kApiServices) + "/v1.");
    assert_string_equal(at(r.body, {"spec"}).c_str(),
                        R"({"version":"v1","groupPriorityMinimum":18000,"versionPriority":1})");
    r = s.send("GET", std::string(kApiServices) + "/v1beta3.flowcontrol.apiserver.k8s.io");
    assert_string_equal(at(r.body, {"spec", "versionPriority"}).c_str(), "18");
    // The aggregator's own group has none.
    r = s.send("GET", std::string(kApiServices) + "/v1.apiregistration.k8s.io");
    assert_int_equal(r.status, 404);
    r = s.send("GET", kApiServices, "", "application/json", kTable);
    assert_string_equal(tableOf(r.body).c_str(),
                        R"(Name Service Available Age ["v1.","Local","True","0s"])");
    // An automanaged one deleted by hand comes back at the next sync, as an unmanaged one is
    // left alone.
    assert_int_equal(s.send("DELETE", std::string(kApiServices) + "/v1.apps").status, 200);
    s.server.addKind([] {
        kube::registry::KindInfo k;
        k.group = "extra.example.com";
        k.version = "v1";
        k.kind = "Extra";
        k.resource = "extras";
        k.singular = "extra";
        k.columns = kube::registry::cells::defaultColumns();
        return k;
    }());
    s.server.pollChanges();
    s.loop.run();
    assert_int_equal(s.send("GET", std::string(kApiServices) + "/v1.apps").status, 200);
    r = s.send("GET", std::string(kApiServices) + "/v1.extra.example.com");
    assert_int_equal(r.status, 200);
    assert_string_equal(at(r.body, {"spec"}).c_str(),
                        R"({"group":"extra.example.com","version":"v1",)"
                        R"("groupPriorityMinimum":1000,"versionPriority":100})");
    assert_string_equal(at(r.body, {"metadata", "labels"}).c_str(),
                        R"({"kube-aggregator.kubernetes.io/automanaged":"true"})");
    s.server.removeKind("extra.example.com", "extras");
    s.server.pollChanges();
    s.loop.run();
    assert_int_equal(s.send("GET", std::string(kApiServices) + "/v1.extra.example.com").status,
                     404);
}

constexpr const char* kPolicy =
    R"({"metadata":{"name":"replicas"},"spec":{"matchConstraints":{"resourceRules":[)"
    R"({"operations":["CREATE","UPDATE"],"apiGroups":[""],"apiVersions":["v1"],)"
    R"("resources":["configmaps"]}]},"variables":[{"name":"data","expression":"object.data"}],)"
    R"("validations":[{"expression":"size(variables.data) < 5","messageExpression":"'too big'"}]}})";

void validating_admission_policies_are_defaulted_and_compiled(void**) {
    Server s;
    HttpResponse r = s.send("POST", std::string(kAdm) + "/validatingadmissionpolicies", kPolicy);
    assert_int_equal(r.status, 201);
    assert_string_equal(at(r.body, {"spec", "failurePolicy"}).c_str(), "Fail");
    assert_string_equal(at(r.body, {"spec", "matchConstraints"}).c_str(),
                        R"({"resourceRules":[{"operations":["CREATE","UPDATE"],)"
                        R"("apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"],)"
                        R"("scope":"*"}],"matchPolicy":"Equivalent","namespaceSelector":{},)"
                        R"("objectSelector":{}})");
    r = s.send("GET", std::string(kAdm) + "/validatingadmissionpolicies/replicas", "",
               "application/json", kTable);
    assert_string_equal(tableOf(r.body).c_str(),
                        R"(Name Validations ParamKind Age ["replicas",1,"<unset>","0s"])");
    r = s.send(
        "POST", std::string(kAdm) + "/validatingadmissionpolicies",
        R"({"metadata":{"name":"bad"},"spec":{"failurePolicy":"Maybe","paramKind":)"
        R"({"apiVersion":"a/b/c","kind":""},"matchConstraints":{"resourceRules":[]},)"
        R"("variables":[{"name":"in","expression":"object."}],"validations":[)"
        R"({"expression":"object.spec.replicas +","message":" "},)"
        R"({"expression":"true","messageExpression":"1","reason":"Teapot"}],)"
        R"("auditAnnotations":[{"key":"k","valueExpression":"1"},{"key":"k","valueExpression":"'v'"}]}})");
    assert_int_equal(r.status, 422);
    std::string got = causes(r.body);
    for (const char* want : {
             "spec.failurePolicy: Unsupported value: \"Maybe\": supported values: \"Fail\", "
             "\"Ignore\"\n",
             "spec.paramKind.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion "
             "string: a/b/c\n",
             "spec.paramKind.kind: Required value\n",
             "spec.matchConstraints.resourceRules: Required value\n",
             "spec.variables[0].name: Invalid value: \"in\": name is not a valid CEL identifier\n",
             "spec.variables[0].expression: Invalid value: \"object.\": compilation failed: ",
             "spec.validations[0].expression: Invalid value: \"object.spec.replicas +\": "
             "compilation failed: ERROR: <input>:1:",
             "spec.validations[0].message: Invalid value: \" \": message must be non-empty if "
             "specified\n",
             "spec.validations[1].messageExpression: Invalid value: \"1\": must evaluate to "
             "string\n",
             "spec.validations[1].reason: Unsupported value: \"Teapot\": supported values: "
             "\"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\"\n",
             "spec.auditAnnotations[0].valueExpression: Invalid value: \"1\": must evaluate to "
             "one of [string null_type]\n",
             "spec.auditAnnotations[1].key: Duplicate value: \"k\"\n",
         }) {
        if (!strstr(got.c_str(), want)) {
            fail_msg("missing %s in:\n%s", want, got.c_str());
        }
    }
}

void policy_bindings_are_checked(void**) {
    Server s;
    HttpResponse r = s.send(
        "POST", std::string(kAdm) + "/validatingadmissionpolicybindings",
        R"({"metadata":{"name":"b"},"spec":{"policyName":"replicas","paramRef":{"name":"p"},)"
        R"("validationActions":["Deny"]}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(at(r.body, {"spec", "paramRef", "parameterNotFoundAction"}).c_str(),
                        "Deny");
    r = s.send("GET", std::string(kAdm) + "/validatingadmissionpolicybindings/b", "",
               "application/json", kTable);
    assert_string_equal(tableOf(r.body).c_str(),
                        R"(Name PolicyName ParamRef Age ["b","replicas","*/p","0s"])");
    r = s.send("POST", std::string(kAdm) + "/validatingadmissionpolicybindings",
               R"({"metadata":{"name":"bad"},"spec":{"paramRef":{"name":"p","selector":{},)"
               R"("parameterNotFoundAction":"Maybe"},"matchResources":{"matchPolicy":"Close"},)"
               R"("validationActions":["Deny","Warn","Deny","Shout"]}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(
        causes(r.body).c_str(),
        "spec.policyName: Required value\n"
        "spec.paramRef.name: Forbidden: name and selector are mutually exclusive\n"
        "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive\n"
        "spec.paramRef.parameterNotFoundAction: Unsupported value: &\"Maybe\": supported values: "
        "\"Deny\", \"Allow\"\n"
        "spec.matchResouces.matchPolicy: Unsupported value: \"Close\": supported values: "
        "\"Equivalent\", \"Exact\"\n"
        "spec.validationActions[2]: Duplicate value: \"Deny\"\n"
        "spec.validationActions[3]: Unsupported value: \"Shout\": supported values: \"Audit\", "
        "\"Deny\", \"Warn\"\n"
        "spec.validationActions: Invalid value: []admissionregistration.ValidationAction{\"Deny\", "
        "\"Warn\", \"Deny\", \"Shout\"}: must not contain both Deny and Warn (repeating the same "
        "validation failure information in the API response and headers serves no purpose)\n");
}

void writes_a_registered_hook_would_match_get_a_warning(void**) {
    Server s;
    const std::string cms = "/api/v1/namespaces/default/configmaps";
    HttpResponse r = s.send("POST", cms, R"({"metadata":{"name":"before"}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(warnings(r).c_str(), "");
    assert_int_equal(
        s.send("POST", std::string(kAdm) + "/validatingwebhookconfigurations", kGoodHook).status,
        201);
    s.server.pollChanges();
    s.loop.run();
    r = s.send("POST", cms, R"({"metadata":{"name":"after"}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(warnings(r).c_str(),
                        "299 - \"ValidatingWebhookConfiguration \\\"cm-hook\\\": webhook "
                        "\\\"cm.hooks.example.com\\\" was not called: this server does not call "
                        "admission webhooks yet\"\n");
    // Not an update (the rule is CREATE only), not another resource.
    r = s.send("PATCH", cms + "/after", R"({"data":{"a":"b"}})", "application/merge-patch+json");
    assert_int_equal(r.status, 200);
    assert_string_equal(warnings(r).c_str(), "");
    r = s.send("POST", "/api/v1/namespaces/default/secrets", R"({"metadata":{"name":"s"}})");
    assert_string_equal(warnings(r).c_str(), "");
    // A policy counts once bound.
    assert_int_equal(
        s.send("POST", std::string(kAdm) + "/validatingadmissionpolicies", kPolicy).status, 201);
    s.server.pollChanges();
    s.loop.run();
    r = s.send("PATCH", cms + "/after", R"({"data":{"a":"c"}})", "application/merge-patch+json");
    assert_string_equal(warnings(r).c_str(), "");
    assert_int_equal(s.send("POST", std::string(kAdm) + "/validatingadmissionpolicybindings",
                            R"({"metadata":{"name":"bind"},"spec":{"policyName":"replicas",)"
                            R"("validationActions":["Deny"]}})")
                         .status,
                     201);
    s.server.pollChanges();
    s.loop.run();
    r = s.send("PATCH", cms + "/after", R"({"data":{"a":"d"}})", "application/merge-patch+json");
    assert_string_equal(warnings(r).c_str(),
                        "299 - \"ValidatingAdmissionPolicy \\\"replicas\\\" (binding \\\"bind\\\") "
                        "was not evaluated: this server does not evaluate admission policies "
                        "yet\"\n");
    // The webhook's goes with its configuration; the policy (CREATE too) stays.
    assert_int_equal(
        s.send("DELETE", std::string(kAdm) + "/validatingwebhookconfigurations/cm-hook").status,
        200);
    s.server.pollChanges();
    s.loop.run();
    r = s.send("POST", cms, R"({"metadata":{"name":"later"}})");
    assert_null(strstr(warnings(r).c_str(), "cm-hook"));
    assert_non_null(strstr(warnings(r).c_str(), "ValidatingAdmissionPolicy"));
}

void the_new_kinds_have_a_protobuf_schema(void**) {
    for (const char* kind : {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
                             "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}) {
        assert_true(kube::endpoints::hasProtobufSchema("admissionregistration.k8s.io/v1", kind));
    }
    assert_true(kube::endpoints::hasProtobufSchema("apiregistration.k8s.io/v1", "APIService"));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(webhook_configurations_get_kubes_defaults_and_columns),
        cmocka_unit_test(webhook_configuration_checks_are_kubes),
        cmocka_unit_test(match_conditions_are_compiled_as_kube_1_33_does),
        cmocka_unit_test(api_services_are_checked_as_kube_checks_them),
        cmocka_unit_test(every_served_group_version_has_its_local_api_service),
        cmocka_unit_test(validating_admission_policies_are_defaulted_and_compiled),
        cmocka_unit_test(policy_bindings_are_checked),
        cmocka_unit_test(writes_a_registered_hook_would_match_get_a_warning),
        cmocka_unit_test(the_new_kinds_have_a_protobuf_schema),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
