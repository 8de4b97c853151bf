// The IPAddress objects kept beside the ClusterIP bitmap (kube 1.33's dual
// write) and their repair.
#include <string>
#include <vector>

#include "apis/networking/kinds.hpp"
#include "controller/serviceallocation/ip_address_repair.hpp"
#include "fake_loop.hpp"
#include "registry/encoding.hpp"
#include "registry/service/allocators.hpp"
#include "registry/service/ip_address_objects.hpp"
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

using kube::registry::service::IpRange;
using kube::registry::service::PortRange;
using kube::registry::service::ServiceAllocators;
namespace json = kube::util::json;
namespace service = kube::registry::service;
namespace repair = kube::controller::serviceallocation;
namespace storage = kube::storage;

struct Fixture {
    kube::testing::FakeLoop loop;
    storage::memory::Store storage{loop};
    ServiceAllocators allocators{storage, *IpRange::parse("10.96.0.0/29", nullptr),
                                 *PortRange::parse("30000-30001", nullptr)};

    // One change through the companion, written as the store writes it
    // (with the service itself last); the status code, 0 for success.
    int change(const json::Value* old, json::Document* doc, std::string* message = nullptr) {
        int code = -1;
        allocators.plan({{old, doc, doc ? &doc->GetAllocator() : nullptr}}, false,
                        [&](const kube::meta::Status* err, std::vector<storage::WriteOp> ops) {
                            if (err) {
                                code = err->code;
                                if (message) {
                                    *message = err->message;
                                }
                                return;
                            }
                            storage.write(std::move(ops), [&](storage::WriteResult&& res) {
                                code = res.error.ok() ? 0 : 1000;
                            });
                        });
        loop.run();
        return code;
    }
    int create(const char* body, json::Document& doc, std::string* message = nullptr) {
        doc.Parse(body);
        return change(nullptr, &doc, message);
    }

    // The stored object at `key`, parsed into `doc`; false when absent.
    bool get(const std::string& key, json::Document& doc, storage::Revision* rev = nullptr) {
        bool found = false;
        storage.get(key, [&](const storage::Error& err, const storage::ObjectView* obj) {
            if (err.ok() && obj) {
                found = true;
                doc.Parse(obj->value.data(), obj->value.size());
                if (rev) {
                    *rev = obj->modRevision;
                }
            }
        });
        loop.run();
        return found;
    }
    bool has(const std::string& ip) {
        json::Document doc;
        return get(service::ipAddressKey(ip), doc);
    }
    // Whether the bitmap holds `ip` (offset from 10.96.0.1).
    bool bitmapHolds(const std::string& ip) {
        json::Document doc;
        std::string range;
        std::string data;
        bool found = false;
        storage.get(service::kServiceIPsKey, [&](const storage::Error& err,
                                                 const storage::ObjectView* obj) {
            found = err.ok() && obj && service::decodeRangeAllocation(obj->value, range, data);
        });
        loop.run();
        if (!found) {
            return false;
        }
        service::AllocationBitmap bits(6);
        bits.restore(data);
        return bits.has(
            static_cast<int>(*service::parseIPv4(ip) - *service::parseIPv4("10.96.0.1")));
    }
    // An IPAddress written as a user would (no allocator labels), for the
    // Service ns/name.
    void putUserIPAddress(const std::string& ip, const char* name) {
        std::string body = R"({"kind":"IPAddress","apiVersion":"networking.k8s.io/v1",)"
                           R"("metadata":{"name":")" +
                           ip +
                           R"("},"spec":{"parentRef":{"resource":"services","namespace":)"
                           R"("default","name":")" +
                           name + R"("}}})";
        storage::WriteOp op;
        op.key = service::ipAddressKey(ip);
        op.value = body;
        bool ok = false;
        storage.write({op}, [&](storage::WriteResult&& res) { ok = res.error.ok(); });
        loop.run();
        assert_true(ok);
    }
};

const char* kAuto = R"({"metadata":{"name":"web","namespace":"ns1"},
    "spec":{"type":"ClusterIP","ports":[{"port":80}]}})";
const char* kFixed = R"({"metadata":{"name":"fixed","namespace":"default"},
    "spec":{"type":"ClusterIP","clusterIP":"10.96.0.3","clusterIPs":["10.96.0.3"],
    "ports":[{"port":80}]}})";

void ip_addresses_live_where_the_ipaddresses_store_keeps_them(void**) {
    kube::registry::KindInfo kind = kube::apis::networking::ipAddressKind();
    assert_string_equal(service::ipAddressKey("10.96.0.3").c_str(),
                        kube::registry::objectKey(kind, "", "10.96.0.3").c_str());
    assert_true(service::encodeIPAddress("10.96.0.3", "a", "b", {})
                    .bytes.starts_with(kube::registry::storedPrefix(kind)));
    // The ipaddresses kind's own validation accepts what the allocator writes.
    json::Document doc;
    doc.Parse(service::encodeIPAddress("10.96.0.3", "a", "b", {}).bytes.c_str());
    assert_true(kind.validate(doc).empty());
}

void an_allocated_cluster_ip_gets_its_ip_address_in_the_same_batch(void**) {
    Fixture f;
    // A requested address gets one too; asked for first, so that the random
    // pick below cannot take it.
    json::Document fixed;
    assert_int_equal(f.create(kFixed, fixed), 0);
    json::Document svc;
    assert_int_equal(f.create(kAuto, svc), 0);
    std::string ip(json::stringMember(svc["spec"], "clusterIP"));
    json::Document addr;
    storage::Revision rev = 0;
    assert_true(f.get(service::ipAddressKey(ip), addr, &rev));
    assert_true(f.bitmapHolds(ip));
    assert_string_equal(json::stringMember(addr, "kind").data(), "IPAddress");
    assert_string_equal(json::stringMember(addr, "apiVersion").data(), "networking.k8s.io/v1");
    const json::Value& meta = addr["metadata"];
    assert_string_equal(json::stringMember(meta, "name").data(), ip.c_str());
    assert_int_equal(json::stringMember(meta, "uid").size(), 36);
    assert_false(json::stringMember(meta, "creationTimestamp").empty());
    // The revision spliced in at the commit, as the store's own creates.
    assert_string_equal(json::stringMember(meta, "resourceVersion").data(),
                        std::to_string(rev).c_str());
    assert_string_equal(json::serialize(meta["labels"]).c_str(),
                        R"({"ipaddress.kubernetes.io/ip-family":"IPv4",)"
                        R"("ipaddress.kubernetes.io/managed-by":"ipallocator.k8s.io"})");
    assert_string_equal(json::stringMember(meta["managedFields"][0], "manager").data(),
                        "kube-apiserver");
    assert_string_equal(json::serialize(addr["spec"]).c_str(),
                        R"({"parentRef":{"resource":"services","namespace":"ns1","name":"web"}})");
    json::Document fixedAddr;
    assert_true(f.get(service::ipAddressKey("10.96.0.3"), fixedAddr));
    assert_string_equal(json::stringMember(fixedAddr["spec"]["parentRef"], "name").data(), "fixed");
    // Deleting the services removes both, and frees the bitmap.
    assert_int_equal(f.change(&svc, nullptr), 0);
    assert_int_equal(f.change(&fixed, nullptr), 0);
    assert_false(f.has(ip));
    assert_false(f.has("10.96.0.3"));
    assert_false(f.bitmapHolds(ip));
}

void an_address_an_ip_address_holds_is_refused_and_nothing_is_written(void**) {
    Fixture f;
    f.putUserIPAddress("10.96.0.3", "someone-else");
    json::Document svc;
    std::string message;
    assert_int_equal(f.create(kFixed, svc, &message), 422);
    assert_string_equal(message.c_str(),
                        "Service \"fixed\" is invalid: spec.clusterIPs: Invalid value: "
                        "[]string{\"10.96.0.3\"}: failed to allocate IP 10.96.0.3: provided IP is "
                        "already allocated");
    assert_false(f.bitmapHolds("10.96.0.3"));
    json::Document addr;
    assert_true(f.get(service::ipAddressKey("10.96.0.3"), addr));
    assert_string_equal(json::stringMember(addr["spec"]["parentRef"], "name").data(),
                        "someone-else");
}

void random_allocation_skips_addresses_held_by_ip_addresses(void**) {
    Fixture f;
    // Five of the range's six addresses are held by users' IPAddresses.
    for (const char* ip : {"10.96.0.1", "10.96.0.2", "10.96.0.3", "10.96.0.5", "10.96.0.6"}) {
        f.putUserIPAddress(ip, "user");
    }
    json::Document svc;
    assert_int_equal(f.create(kAuto, svc), 0);
    assert_string_equal(json::stringMember(svc["spec"], "clusterIP").data(), "10.96.0.4");
    assert_string_equal(json::serialize(svc["spec"]["clusterIPs"]).c_str(), R"(["10.96.0.4"])");
    assert_true(f.has("10.96.0.4"));
    // The addresses skipped stay free in the bitmap: only the IPAddresses hold them.
    for (const char* ip : {"10.96.0.1", "10.96.0.2", "10.96.0.3", "10.96.0.5", "10.96.0.6"}) {
        assert_false(f.bitmapHolds(ip));
    }
    assert_true(f.bitmapHolds("10.96.0.4"));
    json::Document next;
    std::string message;
    assert_int_equal(f.create(R"({"metadata":{"name":"b","namespace":"ns1"},
        "spec":{"type":"ClusterIP","ports":[{"port":80}]}})",
                              next, &message),
                     500);
    assert_string_equal(message.c_str(),
                        "Internal error occurred: failed to allocate a serviceIP: range is full");
}

void becoming_an_external_name_gives_the_ip_address_back(void**) {
    Fixture f;
    json::Document svc;
    assert_int_equal(f.create(kFixed, svc), 0);
    json::Document ext;
    ext.Parse(R"({"metadata":{"name":"fixed","namespace":"default"},
        "spec":{"type":"ExternalName","externalName":"x.example.com"}})");
    assert_int_equal(f.change(&svc, &ext), 0);
    assert_false(f.has("10.96.0.3"));
    assert_false(f.bitmapHolds("10.96.0.3"));
    // And back: a new one.
    json::Document again;
    again.Parse(kFixed);
    assert_int_equal(f.change(&ext, &again), 0);
    assert_true(f.has("10.96.0.3"));
}

void a_release_leaves_an_ip_address_of_another_parent(void**) {
    Fixture f;
    json::Document svc;
    assert_int_equal(f.create(kFixed, svc), 0);
    // Rewritten by hand to point elsewhere: the delete of `fixed` keeps it.
    storage::WriteOp op;
    op.type = storage::WriteOp::Type::Update;
    op.key = service::ipAddressKey("10.96.0.3");
    op.value = service::encodeIPAddress("10.96.0.3", "default", "other", {}).bytes;
    f.storage.write({op}, [](storage::WriteResult&&) {});
    f.loop.run();
    assert_int_equal(f.change(&svc, nullptr), 0);
    assert_true(f.has("10.96.0.3"));
    assert_false(f.bitmapHolds("10.96.0.3"));
}

// --- the repair ---------------------------------------------------------------------------

repair::StoredIPAddress stored(const std::string& ip, const char* ns, const char* name,
                               bool managed = true, storage::Revision rev = 7) {
    repair::StoredIPAddress a;
    a.record.name = ip;
    a.record.managedByAllocator = managed;
    a.record.labelsMatch = managed;
    a.record.resource = "services";
    a.record.ns = ns;
    a.record.parentName = name;
    a.modRevision = rev;
    return a;
}

const storage::WriteOp* opFor(const std::vector<storage::WriteOp>& ops, const std::string& ip) {
    for (const storage::WriteOp& op : ops) {
        if (op.key == service::ipAddressKey(ip)) {
            return &op;
        }
    }
    return nullptr;
}

void the_repair_creates_missing_and_rewrites_wrong_ip_addresses(void**) {
    IpRange range = *IpRange::parse("10.96.0.0/24", nullptr);
    std::vector<repair::ServiceClusterIPs> services = {
        {"default", "missing", {"10.96.0.10"}},    {"default", "orphaned-ref", {"10.96.0.11"}},
        {"default", "relabelled", {"10.96.0.12"}}, {"default", "ok", {"10.96.0.13"}},
        {"default", "first", {"10.96.0.14"}},      {"default", "second", {"10.96.0.14"}},
        {"default", "outside", {"10.97.0.1"}},
    };
    std::vector<repair::StoredIPAddress> addrs = {
        stored("10.96.0.11", "default", "gone", true, 11),
        stored("10.96.0.12", "default", "relabelled", true, 12),
        stored("10.96.0.13", "default", "ok"),
        stored("10.96.0.14", "default", "first"),
    };
    addrs[1].record.labelsMatch = false;
    std::vector<storage::WriteOp> ops = repair::planIPAddressRepair(range, addrs, services, {});
    assert_int_equal(ops.size(), 3);
    const storage::WriteOp* op = opFor(ops, "10.96.0.10");
    assert_non_null(op);
    assert_int_equal(static_cast<int>(op->type), static_cast<int>(storage::WriteOp::Type::Create));
    std::optional<service::IPAddressRecord> r = service::decodeIPAddress(op->value);
    assert_true(r && r->refersTo("default", "missing") && r->labelsMatch);
    op = opFor(ops, "10.96.0.11");
    assert_non_null(op);
    assert_int_equal(static_cast<int>(op->type), static_cast<int>(storage::WriteOp::Type::Update));
    assert_int_equal(op->expectedModRevision, 11);
    assert_true(service::decodeIPAddress(op->value)->refersTo("default", "orphaned-ref"));
    op = opFor(ops, "10.96.0.12");
    assert_non_null(op);
    assert_int_equal(op->expectedModRevision, 12);
    assert_true(service::decodeIPAddress(op->value)->labelsMatch);
}

void the_repair_deletes_the_allocators_ip_addresses_no_service_holds(void**) {
    IpRange range = *IpRange::parse("10.96.0.0/24", nullptr);
    std::vector<repair::ServiceClusterIPs> services = {
        {"default", "moved", {"10.96.0.21"}},
        {"default", "ext", {}},
    };
    std::vector<repair::StoredIPAddress> addrs = {
        stored("10.96.0.20", "default", "gone", true, 20),
        stored("10.96.0.22", "default", "moved", true, 22),
        stored("10.96.0.23", "default", "ext", true, 23),
        stored("10.96.0.24", "default", "gone", false),  // a user's: kept
        stored("10.96.0.21", "default", "moved"),
    };
    addrs.push_back(stored("10.96.0.25", "default", "moved", true, 25));
    addrs.back().record.resource = "gateways";
    std::vector<storage::WriteOp> ops = repair::planIPAddressRepair(range, addrs, services, {});
    assert_int_equal(ops.size(), 4);
    for (const char* ip : {"10.96.0.20", "10.96.0.22", "10.96.0.23", "10.96.0.25"}) {
        const storage::WriteOp* op = opFor(ops, ip);
        assert_non_null(op);
        assert_int_equal(static_cast<int>(op->type),
                         static_cast<int>(storage::WriteOp::Type::Delete));
        assert_true(op->expectedModRevision >= 20);
    }
}

void a_repair_pass_reads_and_writes_through_the_storage(void**) {
    Fixture f;
    // A service stored before the IPAddresses were kept, and an orphan.
    storage::WriteOp svc;
    svc.key = "/registry/services/specs/default/old";
    svc.value = R"({"kind":"Service","apiVersion":"v1","metadata":{"name":"old",)"
                R"("namespace":"default"},"spec":{"type":"ClusterIP","clusterIP":"10.96.0.2",)"
                R"("clusterIPs":["10.96.0.2"]}})";
    storage::WriteOp orphan;
    orphan.key = service::ipAddressKey("10.96.0.5");
    orphan.value = service::encodeIPAddress("10.96.0.5", "default", "gone", {}).bytes;
    f.storage.write({svc, orphan}, [](storage::WriteResult&&) {});
    f.loop.run();
    repair::IPAddressRepair r(f.loop, f.storage, *IpRange::parse("10.96.0.0/29", nullptr),
                              "/registry/services/specs/");
    std::vector<bool> passes;
    r.start([&](bool written) { passes.push_back(written); });
    f.loop.run();
    assert_int_equal(passes.size(), 1);
    assert_true(passes[0]);
    json::Document addr;
    assert_true(f.get(service::ipAddressKey("10.96.0.2"), addr));
    assert_string_equal(json::stringMember(addr["spec"]["parentRef"], "name").data(), "old");
    assert_false(f.has("10.96.0.5"));
    // The next pass, kInterval later, finds nothing to do.
    storage::Revision before = f.storage.currentRevision();
    f.loop.advance(repair::IPAddressRepair::kInterval);
    f.loop.run();
    assert_int_equal(passes.size(), 2);
    assert_int_equal(f.storage.currentRevision(), before);
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ip_addresses_live_where_the_ipaddresses_store_keeps_them),
        cmocka_unit_test(an_allocated_cluster_ip_gets_its_ip_address_in_the_same_batch),
        cmocka_unit_test(an_address_an_ip_address_holds_is_refused_and_nothing_is_written),
        cmocka_unit_test(random_allocation_skips_addresses_held_by_ip_addresses),
        cmocka_unit_test(becoming_an_external_name_gives_the_ip_address_back),
        cmocka_unit_test(a_release_leaves_an_ip_address_of_another_parent),
        cmocka_unit_test(the_repair_creates_missing_and_rewrites_wrong_ip_addresses),
        cmocka_unit_test(the_repair_deletes_the_allocators_ip_addresses_no_service_holds),
        cmocka_unit_test(a_repair_pass_reads_and_writes_through_the_storage),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
