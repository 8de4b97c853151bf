// events.k8s.io/v1 Events (core/v1 Events in storage, converted both ways),
// certificates.k8s.io/v1 CertificateSigningRequests (requester recorded,
// approval and status strategies, kube 1.26's validation and table), and the
// not-ready taint TaintNodesByCondition puts on a new Node.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "authn/user.hpp"
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

// The answers' readers every kind's unit test shares.
auto& parse = kube::testing::parseJson;
auto& at = kube::testing::bodyAt;
auto& causes = kube::testing::statusCauses;

constexpr const char* kCoreEvents = "/api/v1/namespaces/default/events";
constexpr const char* kEvents = "/apis/events.k8s.io/v1/namespaces/default/events";
constexpr const char* kCSRs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";

// PEM certificate requests (EC P-256): CN=bob O=devs, and CN=root O=system:masters.
constexpr const char* kDevRequest =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIV01IOENBUUF3SFRFTU1Bb0dBMVVFQXd3RFltOWlNUT"
    "B3Q3dZRFZRUUtEQVJrWlhaek1Ga3dFd1lIS29aSQp6ajBDQVFZSUtvWkl6ajBEQVFjRFFnQUVYOVdwTzhGLzByMUxIREt6"
    "UFpoTUNxa3ZrQUdmQ0RsczV2M0Q5aXd5CmNsaFpaeTRaYUdCU1RaVzJwaFdPZExPR3BSaTdsNjF1am9HbGVTZ054eXFLQU"
    "tBQU1Bb0dDQ3FHU000OUJBTUMKQTBjQU1FUUNJQzV1TzhGQlpPZ2hEc2lEWGYybnRHQk4xYitKYTRYb2JZOWc3Q3MxTnFw"
    "ckFpQnNlUFJmd0tPNAoxU2k3d25OUlZTcGFxWWdZWkh1NDJVZUNnTFpPQnhCMmFBPT0KLS0tLS1FTkQgQ0VSVElGSUNBVE"
    "UgUkVRVUVTVC0tLS0tCg==";
constexpr const char* kMastersRequest =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIaU1JR0tBZ0VBTUNneERUQUxCZ05WQkFNTUJISnZiM1"
    "F4RnpBVkJnTlZCQW9NRG5ONWMzUmxiVHB0WVhOMApaWEp6TUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FF"
    "S1A5VDl3SmY3NTN3Z3JtQUpaM2txeXZiCnp4cVZSZjZEWjh1RE5GTytOc2h2anZ2Zmk3TW43WFBSSlBjbzBGbXplMFpWNF"
    "p3ZjhnVDBsZTV5bUtzUEhLQUEKTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUU4YjZyRzY4ZVl2d0hqS2RLbnM0SDhJWnNN"
    "VldkeGJqY1B6OU5zbwpsd1A3QWlBTzRzaTluajZQcDRrNlJmbXB6S0lYRkV2NVZkcWU1WklEVGhZSDE3QVhGUT09Ci0tLS"
    "0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=";
// A PEM self-signed certificate (CN=bob).
constexpr const char* kCertificate =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJjRENDQVJlZ0F3SUJBZ0lVYzNsUEkzZEZURkVxSGlibXllVEdXen"
    "VPYzBRd0NnWUlLb1pJemowRUF3SXcKRGpFTU1Bb0dBMVVFQXd3RFltOWlNQjRYRFRJMk1URXlOakUwTkRrMU0xb1hEVE0y"
    "TVRFeU16RTBORGsxTTFvdwpEakVNTUFvR0ExVUVBd3dEWW05aU1Ga3dFd1lIS29aSXpqMENBUVlJS29aSXpqMERBUWNEUW"
    "dBRWxlSjYrRHVPCnB2WlREZExjK0VRSmx0QzhoTnF2dDAwa3NmVjF2am9hSkNQNTJjcCtsRjdZbUFFN1pGWndybVAyTDYz"
    "VGlhWGQKdVhlOWNwRHRzMGJCVjZOVE1GRXdIUVlEVlIwT0JCWUVGUEZSaXlxTFRRd293RzVpODNxdnh6RTU0Y0xQTUI4Rw"
    "pBMVVkSXdRWU1CYUFGUEZSaXlxTFRRd293RzVpODNxdnh6RTU0Y0xQTUE4R0ExVWRFd0VCL3dRRk1BTUJBZjh3CkNnWUlL"
    "b1pJemowRUF3SURSd0F3UkFJZ0ZiUXV1Q1FBdUUySGp0SlY0NU5PTEthQUFKWTZtcG81ZE9sei9oMGwKdkxJQ0lDdkFwYU"
    "tVeE9LSHVEaGQ5dDVXcmFyUnErbFQyWWswc1QyamZFUHdpVk1rCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";

void core_event_reads_at_events_k8s_io_in_its_shape(void**) {
    Server s;
    HttpResponse r = s.send(
        "POST", kCoreEvents,
        R"({"metadata":{"name":"e1"},"involvedObject":{"kind":"Pod","namespace":"default","name":"p1"},)"
        R"("reason":"Started","message":"hello","source":{"component":"kubelet","host":"n1"},)"
        R"("firstTimestamp":"2024-01-01T00:00:00Z","lastTimestamp":"2024-01-01T00:01:00Z","count":3,"type":"Normal"})");
    assert_int_equal(r.status, 201);
    HttpResponse g = s.send("GET", std::string(kEvents) + "/e1");
    assert_int_equal(g.status, 200);
    json::Document d = parse(g.body);
    d.EraseMember("metadata");
    assert_string_equal(
        json::serialize(d).c_str(),
        R"({"kind":"Event","apiVersion":"events.k8s.io/v1","eventTime":null,"reason":"Started",)"
        R"("regarding":{"kind":"Pod","namespace":"default","name":"p1"},"note":"hello","type":"Normal",)"
        R"("deprecatedSource":{"component":"kubelet","host":"n1"},)"
        R"("deprecatedFirstTimestamp":"2024-01-01T00:00:00Z",)"
        R"("deprecatedLastTimestamp":"2024-01-01T00:01:00Z","deprecatedCount":3})");
    // Lists carry the events shape, with no kind per item.
    HttpResponse l = s.send("GET", kEvents);
    assert_int_equal(l.status, 200);
    assert_string_equal(at(l.body, {"apiVersion"}).c_str(), "events.k8s.io/v1");
    json::Document list = parse(l.body);
    const json::Value& item = list["items"][0];
    assert_null(json::member(item, "kind"));
    assert_string_equal(json::stringMember(item, "note").data(), "hello");
    // Protobuf too (kubectl's default).
    HttpResponse p =
        s.send("GET", kEvents, "", "application/json", "application/vnd.kubernetes.protobuf");
    assert_int_equal(p.status, 200);
    assert_true(p.body.find("hello") != std::string::npos);
    assert_true(p.body.find("events.k8s.io/v1") != std::string::npos);
}

void events_k8s_io_event_reads_at_core_v1_in_its_shape(void**) {
    Server s;
    HttpResponse r = s.send(
        "POST", kEvents,
        R"({"metadata":{"name":"e2"},"eventTime":"2024-01-01T00:00:00.000000Z",)"
        R"("reportingController":"ctl","reportingInstance":"ctl-1","action":"Act","reason":"Why",)"
        R"("regarding":{"kind":"Pod","namespace":"default","name":"p1"},"note":"hi","type":"Normal",)"
        R"("series":{"count":2,"lastObservedTime":"2024-01-01T00:00:05.000000Z"}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(at(r.body, {"apiVersion"}).c_str(), "events.k8s.io/v1");
    assert_string_equal(at(r.body, {"reportingController"}).c_str(), "ctl");
    assert_string_equal(at(r.body, {"deprecatedSource"}).c_str(), "{}");
    HttpResponse g = s.send("GET", std::string(kCoreEvents) + "/e2");
    assert_int_equal(g.status, 200);
    json::Document d = parse(g.body);
    d.EraseMember("metadata");
    assert_string_equal(
        json::serialize(d).c_str(),
        R"({"kind":"Event","apiVersion":"v1","involvedObject":{"kind":"Pod","namespace":"default","name":"p1"},)"
        R"("reason":"Why","message":"hi","source":{},"firstTimestamp":null,"lastTimestamp":null,)"
        R"("type":"Normal","eventTime":"2024-01-01T00:00:00.000000Z",)"
        R"("series":{"count":2,"lastObservedTime":"2024-01-01T00:00:05.000000Z"},"action":"Act",)"
        R"("reportingComponent":"ctl","reportingInstance":"ctl-1"})");
    // A patch applies to the events shape (the scheduler's series updates).
    HttpResponse p =
        s.send("PATCH", std::string(kEvents) + "/e2",
               R"({"series":{"count":3,"lastObservedTime":"2024-01-01T00:00:09.000000Z"}})",
               "application/strategic-merge-patch+json");
    assert_int_equal(p.status, 200);
    assert_string_equal(at(p.body, {"series", "count"}).c_str(), "3");
    assert_string_equal(
        at(s.send("GET", std::string(kCoreEvents) + "/e2").body, {"series", "count"}).c_str(), "3");
    // What the event says may not change through the events API.
    HttpResponse bad = s.send("PATCH", std::string(kEvents) + "/e2", R"({"note":"changed"})",
                              "application/merge-patch+json");
    assert_int_equal(bad.status, 422);
    assert_string_equal(causes(bad.body).c_str(),
                        "message: Invalid value: \"changed\": field is immutable\n");
}

void events_api_validation_is_stricter_than_core(void**) {
    Server s;
    HttpResponse r = s.send(
        "POST", kEvents,
        R"({"metadata":{"name":"bad2"},"regarding":{"namespace":"default"},"deprecatedCount":2,)"
        R"("deprecatedSource":{"component":"x"},"deprecatedFirstTimestamp":"2024-01-01T00:00:00Z",)"
        R"("deprecatedLastTimestamp":"2024-01-01T00:00:00Z","series":{"count":1},"type":"Foo"})");
    assert_int_equal(r.status, 422);
    assert_string_equal(at(r.body, {"message"}).substr(0, 24).c_str(),
                        "Event \"bad2\" is invalid:");
    assert_string_equal(at(r.body, {"details", "group"}).c_str(), "<absent>");
    assert_string_equal(causes(r.body).c_str(),
                        "series.count: Invalid value: \"\": should be at least 2\n"
                        "series.lastObservedTime: Required value\n"
                        "eventTime: Required value\n"
                        "type: Invalid value: \"\": has invalid value: Foo\n"
                        "firstTimestamp: Invalid value: \"\": needs to be unset\n"
                        "lastTimestamp: Invalid value: \"\": needs to be unset\n"
                        "count: Invalid value: \"\": needs to be unset\n"
                        "source: Invalid value: \"\": needs to be unset\n");
    // A new-style event names its reporting controller as its API version does.
    std::string body = R"({"metadata":{"name":"bad1"},"eventTime":"2024-01-01T00:00:00.000000Z",)"
                       R"("involvedObject":{"namespace":"default"}})";
    HttpResponse core = s.send("POST", kCoreEvents, body);
    assert_int_equal(core.status, 422);
    assert_true(causes(core.body).starts_with(
        "reportingComponent: Required value\n"
        "reportingComponent: Invalid value: \"\": name part must be non-empty\n"
        "reportingComponent: Invalid value: \"\": name part must consist of"));
    assert_true(
        causes(core.body).ends_with("[A-Za-z0-9]')\n"
                                    "reportingInstance: Required value\n"
                                    "action: Required value\n"
                                    "reason: Required value\n"));
    HttpResponse events = s.send(
        "POST", kEvents,
        R"({"metadata":{"name":"bad3"},"eventTime":"2024-01-01T00:00:00.000000Z",)"
        R"("reportingController":"a/b/c","reportingInstance":"i","action":"a","reason":"r","type":"Normal"})");
    assert_int_equal(events.status, 422);
    assert_true(
        causes(events.body)
            .starts_with(
                "reportingController: Invalid value: \"a/b/c\": a qualified name must consist of"));
}

void events_select_by_the_events_api_field_labels(void**) {
    Server s;
    for (const char* kind : {"Pod", "Node"}) {
        std::string body =
            std::string(R"({"metadata":{"generateName":"e-"},"involvedObject":{"kind":")") + kind +
            R"(","namespace":"default"},"reason":"R"})";
        assert_int_equal(s.send("POST", kCoreEvents, body).status, 201);
    }
    HttpResponse l = s.send("GET", std::string(kEvents) + "?fieldSelector=regarding.kind%3DNode");
    assert_int_equal(l.status, 200);
    json::Document d = parse(l.body);
    assert_int_equal(d["items"].Size(), 1);
    assert_string_equal(at(l.body, {"items"}).find("\"Node\"") != std::string::npos ? "ok" : "no",
                        "ok");
    // The core names are not the events API's.
    HttpResponse bad =
        s.send("GET", std::string(kEvents) + "?fieldSelector=involvedObject.kind%3DNode");
    assert_int_equal(bad.status, 400);
    assert_string_equal(at(bad.body, {"message"}).c_str(),
                        "field label not supported: involvedObject.kind");
    // The core API still selects by its own.
    HttpResponse core =
        s.send("GET", std::string(kCoreEvents) + "?fieldSelector=involvedObject.kind%3DPod");
    assert_int_equal(parse(core.body)["items"].Size(), 1);
}

std::string csrBody(const std::string& name, const std::string& request,
                    const std::string& signer = "kubernetes.io/kube-apiserver-client",
                    const std::string& extra = "") {
    return R"({"metadata":{"name":")" + name + R"("},"spec":{"request":")" + request +
           R"(","signerName":")" + signer + R"(","usages":["client auth"])" + extra + "}}";
}

void csr_records_who_asks_and_starts_pending(void**) {
    Server s;
    kube::authn::UserInfo alice{
        "alice", "u-1", {"devs", "system:authenticated"}, {{"scope", {"a"}}}};
    // Who asks is the server's to say, and nothing starts approved.
    std::string body =
        R"({"metadata":{"name":"c1"},"spec":{"request":")" + std::string(kDevRequest) +
        R"(","signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth"],)"
        R"("expirationSeconds":3600,"username":"mallory","groups":["system:masters"]},)"
        R"("status":{"conditions":[{"type":"Approved"}]}})";
    HttpResponse r = s.send("POST", kCSRs, body, "application/json", "application/json", &alice);
    assert_int_equal(r.status, 201);
    assert_string_equal(at(r.body, {"spec", "username"}).c_str(), "alice");
    assert_string_equal(at(r.body, {"spec", "uid"}).c_str(), "u-1");
    assert_string_equal(at(r.body, {"spec", "groups"}).c_str(),
                        R"(["devs","system:authenticated"])");
    assert_string_equal(at(r.body, {"spec", "extra"}).c_str(), R"({"scope":["a"]})");
    assert_string_equal(at(r.body, {"status"}).c_str(), "{}");
    HttpResponse t = s.send("GET", kCSRs, "", "application/json",
                            "application/json;as=Table;v=v1;g=meta.k8s.io");
    json::Document d = parse(t.body);
    std::string names;
    for (const json::Value& c : d["columnDefinitions"].GetArray()) {
        names += std::string(json::stringMember(c, "name")) + " ";
    }
    assert_string_equal(names.c_str(),
                        "Name Age SignerName Requestor RequestedDuration Condition ");
    const json::Value& cells = d["rows"][0]["cells"];
    assert_string_equal(json::serialize(cells[2]).c_str(),
                        "\"kubernetes.io/kube-apiserver-client\"");
    assert_string_equal(json::serialize(cells[3]).c_str(), "\"alice\"");
    assert_string_equal(json::serialize(cells[4]).c_str(), "\"60m\"");
    assert_string_equal(json::serialize(cells[5]).c_str(), "\"Pending\"");
}

void csr_checks_are_kubes(void**) {
    Server s;
    HttpResponse r =
        s.send("POST", kCSRs,
               R"({"metadata":{"name":"bad"},"spec":{"request":"aGVsbG8=","signerName":"foo",)"
               R"("usages":["bogus","client auth","client auth"],"expirationSeconds":10}})");
    assert_int_equal(r.status, 422);
    assert_string_equal(
        causes(r.body).c_str(),
        "spec.request: Invalid value: []byte{0x68, 0x65, 0x6c, 0x6c, 0x6f}: PEM block type must be "
        "CERTIFICATE REQUEST\n"
        "spec.usages[0]: Unsupported value: \"bogus\": supported values: \"any\", \"cert sign\", "
        "\"client auth\", \"code signing\", \"content commitment\", \"crl sign\", \"data "
        "encipherment\", \"decipher only\", \"digital signature\", \"email protection\", "
        "\"encipher only\", \"ipsec end system\", \"ipsec tunnel\", \"ipsec user\", \"key "
        "agreement\", \"key encipherment\", \"microsoft sgc\", \"netscape sgc\", \"ocsp signing\", "
        "\"s/mime\", \"server auth\", \"signing\", \"timestamping\"\n"
        "spec.usages[2]: Duplicate value: \"client auth\"\n"
        "spec.signerName: Invalid value: \"foo\": must be a fully qualified domain and path of the "
        "form 'example.com/signer-name'\n"
        "spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 600 "
        "seconds (10 minutes)\n");
    HttpResponse labels =
        s.send("POST", kCSRs, R"({"metadata":{"name":"bad"},"spec":{"signerName":"Ab/c_d"}})");
    assert_int_equal(labels.status, 422);
    assert_string_equal(
        causes(labels.body).c_str(),
        "spec.request: Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST\n"
        "spec.usages: Required value\n"
        "spec.signerName: Invalid value: \"Ab\": validating label \"Ab\": a lowercase RFC 1123 "
        "label must consist of lower case alphanumeric characters or '-', and must start and end "
        "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation "
        "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n"
        "spec.signerName: Invalid value: \"Ab\": should be a domain with at least two segments "
        "separated by dots\n"
        "spec.signerName: Invalid value: \"c_d\": validating label \"c_d\": a lowercase RFC 1123 "
        "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
        "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n");
    // CertificateSubjectRestriction.
    HttpResponse masters = s.send("POST", kCSRs, csrBody("root", kMastersRequest));
    assert_int_equal(masters.status, 403);
    assert_string_equal(at(masters.body, {"message"}).c_str(),
                        "certificatesigningrequests.certificates.k8s.io \"root\" is forbidden: use "
                        "of kubernetes.io/kube-apiserver-client signer with system:masters group "
                        "is not allowed");
}

void csr_approval_changes_only_conditions_and_status_only_the_certificate(void**) {
    Server s;
    assert_int_equal(s.send("POST", kCSRs, csrBody("c2", kDevRequest)).status, 201);
    json::Document csr = parse(s.send("GET", std::string(kCSRs) + "/c2").body);
    auto& a = csr.GetAllocator();
    // The approval: the condition is taken (status defaulted to True, times
    // filled); a changed signer is not.
    csr["spec"]["signerName"].SetString("example.com/other", a);
    json::Value cond(rapidjson::kObjectType);
    cond.AddMember("type", "Approved", a);
    cond.AddMember("reason", "Test", a);
    json::Value conds(rapidjson::kArrayType);
    conds.PushBack(cond, a);
    csr["status"].AddMember("conditions", conds, a);
    HttpResponse ap = s.send("PUT", std::string(kCSRs) + "/c2/approval", json::serialize(csr));
    assert_int_equal(ap.status, 200);
    assert_string_equal(at(ap.body, {"spec", "signerName"}).c_str(),
                        "kubernetes.io/kube-apiserver-client");
    json::Document approved = parse(ap.body);
    const json::Value& c = approved["status"]["conditions"][0];
    assert_string_equal(json::stringMember(c, "status").data(), "True");
    assert_false(json::stringMember(c, "lastUpdateTime").empty());
    assert_false(json::stringMember(c, "lastTransitionTime").empty());
    // Approved and Denied exclude each other.
    std::string both =
        R"({"metadata":{"name":"c2"},"spec":{"request":")" + std::string(kDevRequest) +
        R"(","signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth"]},)"
        R"("status":{"conditions":[{"type":"Approved","status":"True"},{"type":"Denied","status":"True"}]}})";
    HttpResponse bad = s.send("PUT", std::string(kCSRs) + "/c2/approval", both);
    assert_int_equal(bad.status, 422);
    assert_string_equal(causes(bad.body).c_str(),
                        "status.conditions[1].type: Invalid value: \"Denied\": Approved and Denied "
                        "conditions are mutually exclusive\n");
    // The status subresource keeps the approval and takes the certificate.
    HttpResponse st = s.send(
        "PATCH", std::string(kCSRs) + "/c2/status",
        R"({"status":{"conditions":[],"certificate":")" + std::string(kCertificate) + R"("}})",
        "application/merge-patch+json");
    assert_int_equal(st.status, 200);
    assert_string_equal(at(st.body, {"status", "conditions"}).find("Approved") != std::string::npos
                            ? "kept"
                            : "lost",
                        "kept");
    HttpResponse t = s.send("GET", std::string(kCSRs) + "/c2", "", "application/json",
                            "application/json;as=Table;v=v1;g=meta.k8s.io");
    assert_string_equal(json::serialize(parse(t.body)["rows"][0]["cells"][5]).c_str(),
                        "\"Approved,Issued\"");
    // Not a certificate.
    HttpResponse junk =
        s.send("PATCH", std::string(kCSRs) + "/c2/status",
               R"({"status":{"certificate":"aGVsbG8="}})", "application/merge-patch+json");
    assert_int_equal(junk.status, 422);
    assert_string_equal(
        causes(junk.body).c_str(),
        "status.certificate: Invalid value: \"<certificate data>\": must contain at "
        "least one CERTIFICATE PEM block\n"
        "status.certificate: Forbidden: updates may not modify existing certificate "
        "content\n");
}

void new_node_gets_the_not_ready_taint(void**) {
    Server s;
    HttpResponse r = s.send("POST", "/api/v1/nodes", R"({"metadata":{"name":"n1"}})");
    assert_int_equal(r.status, 201);
    assert_string_equal(at(r.body, {"spec", "taints"}).c_str(),
                        R"([{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}])");
    // Kept when already there; other taints stay.
    HttpResponse r2 =
        s.send("POST", "/api/v1/nodes",
               R"({"metadata":{"name":"n2"},"spec":{"taints":[{"key":"a","effect":"NoExecute"},)"
               R"({"key":"node.kubernetes.io/not-ready","value":"x","effect":"NoSchedule"}]}})");
    assert_int_equal(r2.status, 201);
    assert_string_equal(
        at(r2.body, {"spec", "taints"}).c_str(),
        R"([{"key":"a","effect":"NoExecute"},{"key":"node.kubernetes.io/not-ready","value":"x","effect":"NoSchedule"}])");
}

void discovery_lists_them_as_kube_does(void**) {
    Server s;
    json::Document events = parse(s.send("GET", "/apis/events.k8s.io/v1").body);
    const json::Value& ev = events["resources"][0];
    assert_string_equal(json::stringMember(ev, "name").data(), "events");
    assert_string_equal(json::serialize(ev["shortNames"]).c_str(), R"(["ev"])");
    // The hash of what is stored: core/v1 Events, as kube's discovery shows.
    assert_string_equal(json::stringMember(ev, "storageVersionHash").data(), "r2yiGXH7wu8=");
    json::Document csrs = parse(s.send("GET", "/apis/certificates.k8s.io/v1").body);
    std::string names;
    for (const json::Value& r : csrs["resources"].GetArray()) {
        names += std::string(json::stringMember(r, "name")) + " ";
    }
    assert_string_equal(names.c_str(),
                        "certificatesigningrequests certificatesigningrequests/approval "
                        "certificatesigningrequests/status ");
    assert_string_equal(json::stringMember(csrs["resources"][0], "storageVersionHash").data(),
                        "95fRKMXA+00=");
}

void events_k8s_io_is_applied_and_managed_in_its_own_shape(void**) {
    Server s;
    std::string name = std::string(kEvents) + "/ap";
    std::string body =
        "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: ap}\n"
        "eventTime: \"2024-01-01T00:00:00.000000Z\"\nreportingController: x.io/c\n"
        "reportingInstance: c-1\naction: Made\nreason: Made\nnote: hi\n"
        "type: Normal\nregarding: {kind: Pod, name: p1, namespace: default}\n";
    HttpResponse r =
        s.send("PATCH", name + "?fieldManager=ctl", body, "application/apply-patch+yaml");
    assert_int_equal(r.status, 201);
    json::Document d = parse(r.body);
    assert_string_equal(json::serialize(d["metadata"]["managedFields"][0]["apiVersion"]).c_str(),
                        R"("events.k8s.io/v1")");
    assert_string_equal(json::serialize(d["metadata"]["managedFields"][0]["fieldsV1"]).c_str(),
                        R"({"f:action":{},"f:eventTime":{},"f:note":{},"f:reason":{},)"
                        R"("f:regarding":{},"f:reportingController":{},"f:reportingInstance":{},)"
                        R"("f:type":{}})");
    // Kept in core's shape, the managers as they were recorded.
    HttpResponse core = s.send("GET", std::string(kCoreEvents) + "/ap");
    assert_string_equal(at(core.body, {"message"}).c_str(), "hi");
    assert_true(core.body.find(R"("manager":"ctl","operation":"Apply","apiVersion":)"
                               R"("events.k8s.io/v1")") != std::string::npos);
    // An update at events.k8s.io records the fields it changed in that shape.
    s.userAgent = "series/1.0";
    r = s.send("PATCH", name,
               R"({"series":{"count":2,"lastObservedTime":"2024-01-01T00:01:00.000000Z"}})",
               "application/merge-patch+json");
    assert_int_equal(r.status, 200);
    d = parse(r.body);
    assert_string_equal(
        json::serialize(d["metadata"]["managedFields"][1]).substr(0, 79).c_str(),
        R"({"manager":"series","operation":"Update","apiVersion":"events.k8s.io/v1",)"
        R"("time")");
    assert_true(json::serialize(d["metadata"]["managedFields"][1]["fieldsV1"]) ==
                R"({"f:series":{".":{},"f:count":{},"f:lastObservedTime":{}}})");
    // The same apply again changes nothing; a conflicting one is refused.
    r = s.send("PATCH", name + "?fieldManager=other",
               "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: ap}\nnote: bye\n",
               "application/apply-patch+yaml");
    assert_int_equal(r.status, 409);
    assert_string_equal(at(r.body, {"message"}).c_str(),
                        "Apply failed with 1 conflict: conflict with \"ctl\": .note");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(core_event_reads_at_events_k8s_io_in_its_shape),
        cmocka_unit_test(events_k8s_io_event_reads_at_core_v1_in_its_shape),
        cmocka_unit_test(events_api_validation_is_stricter_than_core),
        cmocka_unit_test(events_select_by_the_events_api_field_labels),
        cmocka_unit_test(events_k8s_io_is_applied_and_managed_in_its_own_shape),
        cmocka_unit_test(csr_records_who_asks_and_starts_pending),
        cmocka_unit_test(csr_checks_are_kubes),
        cmocka_unit_test(csr_approval_changes_only_conditions_and_status_only_the_certificate),
        cmocka_unit_test(new_node_gets_the_not_ready_taint),
        cmocka_unit_test(discovery_lists_them_as_kube_does),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
