#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "registry/scheme.hpp"
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

#include "json_reading.hpp"
#include "kind_calls.hpp"

namespace json = kube::util::json;
using kube::meta::StatusCause;
using kube::registry::KindInfo;
using kube::registry::TableColumn;

namespace {

// What the kinds' unit tests share (kind_calls.hpp).
auto& scheme = kube::testing::builtinScheme;
auto& kind = kube::testing::builtinKind;
auto& cell = kube::testing::tableCell;
auto& create = kube::testing::runCreate;

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

std::string at(const json::Value& obj, std::initializer_list<std::string_view> path) {
    const json::Value* v = json::at(obj, path);
    return v ? json::serialize(*v) : "<absent>";
}

const StatusCause* findCause(const std::vector<StatusCause>& causes, std::string_view field) {
    for (const StatusCause& c : causes) {
        if (c.field == field) {
            return &c;
        }
    }
    return nullptr;
}

void builtin_kinds_are_registered_in_kube_group_order(void**) {
    const auto& groups = scheme().groups();
    std::vector<std::string> names;
    for (const auto& g : groups) {
        names.push_back(g.name);
    }
    assert_true(names == kube::testing::kubeGroupOrder());
    assert_int_equal(scheme().all().size(), 64);
    std::set<std::string> resources;
    for (const auto& k : scheme().all()) {
        assert_true(resources.insert(k->group + "/" + k->version + "/" + k->resource).second);
        if (k->storage == kube::registry::KindStorage::Review) {
            continue;  // their singular names are as kube's discovery lists them
        }
        assert_string_equal(k->singular.c_str(),
                            [&] {
                                std::string s = k->kind;
                                for (char& c : s) {
                                    c = static_cast<char>(tolower(c));
                                }
                                return s;
                            }()
                                .c_str());
    }
    // Alphabetical inside a group-version, like discovery.
    auto core = scheme().kinds("", "v1");
    for (size_t i = 1; i < core.size(); i++) {
        assert_true(core[i - 1]->resource < core[i]->resource);
    }
}

void every_kind_has_a_name_column_and_an_age(void**) {
    for (const auto& k : scheme().all()) {
        if (k->storage == kube::registry::KindStorage::Review) {
            continue;  // never listed
        }
        assert_false(k->columns.empty());
        int names = 0;
        bool age = false;
        for (const TableColumn& c : k->columns) {
            names += c.format == "name" ? 1 : 0;
            if (c.format == "name" && names == 1) {
                assert_string_equal(c.name.c_str(), "Name");
                assert_string_equal(c.type.c_str(), "string");
            }
            age = age || c.name == "Age" || c.name == "Created At" || c.name == "Last Seen";
            assert_true(static_cast<bool>(c.cell));
        }
        // kube's VolumeAttachment printer marks its Attacher column a name too.
        assert_int_equal(names, k->kind == "VolumeAttachment" ? 2 : 1);
        // kube's PodTemplate and ComponentStatus printers show no age.
        assert_true(age || k->kind == "PodTemplate" || k->kind == "ComponentStatus");
        // kube's printers lead with Name, except the event printer.
        if (k->kind != "Event") {
            assert_string_equal(k->columns[0].name.c_str(), "Name");
        }
    }
}

void short_names_categories_and_verbs_match_kube_discovery(void**) {
    struct Want {
        const char* group;
        const char* resource;
        std::vector<std::string> shortNames;
        bool all;
    } wants[] = {
        {"", "configmaps", {"cm"}, false},
        {"", "namespaces", {"ns"}, false},
        {"", "pods", {"po"}, true},
        {"", "services", {"svc"}, true},
        {"", "endpoints", {"ep"}, false},
        {"", "nodes", {"no"}, false},
        {"", "persistentvolumeclaims", {"pvc"}, false},
        {"", "persistentvolumes", {"pv"}, false},
        {"", "serviceaccounts", {"sa"}, false},
        {"", "events", {"ev"}, false},
        {"", "secrets", {}, false},
        {"apps", "deployments", {"deploy"}, true},
        {"apps", "replicasets", {"rs"}, true},
        {"apps", "statefulsets", {"sts"}, true},
        {"apps", "daemonsets", {"ds"}, true},
        {"batch", "cronjobs", {"cj"}, true},
        {"batch", "jobs", {}, true},
        {"coordination.k8s.io", "leases", {}, false},
        {"rbac.authorization.k8s.io", "roles", {}, false},
        {"", "resourcequotas", {"quota"}, false},
        {"scheduling.k8s.io", "priorityclasses", {"pc"}, false},
        {"policy", "poddisruptionbudgets", {"pdb"}, false},
        {"networking.k8s.io", "ingresses", {"ing"}, false},
        {"", "replicationcontrollers", {"rc"}, true},
        {"storage.k8s.io", "storageclasses", {"sc"}, false},
        {"storage.k8s.io", "csidrivers", {}, false},
        {"storage.k8s.io", "csinodes", {}, false},
        {"events.k8s.io", "events", {"ev"}, false},
        {"certificates.k8s.io", "certificatesigningrequests", {"csr"}, false},
    };
    for (const Want& w : wants) {
        const KindInfo& k = kind(w.group, w.resource);
        assert_true(k.shortNames == w.shortNames);
        assert_int_equal(k.categories.size(), w.all ? 1 : 0);
    }
    const KindInfo& ns = kind("", "namespaces");
    assert_false(ns.namespaced);
    assert_int_equal(ns.verbs.size(), 7);
    assert_int_equal(kind("", "configmaps").verbs.size(), 8);
    assert_true(ns.nameRule == kube::registry::NameRule::DNS1123Label);
    assert_true(kind("", "services").nameRule == kube::registry::NameRule::DNS1035Label);
    assert_true(kind("rbac.authorization.k8s.io", "clusterroles").nameRule ==
                kube::registry::NameRule::PathSegment);
    assert_true(kind("apps", "deployments").tracksGeneration);
    assert_false(kind("", "configmaps").tracksGeneration);
    assert_true(kind("batch", "jobs").statusIsSubresource());
    assert_false(kind("", "secrets").statusIsSubresource());
}

void configmap_data_cell_counts_data_and_binary_data(void**) {
    json::Document cm =
        parse(R"({"metadata":{"name":"a","creationTimestamp":"2026-11-21T23:50:01Z"},)"
              R"("data":{"x":"1","y":"2"},"binaryData":{"z":"AA=="}})");
    const KindInfo& k = kind("", "configmaps");
    assert_string_equal(cell(k, "Name", cm).c_str(), "\"a\"");
    assert_string_equal(cell(k, "Data", cm).c_str(), "3");
    assert_string_equal(cell(k, "Age", cm).c_str(), "\"5m\"");
}

void deployment_cells_show_ready_of_desired_and_integer_counts(void**) {
    json::Document d =
        parse(R"({"metadata":{"name":"web","creationTimestamp":"2026-11-19T20:55:01Z"},)"
              R"("spec":{"replicas":3,"selector":{"matchLabels":{"app":"web","tier":"fe"}},)"
              R"("template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.25"},)"
              R"({"name":"side","image":"busybox"}]}}},)"
              R"("status":{"readyReplicas":1,"updatedReplicas":2,"availableReplicas":1}})");
    const KindInfo& k = kind("apps", "deployments");
    assert_string_equal(cell(k, "Ready", d).c_str(), "\"1/3\"");
    assert_string_equal(cell(k, "Up-to-date", d).c_str(), "2");
    assert_string_equal(cell(k, "Available", d).c_str(), "1");
    assert_string_equal(cell(k, "Age", d).c_str(), "\"2d3h\"");
    assert_string_equal(cell(k, "Containers", d).c_str(), "\"nginx,side\"");
    assert_string_equal(cell(k, "Images", d).c_str(), "\"nginx:1.25,busybox\"");
    assert_string_equal(cell(k, "Selector", d).c_str(), "\"app=web,tier=fe\"");
}

void pod_cells_follow_the_printer_reason_logic(void**) {
    const KindInfo& k = kind("", "pods");
    json::Document crash = parse(
        R"({"metadata":{"name":"p","creationTimestamp":"2026-11-21T23:00:01Z"},)"
        R"("spec":{"containers":[{"name":"a"},{"name":"b"}]},)"
        R"("status":{"phase":"Running","podIP":"10.0.0.7","containerStatuses":[)"
        R"({"name":"a","ready":true,"restartCount":0,"state":{"running":{}}},)"
        R"({"name":"b","ready":false,"restartCount":3,)"
        R"("state":{"waiting":{"reason":"CrashLoopBackOff"}},)"
        R"("lastState":{"terminated":{"exitCode":1,"finishedAt":"2026-11-21T23:50:01Z"}}}]}})");
    assert_string_equal(cell(k, "Ready", crash).c_str(), "\"1/2\"");
    assert_string_equal(cell(k, "Status", crash).c_str(), "\"CrashLoopBackOff\"");
    assert_string_equal(cell(k, "Restarts", crash).c_str(), "\"3 (5m ago)\"");
    assert_string_equal(cell(k, "IP", crash).c_str(), "\"10.0.0.7\"");
    assert_string_equal(cell(k, "Node", crash).c_str(), "\"<none>\"");
    assert_string_equal(cell(k, "Readiness Gates", crash).c_str(), "\"<none>\"");

    json::Document pending =
        parse(R"({"metadata":{"name":"p","deletionTimestamp":"2026-11-21T23:55:00Z"},)"
              R"("spec":{"containers":[{"name":"a"}]},"status":{"phase":"Pending"}})");
    assert_string_equal(cell(k, "Status", pending).c_str(), "\"Terminating\"");
    assert_string_equal(cell(k, "Restarts", pending).c_str(), "\"0\"");

    json::Document init = parse(
        R"({"metadata":{"name":"p"},"spec":{"initContainers":[{"name":"i"}],)"
        R"("containers":[{"name":"a"}]},"status":{"phase":"Pending","initContainerStatuses":[)"
        R"({"name":"i","state":{"waiting":{"reason":"PodInitializing"}}}]}})");
    assert_string_equal(cell(k, "Status", init).c_str(), "\"Init:0/1\"");
    assert_string_equal(cell(k, "Ready", init).c_str(), "\"0/1\"");

    json::Document done =
        parse(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"a"}]},)"
              R"("status":{"phase":"Succeeded","containerStatuses":[{"name":"a",)"
              R"("state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}})");
    assert_string_equal(cell(k, "Status", done).c_str(), "\"Completed\"");
}

void service_ports_cell_lists_port_and_protocol(void**) {
    const KindInfo& k = kind("", "services");
    json::Document svc =
        parse(R"({"metadata":{"name":"s"},"spec":{"type":"ClusterIP","clusterIPs":["10.96.0.10"],)"
              R"("ports":[{"port":80,"protocol":"TCP"},{"port":443,"protocol":"TCP"}],)"
              R"("selector":{"app":"web"}}})");
    assert_string_equal(cell(k, "Port(s)", svc).c_str(), "\"80/TCP,443/TCP\"");
    assert_string_equal(cell(k, "Cluster-IP", svc).c_str(), "\"10.96.0.10\"");
    assert_string_equal(cell(k, "External-IP", svc).c_str(), "\"<none>\"");
    assert_string_equal(cell(k, "Selector", svc).c_str(), "\"app=web\"");
    json::Document lb = parse(R"({"metadata":{"name":"s"},"spec":{"type":"LoadBalancer",)"
                              R"("ports":[{"port":80,"nodePort":30080,"protocol":"TCP"}]}})");
    assert_string_equal(cell(k, "Port(s)", lb).c_str(), "\"80:30080/TCP\"");
    assert_string_equal(cell(k, "External-IP", lb).c_str(), "\"<pending>\"");
    assert_string_equal(cell(k, "Cluster-IP", lb).c_str(), "\"<none>\"");
}

void deployment_defaults_mirror_set_defaults_deployment(void**) {
    json::Document d =
        parse(R"({"metadata":{"name":"web","namespace":"ns"},)"
              R"("spec":{"selector":{"matchLabels":{"app":"web"}},)"
              R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[)"
              R"({"name":"a","image":"nginx","ports":[{"containerPort":80}]},)"
              R"({"name":"b","image":"nginx:1.25"}]}}}})");
    std::vector<StatusCause> causes = create(kind("apps", "deployments"), d);
    assert_int_equal(causes.size(), 0);
    assert_string_equal(at(d, {"spec", "replicas"}).c_str(), "1");
    assert_string_equal(
        at(d, {"spec", "strategy"}).c_str(),
        R"({"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}})");
    assert_string_equal(at(d, {"spec", "revisionHistoryLimit"}).c_str(), "10");
    assert_string_equal(at(d, {"spec", "progressDeadlineSeconds"}).c_str(), "600");
    assert_string_equal(at(d, {"status"}).c_str(), "{}");
    const json::Value& spec = d["spec"]["template"]["spec"];
    assert_string_equal(at(spec, {"restartPolicy"}).c_str(), "\"Always\"");
    assert_string_equal(at(spec, {"dnsPolicy"}).c_str(), "\"ClusterFirst\"");
    assert_string_equal(at(spec, {"terminationGracePeriodSeconds"}).c_str(), "30");
    assert_string_equal(at(spec, {"schedulerName"}).c_str(), "\"default-scheduler\"");
    assert_string_equal(at(spec, {"securityContext"}).c_str(), "{}");
    assert_string_equal(at(spec, {"enableServiceLinks"}).c_str(), "<absent>");
    const json::Value& a = spec["containers"][0];
    const json::Value& b = spec["containers"][1];
    assert_string_equal(at(a, {"imagePullPolicy"}).c_str(), "\"Always\"");
    assert_string_equal(at(b, {"imagePullPolicy"}).c_str(), "\"IfNotPresent\"");
    assert_string_equal(at(a, {"terminationMessagePath"}).c_str(), "\"/dev/termination-log\"");
    assert_string_equal(at(a, {"terminationMessagePolicy"}).c_str(), "\"File\"");
    assert_string_equal(at(a, {"ports"}).c_str(), R"([{"containerPort":80,"protocol":"TCP"}])");
}

void recreate_strategy_gets_no_rolling_update_defaults(void**) {
    json::Document d = parse(R"({"spec":{"strategy":{"type":"Recreate"}}})");
    kind("apps", "deployments").defaults(d, d.GetAllocator());
    assert_string_equal(at(d, {"spec", "strategy"}).c_str(), R"({"type":"Recreate"})");
}

void service_and_secret_defaults(void**) {
    json::Document svc = parse(R"({"metadata":{"name":"s"},"spec":{"ports":[{"port":80}]}})");
    assert_int_equal(create(kind("", "services"), svc).size(), 0);
    assert_string_equal(at(svc, {"spec", "type"}).c_str(), "\"ClusterIP\"");
    assert_string_equal(at(svc, {"spec", "sessionAffinity"}).c_str(), "\"None\"");
    assert_string_equal(at(svc, {"spec", "ports"}).c_str(),
                        R"([{"port":80,"protocol":"TCP","targetPort":80}])");
    assert_string_equal(at(svc, {"status"}).c_str(), R"({"loadBalancer":{}})");

    json::Document secret = parse(R"({"metadata":{"name":"s"},"data":{"a":"eA=="},)"
                                  R"("stringData":{"b":"hello","a":"hi!"}})");
    assert_int_equal(create(kind("", "secrets"), secret).size(), 0);
    assert_string_equal(at(secret, {"type"}).c_str(), "\"Opaque\"");
    assert_string_equal(at(secret, {"data"}).c_str(), R"({"a":"aGkh","b":"aGVsbG8="})");
    assert_string_equal(at(secret, {"stringData"}).c_str(), "<absent>");
}

void namespace_prepare_for_create_labels_finalizes_and_activates(void**) {
    json::Document ns = parse(R"({"metadata":{"name":"wire"},"status":{"phase":"Terminating"}})");
    const KindInfo& k = kind("", "namespaces");
    assert_int_equal(create(k, ns).size(), 0);
    assert_string_equal(at(ns, {"metadata", "labels"}).c_str(),
                        R"({"kubernetes.io/metadata.name":"wire"})");
    assert_string_equal(at(ns, {"spec", "finalizers"}).c_str(), R"(["kubernetes"])");
    assert_string_equal(at(ns, {"status"}).c_str(), R"({"phase":"Active"})");
    assert_string_equal(cell(k, "Status", ns).c_str(), "\"Active\"");

    json::Document other = parse(R"({"metadata":{"name":"x"},"spec":{"finalizers":["a/b"]}})");
    k.prepareForCreate(other, other.GetAllocator());
    assert_string_equal(at(other, {"spec", "finalizers"}).c_str(), R"(["a/b","kubernetes"])");
}

void pod_prepare_for_create_sets_pending_and_qos(void**) {
    const KindInfo& k = kind("", "pods");
    json::Document best = parse(R"({"metadata":{"name":"p"},"spec":{"containers":[)"
                                R"({"name":"a","image":"x"}]},"status":{"phase":"Running"}})");
    assert_int_equal(create(k, best).size(), 0);
    assert_string_equal(at(best, {"status"}).c_str(),
                        R"({"phase":"Pending","qosClass":"BestEffort"})");
    assert_string_equal(at(best, {"spec", "enableServiceLinks"}).c_str(), "true");

    json::Document guaranteed =
        parse(R"({"spec":{"containers":[{"name":"a","image":"x",)"
              R"("resources":{"limits":{"cpu":"500m","memory":"128Mi"}}}]}})");
    create(k, guaranteed);
    assert_string_equal(at(guaranteed, {"status", "qosClass"}).c_str(), "\"Guaranteed\"");
    // SetDefaults_Pod: requests default to the limits.
    assert_string_equal(at(guaranteed["spec"]["containers"][0], {"resources", "requests"}).c_str(),
                        R"({"cpu":"500m","memory":"128Mi"})");

    json::Document burstable = parse(R"({"spec":{"containers":[{"name":"a","image":"x",)"
                                     R"("resources":{"requests":{"cpu":"1"}}}]}})");
    create(k, burstable);
    assert_string_equal(at(burstable, {"status", "qosClass"}).c_str(), "\"Burstable\"");
}

void job_prepare_for_create_generates_its_selector(void**) {
    const KindInfo& k = kind("batch", "jobs");
    json::Document job =
        parse(R"({"metadata":{"name":"pi","uid":"u-1"},"spec":{"template":{"spec":{)"
              R"("restartPolicy":"Never","containers":[{"name":"pi","image":"perl"}]}}}})");
    assert_int_equal(create(k, job).size(), 0);
    assert_string_equal(at(job, {"spec", "selector"}).c_str(),
                        R"({"matchLabels":{"batch.kubernetes.io/controller-uid":"u-1"}})");
    assert_string_equal(at(job, {"spec", "template", "metadata", "labels"}).c_str(),
                        R"({"job-name":"pi","batch.kubernetes.io/job-name":"pi",)"
                        R"("controller-uid":"u-1","batch.kubernetes.io/controller-uid":"u-1"})");
    assert_string_equal(at(job, {"metadata", "labels", "job-name"}).c_str(), "\"pi\"");
    assert_string_equal(at(job, {"spec", "completions"}).c_str(), "1");
    assert_string_equal(at(job, {"spec", "parallelism"}).c_str(), "1");
    assert_string_equal(at(job, {"spec", "backoffLimit"}).c_str(), "6");
    assert_string_equal(at(job, {"spec", "completionMode"}).c_str(), "\"NonIndexed\"");
    assert_string_equal(at(job, {"spec", "manualSelector"}).c_str(), "false");
    assert_string_equal(cell(k, "Status", job).c_str(), "\"Running\"");
    assert_string_equal(cell(k, "Completions", job).c_str(), "\"0/1\"");
}

void deployment_selector_mismatch_is_reported_like_kube(void**) {
    json::Document d =
        parse(R"({"metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"api"}},)"
              R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[)"
              R"({"name":"a","image":"nginx"}]}}}})");
    std::vector<StatusCause> causes = create(kind("apps", "deployments"), d);
    assert_int_equal(causes.size(), 1);
    assert_string_equal(causes[0].reason.c_str(), "FieldValueInvalid");
    assert_string_equal(causes[0].field.c_str(), "spec.template.metadata.labels");
    assert_string_equal(causes[0].message.c_str(),
                        "Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not "
                        "match template `labels`");

    json::Document none = parse(
        R"({"metadata":{"name":"web"},"spec":{"template":{"metadata":{"labels":{"app":"web"}},)"
        R"("spec":{"containers":[{"name":"a"}]}}}})");
    causes = create(kind("apps", "deployments"), none);
    const StatusCause* sel = findCause(causes, "spec.selector");
    assert_non_null(sel);
    assert_string_equal(sel->message.c_str(), "Required value");
    assert_non_null(findCause(causes, "spec.template.metadata.labels"));
    const StatusCause* image = findCause(causes, "spec.template.spec.containers[0].image");
    assert_non_null(image);
    assert_string_equal(image->reason.c_str(), "FieldValueRequired");
}

// What kube-apiserver 1.26.5 answers for selectors LabelSelectorAsSelector
// refuses: ValidateLabelSelector's errors, then the selector itself (%#v)
// with the kind's detail, and no template check (no 500 on a missing key).
void workload_selectors_without_key_or_operator_are_422_as_kube(void**) {
    auto workload = [](const char* selector) {
        return R"({"metadata":{"name":"w"},"spec":{"selector":)" + std::string(selector) +
               R"(,"template":{"metadata":{"labels":{"app":"w"}},"spec":{"containers":[)"
               R"({"name":"c","image":"nginx"}]}}}})";
    };
    const std::string name =
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
        "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    json::Document d = parse(
        workload(
            R"({"matchLabels":{"app":"w"},"matchExpressions":[{"operator":"In","values":["w"]}]})")
            .c_str());
    std::vector<StatusCause> causes = create(kind("apps", "deployments"), d);
    std::vector<std::string> got;
    for (const StatusCause& c : causes) {
        got.push_back(c.field + ": " + c.message);
    }
    std::vector<std::string> want = {
        "spec.selector.matchExpressions[0].key: Invalid value: \"\": name part must be non-empty",
        "spec.selector.matchExpressions[0].key: Invalid value: \"\": " + name,
        "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":"
        "\"w\"}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{"
        "Key:\"\", Operator:\"In\", Values:[]string{\"w\"}}}}: invalid label selector"};
    assert_true(got == want);

    // A null item, and values with Exists; a StatefulSet's detail is empty,
    // a DaemonSet reports no selector error of its own.
    d = parse(workload(R"({"matchLabels":{"app":"w"},"matchExpressions":[null]})").c_str());
    causes = create(kind("apps", "statefulsets"), d);
    const StatusCause* op = findCause(causes, "spec.selector.matchExpressions[0].operator");
    assert_non_null(op);
    assert_string_equal(op->message.c_str(), "Invalid value: \"\": not a valid selector operator");
    assert_string_equal(
        causes.back().message.c_str(),
        "Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":"
        "\"w\"}, MatchExpressions:[]v1.LabelSelectorRequirement{v1."
        "LabelSelectorRequirement{Key:\"\", Operator:\"\", Values:[]string(nil)}}}");
    d = parse(workload(R"({"matchLabels":{"app":"w"},"matchExpressions":[{"key":"app",)"
                       R"("operator":"Exists","values":["w"]}]})")
                  .c_str());
    causes = create(kind("apps", "daemonsets"), d);
    assert_int_equal(causes.size(), 1);
    assert_string_equal(causes[0].field.c_str(), "spec.selector.matchExpressions[0].values");
    assert_string_equal(causes[0].message.c_str(),
                        "Forbidden: may not be specified when `operator` is 'Exists' or "
                        "'DoesNotExist'");

    // An empty selector prints its nil members.
    d = parse(workload("{}").c_str());
    causes = create(kind("apps", "replicasets"), d);
    assert_int_equal(causes.size(), 1);
    assert_string_equal(causes[0].message.c_str(),
                        "Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
                        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is "
                        "invalid for deployment");
}

void kind_validation_reports_kube_messages(void**) {
    json::Document job = parse(R"({"metadata":{"name":"j","uid":"u"},"spec":{"template":{"spec":{)"
                               R"("containers":[{"name":"c","image":"x"}]}}}})");
    std::vector<StatusCause> causes = create(kind("batch", "jobs"), job);
    const StatusCause* rp = findCause(causes, "spec.template.spec.restartPolicy");
    assert_non_null(rp);
    assert_string_equal(rp->reason.c_str(), "FieldValueNotSupported");
    assert_string_equal(
        rp->message.c_str(),
        "Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\"");

    json::Document cm = parse(R"({"metadata":{"name":"c"},"data":{"bad key":"v"}})");
    causes = create(kind("", "configmaps"), cm);
    assert_int_equal(causes.size(), 1);
    assert_string_equal(causes[0].field.c_str(), "data[bad key]");
    assert_string_equal(
        causes[0].message.c_str(),
        "Invalid value: \"bad key\": a valid config key must consist of alphanumeric "
        "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
        "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");

    json::Document role = parse(R"({"metadata":{"name":"r"},"rules":[{"apiGroups":[""],)"
                                R"("resources":["pods"]}]})");
    causes = create(kind("rbac.authorization.k8s.io", "roles"), role);
    assert_int_equal(causes.size(), 1);
    assert_string_equal(causes[0].field.c_str(), "rules[0].verbs");
    assert_string_equal(causes[0].message.c_str(),
                        "Required value: verbs must contain at least one value");

    json::Document svc = parse(R"({"metadata":{"name":"s"},"spec":{}})");
    causes = create(kind("", "services"), svc);
    assert_non_null(findCause(causes, "spec.ports"));

    json::Document binding =
        parse(R"({"metadata":{"name":"b"},"roleRef":{"kind":"Role","name":"r"},)"
              R"("subjects":[{"kind":"User","name":"alice"}]})");
    assert_int_equal(
        create(kind("rbac.authorization.k8s.io", "clusterrolebindings"), binding).size(), 1);
    assert_string_equal(at(binding["subjects"][0], {"apiGroup"}).c_str(),
                        "\"rbac.authorization.k8s.io\"");
    causes = create(kind("rbac.authorization.k8s.io", "clusterrolebindings"), binding);
    const StatusCause* roleKind = findCause(causes, "roleRef.kind");
    assert_non_null(roleKind);
    assert_string_equal(roleKind->message.c_str(),
                        "Unsupported value: \"Role\": supported values: \"ClusterRole\"");
    assert_string_equal(at(binding, {"roleRef", "apiGroup"}).c_str(),
                        "\"rbac.authorization.k8s.io\"");
}

void rbac_tables_use_created_at_and_subject_columns(void**) {
    json::Document role =
        parse(R"({"metadata":{"name":"r","creationTimestamp":"2026-11-21T23:55:01Z"}})");
    const KindInfo& r = kind("rbac.authorization.k8s.io", "roles");
    assert_string_equal(cell(r, "Created At", role).c_str(), "\"2026-11-21T23:55:01Z\"");
    json::Document binding =
        parse(R"({"metadata":{"name":"b"},"roleRef":{"kind":"ClusterRole","name":"view"},)"
              R"("subjects":[{"kind":"User","name":"alice"},{"kind":"ServiceAccount","name":"sa",)"
              R"("namespace":"ns"},{"kind":"User","name":"bob"}]})");
    const KindInfo& b = kind("rbac.authorization.k8s.io", "rolebindings");
    assert_string_equal(cell(b, "Role", binding).c_str(), "\"ClusterRole/view\"");
    assert_string_equal(cell(b, "Users", binding).c_str(), "\"alice, bob\"");
    assert_string_equal(cell(b, "ServiceAccounts", binding).c_str(), "\"ns/sa\"");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_kinds_are_registered_in_kube_group_order),
        cmocka_unit_test(every_kind_has_a_name_column_and_an_age),
        cmocka_unit_test(short_names_categories_and_verbs_match_kube_discovery),
        cmocka_unit_test(configmap_data_cell_counts_data_and_binary_data),
        cmocka_unit_test(deployment_cells_show_ready_of_desired_and_integer_counts),
        cmocka_unit_test(pod_cells_follow_the_printer_reason_logic),
        cmocka_unit_test(service_ports_cell_lists_port_and_protocol),
        cmocka_unit_test(deployment_defaults_mirror_set_defaults_deployment),
        cmocka_unit_test(recreate_strategy_gets_no_rolling_update_defaults),
        cmocka_unit_test(service_and_secret_defaults),
        cmocka_unit_test(namespace_prepare_for_create_labels_finalizes_and_activates),
        cmocka_unit_test(pod_prepare_for_create_sets_pending_and_qos),
        cmocka_unit_test(job_prepare_for_create_generates_its_selector),
        cmocka_unit_test(deployment_selector_mismatch_is_reported_like_kube),
        cmocka_unit_test(workload_selectors_without_key_or_operator_are_422_as_kube),
        cmocka_unit_test(kind_validation_reports_kube_messages),
        cmocka_unit_test(rbac_tables_use_created_at_and_subject_columns),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
