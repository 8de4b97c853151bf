#include <string>
#include <vector>

#include "admission/quota_evaluator.hpp"
#include "admission/resource_quota.hpp"
#include "fake_loop.hpp"
#include "registry/encoding.hpp"
#include "registry/scheme.hpp"
#include "storage/cacher/cacher.hpp"
#include "storage/memory/memory_store.hpp"
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

using namespace kube;
namespace json = util::json;
namespace quota = admission::quota;

namespace {

struct Kinds {
    registry::Scheme scheme;
    Kinds() { registry::addBuiltinKinds(scheme); }
    const registry::KindInfo& kind(const char* group, const char* resource) {
        return *scheme.find(group, "v1", resource);
    }
};

// The JSON reader every unit test shares.
auto& parse = kube::testing::parseJson;

// A quota named `name` whose status holds `hard` and `used` (JSON objects).
struct QuotaDoc {
    json::Document doc;
    quota::Quota q;
    QuotaDoc(const std::string& name, const std::string& hard, const std::string& used,
             const std::string& spec = "{}")
        : doc(parse(R"({"metadata":{"name":")" + name + R"("},"spec":)" + spec + "}")) {
        json::Document h = parse(hard), u = parse(used);
        q.name = name;
        q.object = &doc;
        q.hard = admission::resources::listOf(&h);
        q.used = admission::resources::listOf(&u);
    }
};

std::string pod(const std::string& containers, const std::string& extra = "") {
    return R"({"metadata":{"name":"p"},"spec":{)" + extra + R"("containers":)" + containers + "}}";
}

void pod_usage_sums_containers_and_counts_the_pod(void**) {
    Kinds k;
    json::Document p = parse(pod(
        R"([{"name":"a","resources":{"requests":{"cpu":"250m","memory":"64Mi"},"limits":{"cpu":"1"}}},)"
        R"({"name":"b","resources":{"requests":{"cpu":"250m","memory":"64Mi"}}}])"));
    quota::List u = quota::usage(k.kind("", "pods"), p);
    assert_string_equal(quota::prettyPrint(u).c_str(),
                        "count/pods=1,cpu=500m,limits.cpu=1,memory=128Mi,pods=1,"
                        "requests.cpu=500m,requests.memory=128Mi");
    // A pod that ran to its end keeps only its object count.
    json::Document done = parse(R"({"spec":{"containers":[{"name":"a","resources":{"requests":)"
                                R"({"cpu":"1"}}}]},"status":{"phase":"Succeeded"}})");
    assert_string_equal(quota::prettyPrint(quota::usage(k.kind("", "pods"), done)).c_str(),
                        "count/pods=1");
}

void services_count_load_balancers_and_node_ports(void**) {
    Kinds k;
    const registry::KindInfo& svc = k.kind("", "services");
    json::Document lb =
        parse(R"({"spec":{"type":"LoadBalancer","ports":[{"port":80},{"port":81}]}})");
    assert_string_equal(
        quota::prettyPrint(quota::usage(svc, lb)).c_str(),
        "count/services=1,services=1,services.loadbalancers=1,services.nodeports=2");
    json::Document ip = parse(R"({"spec":{"ports":[{"port":80}]}})");
    assert_string_equal(
        quota::prettyPrint(quota::usage(svc, ip)).c_str(),
        "count/services=1,services=1,services.loadbalancers=0,services.nodeports=0");
}

void claims_count_storage_also_per_class(void**) {
    Kinds k;
    json::Document c = parse(R"({"spec":{"storageClassName":"fast","resources":{"requests":)"
                             R"({"storage":"2Gi"}}}})");
    assert_string_equal(
        quota::prettyPrint(quota::usage(k.kind("", "persistentvolumeclaims"), c)).c_str(),
        "count/persistentvolumeclaims=1,fast.storageclass.storage.k8s.io/persistentvolumeclaims=1,"
        "fast.storageclass.storage.k8s.io/requests.storage=2Gi,persistentvolumeclaims=1,"
        "requests.storage=2Gi");
}

void other_kinds_have_an_object_count(void**) {
    Kinds k;
    json::Document d = parse("{}");
    assert_string_equal(
        quota::prettyPrint(quota::usage(*k.scheme.find("apps", "v1", "deployments"), d)).c_str(),
        "count/deployments.apps=1");
    assert_string_equal(quota::prettyPrint(quota::usage(k.kind("", "configmaps"), d)).c_str(),
                        "configmaps=1,count/configmaps=1");
}

void exceeding_a_quota_names_what_was_asked_used_and_limited(void**) {
    Kinds k;
    QuotaDoc q("q", R"({"configmaps":"2","pods":"5"})", R"({"configmaps":"2","pods":"0"})");
    std::vector<quota::Quota> quotas{q.q};
    json::Document cm = parse(R"({"metadata":{"name":"c"}})");
    std::optional<std::string> refused =
        quota::check(k.kind("", "configmaps"), cm, nullptr, quotas);
    assert_true(refused.has_value());
    assert_string_equal(refused->c_str(),
                        "exceeded quota: q, requested: configmaps=1, used: "
                        "configmaps=2, limited: configmaps=2");
    assert_false(quotas[0].changed);
}

void an_admitted_write_is_charged_to_every_matching_quota(void**) {
    Kinds k;
    QuotaDoc a("a", R"({"requests.memory":"1Gi","pods":"2"})",
               R"({"requests.memory":"0","pods":"0"})");
    QuotaDoc b("b", R"({"configmaps":"3"})", R"({"configmaps":"0"})");
    std::vector<quota::Quota> quotas{a.q, b.q};
    json::Document p = parse(pod(R"([{"name":"c","resources":{"requests":{"memory":"512Mi"}}}])"));
    assert_false(quota::check(k.kind("", "pods"), p, nullptr, quotas).has_value());
    assert_true(quotas[0].changed);
    assert_false(quotas[1].changed);
    assert_string_equal(quota::prettyPrint(quotas[0].used).c_str(), "pods=1,requests.memory=512Mi");
    // The second pod would pass 1Gi.
    json::Document big =
        parse(pod(R"([{"name":"c","resources":{"requests":{"memory":"600Mi"}}}])"));
    std::optional<std::string> refused = quota::check(k.kind("", "pods"), big, nullptr, quotas);
    assert_string_equal(refused->c_str(),
                        "exceeded quota: a, requested: requests.memory=600Mi, used: "
                        "requests.memory=512Mi, limited: requests.memory=1Gi");
}

void a_pod_under_a_cpu_or_memory_quota_must_set_them(void**) {
    Kinds k;
    QuotaDoc q("q", R"({"limits.cpu":"1","requests.memory":"1Gi"})",
               R"({"limits.cpu":"0","requests.memory":"0"})");
    std::vector<quota::Quota> quotas{q.q};
    json::Document p = parse(pod(R"([{"name":"c","resources":{"limits":{"cpu":"500m"}}},)"
                                 R"({"name":"d"}])"));
    std::optional<std::string> refused = quota::check(k.kind("", "pods"), p, nullptr, quotas);
    assert_string_equal(
        refused->c_str(),
        "failed quota: q: must specify limits.cpu for: d; requests.memory for: c,d");
}

void scopes_pick_the_pods_a_quota_counts(void**) {
    Kinds k;
    QuotaDoc be("be", R"({"pods":"1"})", R"({"pods":"1"})", R"({"scopes":["BestEffort"]})");
    QuotaDoc pc("pc", R"({"pods":"0"})", R"({"pods":"0"})",
                R"({"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass",)"
                R"("operator":"In","values":["high"]}]}})");
    std::vector<quota::Quota> quotas{be.q, pc.q};
    json::Document burstable =
        parse(pod(R"([{"name":"c","resources":{"requests":{"cpu":"1m"}}}])"));
    assert_false(quota::check(k.kind("", "pods"), burstable, nullptr, quotas).has_value());
    json::Document bestEffort = parse(pod(R"([{"name":"c"}])"));
    assert_string_equal(quota::check(k.kind("", "pods"), bestEffort, nullptr, quotas)->c_str(),
                        "exceeded quota: be, requested: pods=1, used: pods=1, limited: pods=1");
    json::Document high = parse(pod(R"([{"name":"c","resources":{"requests":{"cpu":"1m"}}}])",
                                    R"("priorityClassName":"high",)"));
    assert_string_equal(quota::check(k.kind("", "pods"), high, nullptr, quotas)->c_str(),
                        "exceeded quota: pc, requested: pods=1, used: pods=0, limited: pods=0");
    // A scoped quota never counts other kinds.
    json::Document cm = parse("{}");
    QuotaDoc scoped("s", R"({"count/configmaps":"0"})", R"({"count/configmaps":"0"})",
                    R"({"scopes":["BestEffort"]})");
    std::vector<quota::Quota> only{scoped.q};
    assert_false(quota::check(k.kind("", "configmaps"), cm, nullptr, only).has_value());
}

void an_update_is_charged_only_its_growth(void**) {
    Kinds k;
    QuotaDoc q("q", R"({"requests.storage":"3Gi"})", R"({"requests.storage":"2Gi"})");
    std::vector<quota::Quota> quotas{q.q};
    const registry::KindInfo& pvc = k.kind("", "persistentvolumeclaims");
    json::Document old = parse(R"({"spec":{"resources":{"requests":{"storage":"2Gi"}}}})");
    json::Document grown = parse(R"({"spec":{"resources":{"requests":{"storage":"3Gi"}}}})");
    assert_false(quota::check(pvc, grown, &old, quotas).has_value());
    assert_string_equal(quota::prettyPrint(quotas[0].used).c_str(), "requests.storage=3Gi");
    json::Document more = parse(R"({"spec":{"resources":{"requests":{"storage":"4Gi"}}}})");
    assert_string_equal(quota::check(pvc, more, &grown, quotas)->c_str(),
                        "exceeded quota: q, requested: requests.storage=1Gi, used: "
                        "requests.storage=3Gi, limited: requests.storage=3Gi");
    assert_false(quota::evaluates(k.kind("", "pods"), admission::Operation::Update, ""));
    assert_true(quota::evaluates(pvc, admission::Operation::Update, ""));
    assert_false(quota::evaluates(pvc, admission::Operation::Update, "status"));
}

void a_quota_without_usage_for_a_tracked_resource_refuses(void**) {
    Kinds k;
    QuotaDoc q("q", R"({"secrets":"3","configmaps":"1"})", R"({"configmaps":"0"})");
    std::vector<quota::Quota> quotas{q.q};
    json::Document s = parse("{}");
    assert_string_equal(quota::check(k.kind("", "secrets"), s, nullptr, quotas)->c_str(),
                        "status unknown for quota: q, resources: secrets");
}

}  // namespace

// --- the admission plugin on the memory store --------------------------------

// The plugin over a memory store and this worker's watch caches; the
// quotas' cache exists before any quota is written, and nothing polls the
// change feed unless a test does.
struct Admission {
    Kinds k;
    kube::testing::FakeLoop loop;
    storage::memory::Store memory{loop};
    storage::cacher::Cacher cacher{memory, loop, registry::withResourceVersion};
    const registry::KindInfo& quotas = k.kind("", "resourcequotas");
    admission::ResourceQuota plugin{memory, cacher, quotas};

    Admission() {
        storage::Error err;
        assert_non_null(cacher.cache(registry::collectionPrefix(quotas, ""), &err));
    }

    // Writes quota `name` of namespace ns with status.hard and status.used.
    void putQuota(const std::string& name, const std::string& hard, const std::string& used) {
        json::Document q = parse(R"({"metadata":{"name":")" + name +
                                 R"(","namespace":"ns","resourceVersion":""},"status":{"hard":)" +
                                 hard + R"(,"used":)" + used + "}}");
        registry::EncodedObject enc = registry::encodeObject(q);
        storage::WriteOp op;
        op.key = registry::objectKey(quotas, "ns", name);
        op.value = std::move(enc.bytes);
        op.revisionOffset = enc.revisionOffset;
        bool written = false;
        memory.write({std::move(op)}, [&](storage::WriteResult&& r) {
            assert_true(r.error.ok());
            written = true;
        });
        loop.run();
        assert_true(written);
    }

    // The status.used the store holds for quota `name`.
    std::string used(const std::string& name) {
        std::string out;
        memory.get(registry::objectKey(quotas, "ns", name),
                   [&](const storage::Error& err, const storage::ObjectView* v) {
                       assert_true(err.ok());
                       json::Document d = parse(std::string(v->value));
                       out = json::serialize(*json::at(d, {"status", "used"}));
                   });
        return out;
    }

    // Admits the create of configmap `name` in ns: the refusal's message,
    // "" when admitted.
    std::string createConfigMap(const std::string& name) {
        json::Document cm = parse(R"({"metadata":{"name":")" + name + R"("}})");
        admission::Attributes a;
        a.kind = &k.kind("", "configmaps");
        a.ns = "ns";
        a.name = name;
        a.object = &cm;
        a.allocator = &cm.GetAllocator();
        assert_true(plugin.handles(a));
        std::string refused = "(no answer)";
        plugin.validate(
            a, [&](const meta::Status* denied) { refused = denied ? denied->message : ""; });
        loop.run();
        return refused;
    }
};

void admission_reads_quotas_the_cache_has_not_polled_yet(void**) {
    Admission f;
    f.putQuota("q", R"({"configmaps":"1"})", R"({"configmaps":"1"})");
    assert_string_equal(f.createConfigMap("a").c_str(),
                        "configmaps \"a\" is forbidden: exceeded quota: q, requested: "
                        "configmaps=1, used: configmaps=1, limited: configmaps=1");
}

void admission_charges_the_quota_and_sees_its_own_charge(void**) {
    Admission f;
    f.putQuota("q", R"({"configmaps":"2"})", R"({"configmaps":"0"})");
    assert_string_equal(f.createConfigMap("a").c_str(), "");
    assert_string_equal(f.used("q").c_str(), R"({"configmaps":"1"})");
    assert_string_equal(f.createConfigMap("b").c_str(), "");
    assert_string_equal(f.used("q").c_str(), R"({"configmaps":"2"})");
    assert_string_not_equal(f.createConfigMap("c").c_str(), "");
    assert_string_equal(f.used("q").c_str(), R"({"configmaps":"2"})");
}

void admission_admits_where_no_quota_is(void**) {
    Admission f;
    assert_string_equal(f.createConfigMap("a").c_str(), "");
}

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pod_usage_sums_containers_and_counts_the_pod),
        cmocka_unit_test(services_count_load_balancers_and_node_ports),
        cmocka_unit_test(claims_count_storage_also_per_class),
        cmocka_unit_test(other_kinds_have_an_object_count),
        cmocka_unit_test(exceeding_a_quota_names_what_was_asked_used_and_limited),
        cmocka_unit_test(an_admitted_write_is_charged_to_every_matching_quota),
        cmocka_unit_test(a_pod_under_a_cpu_or_memory_quota_must_set_them),
        cmocka_unit_test(scopes_pick_the_pods_a_quota_counts),
        cmocka_unit_test(an_update_is_charged_only_its_growth),
        cmocka_unit_test(a_quota_without_usage_for_a_tracked_resource_refuses),
        cmocka_unit_test(admission_reads_quotas_the_cache_has_not_polled_yet),
        cmocka_unit_test(admission_charges_the_quota_and_sees_its_own_charge),
        cmocka_unit_test(admission_admits_where_no_quota_is),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
