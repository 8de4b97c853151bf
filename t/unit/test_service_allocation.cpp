#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "controller/controlplane/control_plane_objects.hpp"
#include "fake_loop.hpp"
#include "registry/service/allocation_bitmap.hpp"
#include "registry/service/allocators.hpp"
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

namespace {

using kube::registry::Store;
using kube::registry::service::AllocationBitmap;
using kube::registry::service::IpRange;
using kube::registry::service::PortRange;
using kube::registry::service::ServiceAllocators;
namespace json = kube::util::json;
namespace service = kube::registry::service;

void snapshots_are_kubes_big_endian_integer(void**) {
    AllocationBitmap bits(100);
    assert_string_equal(bits.snapshot().c_str(), "");
    assert_true(bits.allocate(0));
    assert_true(bits.allocate(9));
    assert_false(bits.allocate(9));
    assert_false(bits.allocate(100));
    // bits 0 and 9: the integer 0x201, big-endian without leading zeros
    assert_true(bits.snapshot() == std::string("\x02\x01", 2));
    AllocationBitmap back(100);
    back.restore(bits.snapshot());
    assert_int_equal(back.count(), 2);
    assert_true(back.has(0) && back.has(9) && !back.has(1));
    bits.release(9);
    assert_true(bits.snapshot() == std::string("\x01", 1));
    assert_int_equal(bits.count(), 1);
}

void random_allocation_avoids_the_static_band_until_the_rest_is_full(void**) {
    std::mt19937_64 random(1);
    AllocationBitmap bits(40, 16);
    for (int i = 0; i < 24; i++) {
        std::optional<int> at = bits.allocateNext(random);
        assert_true(at.has_value());
        assert_true(*at >= 16);
    }
    for (int i = 0; i < 16; i++) {
        std::optional<int> at = bits.allocateNext(random);
        assert_true(at.has_value());
        assert_true(*at < 16);
    }
    assert_false(bits.allocateNext(random).has_value());
    assert_int_equal(bits.count(), 40);
}

void ranges_parse_as_kube_sizes_them(void**) {
    std::string error;
    std::optional<IpRange> r = IpRange::parse("10.96.0.0/29", &error);
    assert_true(r.has_value());
    assert_int_equal(r->max, 6);  // no network, no broadcast address
    assert_int_equal(r->staticBand, 0);
    assert_string_equal(service::formatIPv4(r->first()).c_str(), "10.96.0.1");
    assert_false(r->offsetOf(*service::parseIPv4("10.96.0.0")).has_value());
    assert_false(r->offsetOf(*service::parseIPv4("10.96.0.7")).has_value());
    assert_int_equal(*r->offsetOf(*service::parseIPv4("10.96.0.6")), 5);
    assert_int_equal(IpRange::parse("10.96.5.7/16", &error)->staticBand, 256);
    assert_string_equal(IpRange::parse("10.96.5.7/16", &error)->spec.c_str(), "10.96.0.0/16");
    assert_int_equal(IpRange::parse("10.0.0.0/24", &error)->staticBand, 16);
    assert_false(IpRange::parse("10.0.0.0/8", &error).has_value());
    assert_string_equal(error.c_str(),
                        "\"10.0.0.0/8\" is too large; for 32-bit addresses, the mask must be >= 12");
    assert_false(IpRange::parse("10.0.0.300/24", &error).has_value());
    std::optional<PortRange> p = PortRange::parse("30000-32767", &error);
    assert_true(p.has_value());
    assert_int_equal(p->size, 2768);
    assert_true(p->contains(32767) && !p->contains(32768) && !p->contains(29999));
    assert_false(PortRange::parse("32767-30000", &error).has_value());
}

struct Fixture {
    kube::testing::FakeLoop loop;
    kube::storage::memory::Store storage{loop};
    ServiceAllocators allocators{storage, *IpRange::parse("10.96.0.0/29", nullptr),
                                 *PortRange::parse("30000-30001", nullptr)};

    // One create through the companion, written as the store would;
    // returns the status code (0 for success) and the service.
    int create(const char* body, json::Document& doc, std::string* message = nullptr) {
        doc.Parse(body);
        int code = -1;
        allocators.plan({{nullptr, &doc, &doc.GetAllocator()}}, false,
                        [&](const kube::meta::Status* err, std::vector<kube::storage::WriteOp> ops) {
                            if (err) {
                                code = err->code;
                                if (message) {
                                    *message = err->message;
                                }
                                return;
                            }
                            storage.write(std::move(ops), [&](kube::storage::WriteResult&& res) {
                                code = res.error.ok() ? 0 : 1000;
                            });
                        });
        loop.run();
        return code;
    }
    int remove(const json::Document& doc) {
        int code = -1;
        allocators.plan({{&doc, nullptr, nullptr}}, false,
                        [&](const kube::meta::Status* err, std::vector<kube::storage::WriteOp> ops) {
                            if (err) {
                                code = err->code;
                                return;
                            }
                            storage.write(std::move(ops), [&](kube::storage::WriteResult&& res) {
                                code = res.error.ok() ? 0 : 1000;
                            });
                        });
        loop.run();
        return code;
    }
};

const char* kAuto = R"({"metadata":{"name":"a"},"spec":{"type":"ClusterIP","ports":[{"port":80}]}})";

void cluster_ips_are_allocated_until_the_range_is_full(void**) {
    Fixture f;
    std::set<std::string> seen;
    for (int i = 0; i < 6; i++) {
        json::Document doc;
        assert_int_equal(f.create(kAuto, doc), 0);
        std::string ip(json::stringMember(doc["spec"], "clusterIP"));
        assert_true(seen.insert(ip).second);
        assert_true(doc["spec"]["clusterIPs"][0] == doc["spec"]["clusterIP"]);
        assert_string_equal(json::stringMember(doc["spec"], "ipFamilyPolicy").data(),
                            "SingleStack");
        assert_string_equal(json::serialize(doc["spec"]["ipFamilies"]).c_str(), "[\"IPv4\"]");
    }
    json::Document doc;
    std::string message;
    assert_int_equal(f.create(kAuto, doc, &message), 500);
    assert_string_equal(message.c_str(),
                        "Internal error occurred: failed to allocate a serviceIP: range is full");
}

void a_taken_or_foreign_ip_is_refused_with_kubes_words(void**) {
    Fixture f;
    json::Document doc;
    const char* fixed = R"({"metadata":{"name":"a"},"spec":{"type":"ClusterIP",
        "clusterIP":"10.96.0.3","clusterIPs":["10.96.0.3"],"ports":[{"port":80}]}})";
    assert_int_equal(f.create(fixed, doc), 0);
    std::string message;
    assert_int_equal(f.create(fixed, doc, &message), 422);
    assert_string_equal(message.c_str(),
                        "Service \"a\" is invalid: spec.clusterIPs: Invalid value: "
                        "[]string{\"10.96.0.3\"}: failed to allocate IP 10.96.0.3: provided IP is "
                        "already allocated");
    const char* outside = R"({"metadata":{"name":"b"},"spec":{"type":"ClusterIP",
        "clusterIP":"10.96.0.7","clusterIPs":["10.96.0.7"],"ports":[{"port":80}]}})";
    assert_int_equal(f.create(outside, doc, &message), 422);
    assert_string_equal(message.c_str(),
                        "Service \"b\" is invalid: spec.clusterIPs: Invalid value: "
                        "[]string{\"10.96.0.7\"}: failed to allocate IP 10.96.0.7: the provided IP "
                        "(10.96.0.7) is not in the valid range. The range of valid IPs is "
                        "10.96.0.0/29");
}

void exhausted_node_ports_leave_nothing_allocated(void**) {
    Fixture f;
    json::Document doc;
    const char* twoPorts = R"({"metadata":{"name":"np"},"spec":{"type":"NodePort",
        "clusterIP":"10.96.0.2","clusterIPs":["10.96.0.2"],"ports":[{"name":"a","port":80},{"name":"b","port":81}]}})";
    assert_int_equal(f.create(twoPorts, doc), 0);
    // The range (2 ports) is full: the next NodePort service fails whole,
    // its ClusterIP included.
    const char* one = R"({"metadata":{"name":"x"},"spec":{"type":"NodePort",
        "clusterIP":"10.96.0.5","clusterIPs":["10.96.0.5"],"ports":[{"port":80}]}})";
    std::string message;
    json::Document failed;
    assert_int_equal(f.create(one, failed, &message), 500);
    assert_string_equal(message.c_str(),
                        "Internal error occurred: failed to allocate a nodePort: range is full");
    // Its ClusterIP was not kept: another service may take it.
    json::Document same;
    assert_int_equal(f.create(R"({"metadata":{"name":"z"},"spec":{"type":"ClusterIP",
        "clusterIP":"10.96.0.5","clusterIPs":["10.96.0.5"],"ports":[{"port":80}]}})",
                              same),
                     0);
    assert_int_equal(f.remove(same), 0);
    // Deleting the first service gives its IP and ports back.
    assert_int_equal(f.remove(doc), 0);
    assert_int_equal(f.create(one, failed), 0);
    int port = failed["spec"]["ports"][0]["nodePort"].GetInt();
    assert_true(port == 30000 || port == 30001);
    const char* taken = R"({"metadata":{"name":"y"},"spec":{"type":"NodePort",
        "ports":[{"port":80,"nodePort":%d}]}})";
    char body[256];
    snprintf(body, sizeof body, taken, port);
    json::Document other;
    assert_int_equal(f.create(body, other, &message), 422);
    assert_non_null(strstr(message.c_str(), "provided port is already allocated"));
}

void headless_selectorless_services_default_to_both_families(void**) {
    Fixture f;
    json::Document doc;
    assert_int_equal(f.create(R"({"metadata":{"name":"h"},"spec":{"type":"ClusterIP",
        "clusterIP":"None","clusterIPs":["None"],"ports":[{"port":80}]}})",
                              doc),
                     0);
    assert_string_equal(json::serialize(doc["spec"]["ipFamilies"]).c_str(),
                        "[\"IPv4\",\"IPv6\"]");
    assert_string_equal(json::stringMember(doc["spec"], "ipFamilyPolicy").data(),
                        "RequireDualStack");
    std::string message;
    assert_int_equal(f.create(R"({"metadata":{"name":"d"},"spec":{"type":"ClusterIP",
        "ipFamilyPolicy":"RequireDualStack","ports":[{"port":80}]}})",
                              doc, &message),
                     422);
    assert_string_equal(message.c_str(),
                        "Service \"d\" is invalid: spec.ipFamilyPolicy: Invalid value: "
                        "\"RequireDualStack\": this cluster is not configured for dual-stack "
                        "services");
}

// kube 1.26.5 on the host "vm" holds kube-apiserver-lphjr5z7h3imqn7sokpnsue3ha.
void the_identity_lease_is_named_as_kube_names_it(void**) {
    assert_string_equal(kube::controller::controlplane::identityLeaseName("vm").c_str(),
                        "kube-apiserver-lphjr5z7h3imqn7sokpnsue3ha");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(snapshots_are_kubes_big_endian_integer),
        cmocka_unit_test(random_allocation_avoids_the_static_band_until_the_rest_is_full),
        cmocka_unit_test(ranges_parse_as_kube_sizes_them),
        cmocka_unit_test(cluster_ips_are_allocated_until_the_range_is_full),
        cmocka_unit_test(a_taken_or_foreign_ip_is_refused_with_kubes_words),
        cmocka_unit_test(exhausted_node_ports_leave_nothing_allocated),
        cmocka_unit_test(headless_selectorless_services_default_to_both_families),
        cmocka_unit_test(the_identity_lease_is_named_as_kube_names_it),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
