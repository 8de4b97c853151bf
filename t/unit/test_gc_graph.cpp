#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "controller/garbagecollector/garbage_collector.hpp"
#include "controller/garbagecollector/graph.hpp"
#include "fake_loop.hpp"
#include "registry/encoding.hpp"
#include "registry/scheme.hpp"
#include "registry/store.hpp"
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

namespace json = kube::util::json;
namespace registry = kube::registry;
namespace storage = kube::storage;
namespace gc = kube::garbagecollector;
using kube::meta::Status;
using kube::testing::FakeLoop;

namespace {

gc::OwnerReference ref(std::string uid, bool block = false) {
    gc::OwnerReference r;
    r.apiVersion = "v1";
    r.kind = "ConfigMap";
    r.name = "owner-" + uid;
    r.uid = std::move(uid);
    r.blockOwnerDeletion = block;
    return r;
}

gc::ObjectInfo object(std::string uid, std::vector<gc::OwnerReference> owners = {}) {
    gc::ObjectInfo o;
    o.uid = uid;
    o.name = "obj-" + uid;
    o.ns = "ns";
    o.owners = std::move(owners);
    return o;
}

bool has(const std::vector<std::string>& v, std::string_view s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

// --- the graph --------------------------------------------------------------

void a_dependent_of_an_unseen_owner_is_checked(void**) {
    gc::Graph g;
    gc::Work w;
    g.observe(object("d", {ref("o")}), w);
    assert_true(has(w.attemptToDelete, "d"));
    const gc::Node* owner = g.node("o");
    assert_non_null(owner);
    assert_false(owner->observed);
    assert_int_equal(owner->dependents.size(), 1);
    assert_int_equal(g.observedCount(), 1);
}

void a_dependent_of_a_seen_owner_is_not_checked(void**) {
    gc::Graph g;
    gc::Work w;
    g.observe(object("d1", {ref("o")}), w);
    g.observe(object("o"), w);  // seen now (it has a dependent, so it is kept)
    w = {};
    g.observe(object("d2", {ref("o")}), w);
    assert_true(w.attemptToDelete.empty());
    assert_true(g.node("o")->observed);
    assert_int_equal(g.dependents("o").size(), 2);
}

void forgetting_an_owner_queues_its_dependents(void**) {
    gc::Graph g;
    gc::Work w;
    g.observe(object("d1", {ref("o")}), w);
    g.observe(object("d2", {ref("o")}), w);
    g.observe(object("o"), w);
    w = {};
    g.forget("o", w);
    assert_true(has(w.attemptToDelete, "d1"));
    assert_true(has(w.attemptToDelete, "d2"));
    // Its dependents still name it: it stays as a virtual node.
    assert_non_null(g.node("o"));
    assert_false(g.node("o")->observed);
    w = {};
    g.forget("d1", w);
    g.forget("d2", w);
    assert_null(g.node("o"));
    assert_int_equal(g.size(), 0);
}

void forgetting_a_virtual_owner_queues_its_dependents(void**) {
    gc::Graph g;
    gc::Work w;
    g.observe(object("d", {ref("o")}), w);
    w = {};
    g.forget("o", w);
    assert_true(has(w.attemptToDelete, "d"));
}

void forgetting_a_resource_forgets_its_objects_only(void**) {
    registry::Scheme scheme;
    registry::addBuiltinKinds(scheme);
    const registry::KindInfo* cms = scheme.find("", "v1", "configmaps");
    const registry::KindInfo* secrets = scheme.find("", "v1", "secrets");
    gc::Graph g;
    gc::Work w;
    gc::ObjectInfo owner = object("o");
    owner.kind = secrets;
    gc::ObjectInfo dep = object("d", {ref("o")});
    dep.kind = cms;
    gc::ObjectInfo secretDep = object("s", {ref("c")});
    secretDep.kind = secrets;
    gc::ObjectInfo cmOwner = object("c");
    cmOwner.kind = cms;
    g.observe(dep, w);
    g.observe(owner, w);
    g.observe(secretDep, w);
    g.observe(cmOwner, w);
    w = {};
    g.forgetResource("", "secrets", w);
    // The configmap's owner was a secret: it is looked at.
    assert_true(has(w.attemptToDelete, "d"));
    for (std::string_view uid : {"o", "s", "c", "d"}) {
        const gc::Node* n = g.node(uid);
        assert_true(!n || !n->observed || n->info.kind != secrets);
    }
    assert_true(g.node("d")->observed);
    assert_null(g.node("s"));
    // The configmap the secret named has no dependent left.
    assert_null(g.node("c"));
}

void objects_without_owners_or_dependents_are_not_kept(void**) {
    gc::Graph g;
    gc::Work w;
    g.observe(object("lonely"), w);
    assert_int_equal(g.size(), 0);
    g.observe(object("d", {ref("o")}), w);
    assert_int_equal(g.size(), 2);
    // Its reference removed, neither object matters any more.
    g.observe(object("d"), w);
    assert_int_equal(g.size(), 0);
}

void a_foreground_owner_queues_its_dependents_and_itself(void**) {
    gc::Graph g;
    gc::Work w;
    g.observe(object("d1", {ref("o", true)}), w);
    g.observe(object("d2", {ref("o", false)}), w);
    g.observe(object("o"), w);
    w = {};
    gc::ObjectInfo deleting = object("o");
    deleting.deleting = true;
    deleting.deletingDependents = true;
    g.observe(deleting, w);
    assert_true(has(w.attemptToDelete, "d1"));
    assert_true(has(w.attemptToDelete, "d2"));
    assert_true(has(w.attemptToDelete, "o"));
    std::vector<const gc::Node*> blocking = g.blockingDependents("o");
    assert_int_equal(blocking.size(), 1);
    assert_string_equal(blocking[0]->info.uid.c_str(), "d1");
    // The blocking dependent goes: the owner is looked at again.
    w = {};
    g.forget("d1", w);
    assert_true(has(w.attemptToDelete, "o"));
    assert_int_equal(g.blockingDependents("o").size(), 0);
}

void a_dependent_that_stops_blocking_requeues_a_waiting_owner(void**) {
    gc::Graph g;
    gc::Work w;
    g.observe(object("d", {ref("o", true)}), w);
    gc::ObjectInfo deleting = object("o");
    deleting.deleting = true;
    deleting.deletingDependents = true;
    g.observe(deleting, w);
    w = {};
    g.observe(object("d", {ref("o", false)}), w);
    assert_true(has(w.attemptToDelete, "o"));
}

void an_orphaning_owner_goes_to_the_orphan_queue(void**) {
    gc::Graph g;
    gc::Work w;
    gc::ObjectInfo o = object("o");
    o.deleting = true;
    o.orphaning = true;
    g.observe(o, w);
    assert_true(has(w.attemptToOrphan, "o"));
    assert_non_null(g.node("o"));
}

void object_info_reads_owner_references_and_deletion_state(void**) {
    registry::KindInfo kind;
    gc::ObjectInfo info;
    assert_true(gc::objectInfo(kind, std::string_view(R"({"metadata":{"name":"a","namespace":"n",
        "uid":"u1","deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["foregroundDeletion"],
        "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u0",
        "controller":true,"blockOwnerDeletion":true},{"name":"no-uid"}]}})"),
                               &info));
    assert_string_equal(info.uid.c_str(), "u1");
    assert_int_equal(info.owners.size(), 1);
    assert_true(info.owners[0].blockOwnerDeletion);
    assert_true(info.owners[0].controller);
    assert_string_equal(info.owners[0].kind.c_str(), "ReplicaSet");
    assert_true(info.deleting);
    assert_true(info.deletingDependents);
    assert_false(info.orphaning);
    assert_false(gc::objectInfo(kind, std::string_view(R"({"metadata":{"name":"a"}})"), &info));
}

// --- the collector on the memory store --------------------------------------

struct Fixture {
    FakeLoop loop;
    storage::memory::Store memory{loop};
    registry::Scheme scheme;
    storage::cacher::Cacher cacher;
    std::map<const registry::KindInfo*, std::shared_ptr<registry::Store>> stores;
    std::unique_ptr<gc::GarbageCollector> collector;
    const registry::KindInfo* configmaps = nullptr;

    Fixture() : cacher(memory, loop, registry::withResourceVersion) {
        registry::addBuiltinKinds(scheme);
        configmaps = scheme.find("", "v1", "configmaps");
        for (const char* resource : {"configmaps", "secrets"}) {
            const registry::KindInfo* k = scheme.find("", "v1", resource);
            stores[k] = std::make_shared<registry::Store>(*k, memory, loop);
            stores[k]->setCacher(&cacher, true);
        }
        collector = std::make_unique<gc::GarbageCollector>(
            loop, scheme, [this](const registry::KindInfo& k) -> std::shared_ptr<registry::Store> {
                auto it = stores.find(&k);
                return it == stores.end() ? nullptr : it->second;
            });
        for (auto& [k, store] : stores) {
            Status err;
            collector->follow(*k, *store->watchCache(&err));
        }
    }

    registry::Store& cms() { return *stores.at(configmaps); }

    // Runs the loop and the change feed until nothing is left to do.
    void settle() {
        for (int i = 0; i < 200; i++) {
            cacher.poll();
            if (loop.run() == 0) {
                cacher.poll();
                if (loop.run() == 0) {
                    return;
                }
            }
        }
    }

    // Creates a configmap owned by `owners` (configmaps: name, uid); its uid.
    using Owner = std::pair<std::string, std::string>;
    std::string create(std::string_view name, std::vector<Owner> owners = {},
                       bool block = false) {
        std::string refs;
        for (const auto& [owner, uid] : owners) {
            refs += std::string(refs.empty() ? "" : ",") +
                    R"({"apiVersion":"v1","kind":"ConfigMap","name":")" + owner + R"(","uid":")" +
                    uid + R"(","blockOwnerDeletion":)" + (block ? "true" : "false") + "}";
        }
        auto doc = std::make_shared<json::Document>();
        std::string text = R"({"metadata":{"name":")" + std::string(name) + "\"" +
                           (refs.empty() ? "" : ",\"ownerReferences\":[" + refs + "]") + "}}";
        assert_false(json::parse(text, *doc).has_value());
        std::string uid;
        cms().create("ns", doc, {}, [&](const Status* err, std::string_view obj) {
            assert_null(err);
            json::Document out;
            json::parse(obj, out);
            uid = std::string(json::stringMember(out["metadata"], "uid"));
        });
        settle();
        return uid;
    }

    void remove(std::string_view name, const char* policy) {
        registry::DeleteOptions opts;
        opts.propagationPolicy = policy;
        bool called = false;
        cms().remove("ns", name, opts, [&](const Status* err, const registry::DeleteResult&) {
            assert_null(err);
            called = true;
        });
        settle();
        assert_true(called);
    }

    bool exists(std::string_view name) {
        bool found = false;
        cms().get("ns", name, [&](const Status* err, std::string_view) { found = !err; });
        loop.run();
        return found;
    }

    std::string get(std::string_view name) {
        std::string out;
        cms().get("ns", name, [&](const Status*, std::string_view obj) { out = obj; });
        loop.run();
        return out;
    }
};

void background_deletion_collects_dependents_of_dependents(void**) {
    Fixture f;
    std::string owner = f.create("owner");
    std::string mid = f.create("mid", {{"owner", owner}});
    f.create("leaf1", {{"mid", mid}});
    f.create("leaf2", {{"mid", mid}});
    f.create("unrelated");
    f.remove("owner", "Background");
    assert_false(f.exists("owner"));
    assert_false(f.exists("mid"));
    assert_false(f.exists("leaf1"));
    assert_false(f.exists("leaf2"));
    assert_true(f.exists("unrelated"));
    assert_int_equal(f.collector->graph().size(), 0);
}

void a_dependent_with_another_live_owner_only_loses_the_reference(void**) {
    Fixture f;
    std::string a = f.create("a");
    std::string b = f.create("b");
    f.create("shared", {{"a", a}, {"b", b}});
    f.remove("a", "Background");
    assert_true(f.exists("shared"));
    std::string shared = f.get("shared");
    assert_null(strstr(shared.c_str(), a.c_str()));
    assert_non_null(strstr(shared.c_str(), b.c_str()));
}

void foreground_deletion_waits_for_blocking_dependents(void**) {
    Fixture f;
    std::string owner = f.create("owner");
    f.create("dep", {{"owner", owner}}, true);
    f.remove("owner", "Foreground");
    assert_false(f.exists("dep"));
    assert_false(f.exists("owner"));
}

void orphan_deletion_strips_references_and_keeps_dependents(void**) {
    Fixture f;
    std::string owner = f.create("owner");
    f.create("dep1", {{"owner", owner}});
    f.create("dep2", {{"owner", owner}});
    f.remove("owner", "Orphan");
    assert_false(f.exists("owner"));
    assert_true(f.exists("dep1"));
    assert_true(f.exists("dep2"));
    assert_null(strstr(f.get("dep1").c_str(), "ownerReferences"));
    assert_null(strstr(f.get("dep2").c_str(), "ownerReferences"));
}

void dangling_references_are_collected(void**) {
    Fixture f;
    std::string real = f.create("real");
    f.create("orphaned", {{"gone", "no-such-uid"}});
    f.create("replaced", {{"real", "not-the-uid-of-real"}});
    f.create("kept", {{"real", real}});
    assert_false(f.exists("orphaned"));
    assert_false(f.exists("replaced"));
    assert_true(f.exists("kept"));
}

void an_unfollowed_kind_leaves_the_graph_and_the_rest_works(void**) {
    Fixture f;
    const registry::KindInfo* secrets = f.scheme.find("", "v1", "secrets");
    std::string owner = f.create("owner");
    auto doc = std::make_shared<json::Document>();
    std::string text = R"({"metadata":{"name":"s","ownerReferences":[{"apiVersion":"v1",)"
                       R"("kind":"ConfigMap","name":"owner","uid":")" +
                       owner + R"("}]}})";
    assert_false(json::parse(text, *doc).has_value());
    f.stores.at(secrets)->create("ns", doc, {},
                                 [](const Status* err, std::string_view) { assert_null(err); });
    f.settle();
    assert_true(f.collector->follows(secrets));
    assert_int_equal(f.collector->graph().observedCount(), 2);
    f.collector->unfollow(*secrets);
    f.settle();
    assert_false(f.collector->follows(secrets));
    assert_int_equal(f.collector->graph().observedCount(), 0);  // the owner has no dependent
    // The store may go now; configmaps are still collected.
    f.stores.erase(secrets);
    std::string a = f.create("a");
    f.create("b", {{"a", a}});
    f.remove("a", "Background");
    assert_false(f.exists("b"));
    f.collector->unfollow(*secrets);  // twice: nothing
}

void work_per_pass_is_bounded(void**) {
    Fixture f;
    std::string owner = f.create("owner");
    for (int i = 0; i < 600; i++) {
        f.create("d" + std::to_string(i), {{"owner", owner}});
    }
    registry::DeleteOptions opts;
    f.cms().remove("ns", "owner", opts, [](const Status*, const registry::DeleteResult&) {});
    f.loop.run();
    f.cacher.poll();  // the deletion reaches the graph: 600 dependents queued
    gc::GarbageCollector::Stats s = f.collector->stats();
    assert_true(s.queued + s.inFlight >= 600);
    // One posted pass starts at most kItemsPerPass and keeps kMaxInFlight going.
    f.loop.run();
    s = f.collector->stats();
    assert_true(s.inFlight <= gc::GarbageCollector::kMaxInFlight);
    f.settle();
    assert_int_equal(f.collector->stats().deleted, 600);
    assert_false(f.exists("d599"));
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_dependent_of_an_unseen_owner_is_checked),
        cmocka_unit_test(a_dependent_of_a_seen_owner_is_not_checked),
        cmocka_unit_test(forgetting_a_resource_forgets_its_objects_only),
        cmocka_unit_test(an_unfollowed_kind_leaves_the_graph_and_the_rest_works),
        cmocka_unit_test(forgetting_an_owner_queues_its_dependents),
        cmocka_unit_test(forgetting_a_virtual_owner_queues_its_dependents),
        cmocka_unit_test(objects_without_owners_or_dependents_are_not_kept),
        cmocka_unit_test(a_foreground_owner_queues_its_dependents_and_itself),
        cmocka_unit_test(a_dependent_that_stops_blocking_requeues_a_waiting_owner),
        cmocka_unit_test(an_orphaning_owner_goes_to_the_orphan_queue),
        cmocka_unit_test(object_info_reads_owner_references_and_deletion_state),
        cmocka_unit_test(background_deletion_collects_dependents_of_dependents),
        cmocka_unit_test(a_dependent_with_another_live_owner_only_loses_the_reference),
        cmocka_unit_test(foreground_deletion_waits_for_blocking_dependents),
        cmocka_unit_test(orphan_deletion_strips_references_and_keeps_dependents),
        cmocka_unit_test(dangling_references_are_collected),
        cmocka_unit_test(work_per_pass_is_bounded),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
