// kube's lease endpoint reconciler on storage several hosts share: this
// server keeps /registry/masterleases/<its address> (an Endpoints naming it,
// written with the reconciler's TTL, its generation moving on each pass),
// and the `kubernetes` Endpoints and EndpointSlice name every address with a
// lease, sorted; one whose lease is gone leaves at the next pass; a server
// that stops deletes the lease it wrote. On storage
// of its own (LMDB) the server names only itself; with the reconciler off it
// keeps neither object. t/065 runs it on a real etcd, where the leases expire.
#include <chrono>
#include <string>
#include <vector>

#include "controller/controlplane/control_plane_objects.hpp"
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
namespace storage = kube::storage;
using kube::testing::ServedServer;

auto& parse = kube::testing::parseJson;

constexpr const char* kEndpoints = "/api/v1/namespaces/default/endpoints/kubernetes";
constexpr const char* kSlice =
    "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes";

kube::server::ServerOptions hostOptions(bool shared) {
    kube::server::ServerOptions o;
    o.rbacPolicyOwner = true;  // the worker that keeps the control plane's objects
    o.sharedStorage = shared;
    o.advertiseAddress = "10.0.0.20";
    o.endpointReconcilerTtl = std::chrono::seconds(3);
    return o;
}

// Writes (or deletes, `ip` empty of a lease) straight into the storage, as
// another host would.
void putLease(ServedServer& s, const std::string& ip, bool remove = false) {
    std::vector<storage::WriteOp> ops(1);
    ops[0].key = kube::controller::controlplane::masterLeaseKey(ip);
    if (remove) {
        ops[0].type = storage::WriteOp::Type::Delete;
    } else {
        ops[0].value = R"({"kind":"Endpoints","apiVersion":"v1","metadata":{"generation":1},)"
                       R"("subsets":[{"addresses":[{"ip":")" +
                       ip + R"("}]}]})";
    }
    bool done = false;
    s.memory.write(std::move(ops), [&done](storage::WriteResult&& r) {
        assert_true(r.error.ok());
        done = true;
    });
    s.loop.run();
    assert_true(done);
}

// One more pass of the reconciler (two thirds of the TTL).
void nextPass(ServedServer& s) {
    s.loop.advance(std::chrono::seconds(2));
    s.loop.run();
}

// The addresses of the Endpoints and of the EndpointSlice, space-separated.
std::string endpointAddresses(ServedServer& s) {
    auto r = s.send("GET", kEndpoints);
    if (r.status != 200) {
        return "(" + std::to_string(r.status) + ")";
    }
    json::Document d = parse(r.body);
    std::string out;
    for (const auto& subset : d["subsets"].GetArray()) {
        for (const auto& a : subset["addresses"].GetArray()) {
            out += (out.empty() ? "" : " ") + std::string(json::stringMember(a, "ip"));
        }
    }
    return out;
}

std::string sliceAddresses(ServedServer& s) {
    auto r = s.send("GET", kSlice);
    if (r.status != 200) {
        return "(" + std::to_string(r.status) + ")";
    }
    json::Document d = parse(r.body);
    std::string out;
    for (const auto& e : d["endpoints"].GetArray()) {
        for (const auto& a : e["addresses"].GetArray()) {
            out += (out.empty() ? "" : " ") + std::string(a.GetString());
        }
    }
    return out;
}

void every_live_lease_is_named_sorted(void**) {
    ServedServer s(hostOptions(true));
    assert_string_equal(endpointAddresses(s).c_str(), "10.0.0.20");

    // This server's own lease: kube's Endpoints, its generation moving on.
    std::string own = kube::controller::controlplane::masterLeaseKey("10.0.0.20");
    assert_string_equal(own.c_str(), "/registry/masterleases/10.0.0.20");
    int64_t generation = 0;
    s.memory.get(own, [&](const storage::Error& err, const storage::ObjectView* obj) {
        assert_true(err.ok());
        json::Document d = parse(std::string(obj->value));
        assert_string_equal(json::stringMember(d, "kind").data(), "Endpoints");
        assert_string_equal(d["subsets"][0]["addresses"][0]["ip"].GetString(), "10.0.0.20");
        generation = d["metadata"]["generation"].GetInt64();
    });
    assert_true(generation >= 1);

    // Another host's lease (after it: addresses sort as text, as kube sorts them).
    putLease(s, "10.0.0.3");
    nextPass(s);
    assert_string_equal(endpointAddresses(s).c_str(), "10.0.0.20 10.0.0.3");
    assert_string_equal(sliceAddresses(s).c_str(), "10.0.0.20 10.0.0.3");
    s.memory.get(own, [&](const storage::Error& err, const storage::ObjectView* obj) {
        assert_true(err.ok());
        json::Document d = parse(std::string(obj->value));
        assert_true(d["metadata"]["generation"].GetInt64() > generation);
    });

    // Its lease ran out: it leaves at the next pass.
    putLease(s, "10.0.0.3", true);
    nextPass(s);
    assert_string_equal(endpointAddresses(s).c_str(), "10.0.0.20");
    assert_string_equal(sliceAddresses(s).c_str(), "10.0.0.20");
}

void storage_of_its_own_names_only_this_server(void**) {
    ServedServer s(hostOptions(false));
    putLease(s, "10.0.0.3");
    nextPass(s);
    s.loop.advance(std::chrono::seconds(10));
    s.loop.run();
    assert_string_equal(endpointAddresses(s).c_str(), "10.0.0.20");
    s.memory.get(kube::controller::controlplane::masterLeaseKey("10.0.0.20"),
                 [](const storage::Error& err, const storage::ObjectView*) {
                     assert_int_equal(static_cast<int>(err.code),
                                      static_cast<int>(storage::ErrorCode::NotFound));
                 });
}

void reconciler_none_keeps_no_endpoints(void**) {
    kube::server::ServerOptions o = hostOptions(true);
    o.endpointLeases = false;
    ServedServer s(o);
    nextPass(s);
    assert_int_equal(s.send("GET", kEndpoints).status, 404);
    assert_int_equal(s.send("GET", kSlice).status, 404);
    assert_int_equal(s.send("GET", "/api/v1/namespaces/default/services/kubernetes").status, 200);
}

// The lease of `ip` is in the storage.
bool leaseStored(ServedServer& s, const std::string& ip) {
    bool found = false;
    s.memory.get(
        kube::controller::controlplane::masterLeaseKey(ip),
        [&found](const storage::Error& err, const storage::ObjectView*) { found = err.ok(); });
    s.loop.run();
    return found;
}

// A graceful stop (kube's RemoveEndpoints): the lease this server wrote is
// deleted at once and no later pass writes it again; one rewritten since
// (by a reload's new workers) is left.
void stop_deletes_the_lease_it_wrote_and_no_other(void**) {
    {
        ServedServer s(hostOptions(true));
        assert_true(leaseStored(s, "10.0.0.20"));
        bool stopped = false;
        s.server.stop([&stopped] { stopped = true; });
        s.loop.run();
        assert_true(stopped);
        assert_false(leaseStored(s, "10.0.0.20"));
        nextPass(s);
        nextPass(s);
        assert_false(leaseStored(s, "10.0.0.20"));
    }
    {
        ServedServer s(hostOptions(true));
        // written again since, by another writer
        std::vector<storage::WriteOp> ops(1);
        ops[0].type = storage::WriteOp::Type::Update;
        ops[0].key = kube::controller::controlplane::masterLeaseKey("10.0.0.20");
        ops[0].value = R"({"kind":"Endpoints","apiVersion":"v1","metadata":{"generation":9},)"
                       R"("subsets":[{"addresses":[{"ip":"10.0.0.20"}]}]})";
        bool written = false;
        s.memory.write(std::move(ops),
                       [&written](storage::WriteResult&& r) { written = r.error.ok(); });
        s.loop.run();
        assert_true(written);
        bool stopped = false;
        s.server.stop([&stopped] { stopped = true; });
        s.loop.run();
        assert_true(stopped);
        assert_true(leaseStored(s, "10.0.0.20"));
    }
    {
        // storage of its own: no lease, stopped at once
        ServedServer s(hostOptions(false));
        bool stopped = false;
        s.server.stop([&stopped] { stopped = true; });
        s.loop.run();
        assert_true(stopped);
    }
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_live_lease_is_named_sorted),
        cmocka_unit_test(storage_of_its_own_names_only_this_server),
        cmocka_unit_test(reconciler_none_keeps_no_endpoints),
        cmocka_unit_test(stop_deletes_the_lease_it_wrote_and_no_other),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
