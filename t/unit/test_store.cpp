#include <cctype>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "controller/namespace/namespace_controller.hpp"
#include "fake_loop.hpp"
#include "registry/scheme.hpp"
#include "registry/store.hpp"
#include "storage/memory/memory_store.hpp"
#include "util/json.hpp"
#include "util/time.hpp"

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

namespace json = kube::util::json;
namespace registry = kube::registry;
namespace storage = kube::storage;
using kube::meta::Status;
using kube::testing::FakeLoop;

namespace {

// Forwards to another backend, but applies each write only when the loop
// runs: two requests issued back to back then read the same revision and
// race, as on a real backend whose commits complete later.
class DeferredWrites : public storage::Interface {
  public:
    DeferredWrites(storage::Interface& inner, kube::util::EventLoop& loop)
        : inner_(inner), loop_(loop) {}

    void get(std::string_view key, GetCallback cb) override { inner_.get(key, std::move(cb)); }
    void list(const storage::ListOptions& opts, ListCallback cb) override {
        inner_.list(opts, std::move(cb));
    }
    void write(std::vector<storage::WriteOp> ops, WriteCallback cb) override {
        writes++;
        loop_.post([this, ops = std::move(ops), cb = std::move(cb)]() mutable {
            inner_.write(std::move(ops), std::move(cb));
        });
    }
    storage::Revision currentRevision() override { return inner_.currentRevision(); }
    void history(storage::Revision after, size_t limit, HistoryCallback cb) override {
        inner_.history(after, limit, std::move(cb));
    }
    void setCommitListener(CommitListener listener) override {
        inner_.setCommitListener(std::move(listener));
    }
    void compact(storage::Revision revision, CompactCallback cb) override {
        inner_.compact(revision, std::move(cb));
    }
    storage::Revision compactedRevision() override { return inner_.compactedRevision(); }

    int writes = 0;

  private:
    storage::Interface& inner_;
    kube::util::EventLoop& loop_;
};

// The outcome of one store call, copied out of its callback.
struct Result {
    bool called = false;
    std::optional<Status> error;
    std::string object;
};

struct Page {
    bool called = false;
    std::optional<Status> error;
    std::vector<std::string> keys;
    std::vector<std::string> items;
    storage::Revision revision = 0;
    std::string continueToken;
    std::optional<uint64_t> remaining;
};

struct Deleted {
    bool called = false;
    std::optional<Status> error;
    registry::DeleteResult result;
};

// The JSON readers every unit test shares.
auto& parse = kube::testing::parseJson;
auto& at = kube::testing::bodyAt;

auto& body = kube::testing::parseSharedJson;

std::string rv(std::string_view object) {
    return at(object, {"metadata", "resourceVersion"});
}

// A scheme, the memory backend and one generic store per built-in kind, with
// the namespace controller wired as the server wires it.
struct Fixture {
    FakeLoop loop;
    storage::memory::Store memory{loop};
    DeferredWrites deferred{memory, loop};
    storage::Interface& backend;
    registry::Scheme scheme;
    std::map<std::string, std::unique_ptr<registry::Store>> stores;
    std::unique_ptr<kube::namespacecontroller::NamespaceController> namespaces;

    explicit Fixture(bool deferWrites = false)
        : backend(deferWrites ? static_cast<storage::Interface&>(deferred) : memory) {
        registry::addBuiltinKinds(scheme);
        for (const auto& k : scheme.all()) {
            stores[k->group + "/" + k->resource] =
                std::make_unique<registry::Store>(*k, backend, loop);
        }
        for (auto& [name, store] : stores) {
            store->setScheme(&scheme);
        }
        namespaces = std::make_unique<kube::namespacecontroller::NamespaceController>(
            loop, backend, scheme, store("", "namespaces").kind(),
            [this](const registry::KindInfo& k) -> registry::Store* {
                return stores.at(k.group + "/" + k.resource).get();
            });
        store("", "namespaces").setTerminator([this](const std::string& name) {
            namespaces->enqueue(name);
        });
    }

    registry::Store& store(std::string_view group, std::string_view resource) {
        auto it = stores.find(std::string(group) + "/" + std::string(resource));
        if (it == stores.end()) {
            fail_msg("no store for %s", std::string(resource).c_str());
        }
        return *it->second;
    }

    // Like the create handler: the decoded body carries kind and apiVersion.
    Result create(registry::Store& s, std::string_view ns, std::string_view text,
                  registry::CreateOptions opts = {}) {
        auto doc = body(text);
        auto& a = doc->GetAllocator();
        json::setMember(*doc, "apiVersion", json::stringValue(s.kind().apiVersion(), a), a);
        json::setMember(*doc, "kind", json::stringValue(s.kind().kind, a), a);
        return createRaw(s, ns, doc, opts);
    }

    Result createRaw(registry::Store& s, std::string_view ns, std::shared_ptr<json::Document> doc,
                     registry::CreateOptions opts = {}) {
        auto r = std::make_shared<Result>();
        s.create(ns, std::move(doc), opts, [r](const Status* err, std::string_view obj) {
            r->called = true;
            if (err) {
                r->error = *err;
            }
            r->object = std::string(obj);
        });
        loop.run();
        assert_true(r->called);
        return *r;
    }

    // Creates and insists on success; returns the stored object.
    std::string mustCreate(registry::Store& s, std::string_view ns, std::string_view text) {
        Result r = create(s, ns, text);
        if (r.error) {
            fail_msg("create failed: %s", r.error->message.c_str());
        }
        return r.object;
    }

    Result get(registry::Store& s, std::string_view ns, std::string_view name) {
        auto r = std::make_shared<Result>();
        s.get(ns, name, [r](const Status* err, std::string_view obj) {
            r->called = true;
            if (err) {
                r->error = *err;
            }
            r->object = std::string(obj);
        });
        loop.run();
        assert_true(r->called);
        return *r;
    }

    Result update(registry::Store& s, std::string_view ns, std::string_view name,
                  std::string_view text, registry::UpdateOptions opts = {}) {
        auto r = std::make_shared<Result>();
        s.update(ns, name, body(text), opts, [r](const Status* err, std::string_view obj) {
            r->called = true;
            if (err) {
                r->error = *err;
            }
            r->object = std::string(obj);
        });
        loop.run();
        assert_true(r->called);
        return *r;
    }

    Deleted remove(registry::Store& s, std::string_view ns, std::string_view name,
                   registry::DeleteOptions opts = {}) {
        auto r = std::make_shared<Deleted>();
        s.remove(ns, name, opts, [r](const Status* err, const registry::DeleteResult& res) {
            r->called = true;
            if (err) {
                r->error = *err;
            }
            r->result = res;
        });
        loop.run();
        assert_true(r->called);
        return *r;
    }

    static registry::Store::ListCallback collect(std::shared_ptr<Page> p) {
        return [p](const Status* err, const registry::ListPage& page) {
            p->called = true;
            if (err) {
                p->error = *err;
                return;
            }
            for (const storage::ObjectView& item : page.items) {
                p->keys.emplace_back(item.key);
                p->items.emplace_back(item.value);
            }
            p->revision = page.revision;
            p->continueToken = page.continueToken;
            p->remaining = page.remainingItemCount;
        };
    }

    Page list(registry::Store& s, std::string_view ns, registry::ListOptions opts = {}) {
        auto p = std::make_shared<Page>();
        s.list(ns, opts, collect(p));
        loop.run();
        assert_true(p->called);
        return *p;
    }

    Page deleteCollection(registry::Store& s, std::string_view ns,
                          const registry::DeleteOptions& opts = {}) {
        auto p = std::make_shared<Page>();
        s.deleteCollection(ns, {}, opts, collect(p));
        loop.run();
        assert_true(p->called);
        return *p;
    }
};

const char* kDeployment =
    R"({"metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},)"
    R"("template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[)"
    R"({"name":"c","image":"nginx"}]}}}})";

void expectStatus(const std::optional<Status>& s, int code, const char* reason,
                  const char* message) {
    if (!s) {
        fail_msg("expected %d %s, got success", code, reason);
    }
    assert_int_equal(s->code, code);
    assert_string_equal(s->reason.c_str(), reason);
    if (message) {
        assert_string_equal(s->message.c_str(), message);
    }
}

bool isUuid4(std::string_view s) {
    if (s.size() != 36 || s[14] != '4') {
        return false;
    }
    for (size_t i = 0; i < s.size(); i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash != (s[i] == '-') || (!dash && !isxdigit(static_cast<unsigned char>(s[i])))) {
            return false;
        }
    }
    return true;
}

void create_fills_server_owned_metadata(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string obj =
        f.mustCreate(cms, "wire",
                     R"({"metadata":{"name":"a","uid":"client-uid","generation":7,"selfLink":"/x",)"
                     R"("creationTimestamp":"2000-01-01T00:00:00Z"},"data":{"k":"v"}})");
    assert_string_equal(at(obj, {"kind"}).c_str(), "ConfigMap");
    assert_string_equal(at(obj, {"apiVersion"}).c_str(), "v1");
    assert_string_equal(at(obj, {"metadata", "namespace"}).c_str(), "wire");
    std::string uid = at(obj, {"metadata", "uid"});
    assert_true(isUuid4(uid));
    assert_string_not_equal(uid.c_str(), "client-uid");
    // The fake clock's time, not the client's.
    assert_string_equal(at(obj, {"metadata", "creationTimestamp"}).c_str(), "2026-09-21T14:13:20Z");
    assert_string_equal(at(obj, {"metadata", "creationTimestamp"}).c_str(),
                        kube::util::time::formatRFC3339(f.loop.now()).c_str());
    assert_string_equal(rv(obj).c_str(), std::to_string(f.memory.currentRevision()).c_str());
    // ConfigMaps have no spec, so no generation; selfLink is gone.
    assert_string_equal(at(obj, {"metadata", "generation"}).c_str(), "<absent>");
    assert_string_equal(at(obj, {"metadata", "selfLink"}).c_str(), "<absent>");
    assert_string_equal(obj.c_str(), f.get(cms, "wire", "a").object.c_str());

    std::string deploy = f.mustCreate(f.store("apps", "deployments"), "wire", kDeployment);
    assert_string_equal(at(deploy, {"metadata", "generation"}).c_str(), "1");
    assert_string_equal(at(deploy, {"apiVersion"}).c_str(), "apps/v1");
    // Every write is its own revision.
    assert_int_equal(std::stoull(rv(deploy)), std::stoull(rv(obj)) + 1);
}

void create_accepts_a_body_without_type_meta(void**) {
    // The store sets kind and apiVersion itself; a long apiVersion
    // ("rbac.authorization.k8s.io/v1") must not disturb the metadata it checks.
    Fixture f;
    for (const char* group : {"rbac.authorization.k8s.io", "coordination.k8s.io"}) {
        registry::Store& s = f.store(group, group[0] == 'r' ? "roles" : "leases");
        Result r = f.createRaw(s, "wire", body(R"({"metadata":{"name":"x"}})"));
        if (r.error) {
            fail_msg("%s create failed: %s", group, r.error->message.c_str());
        }
        assert_string_equal(at(r.object, {"metadata", "namespace"}).c_str(), "wire");
        assert_string_equal(at(r.object, {"apiVersion"}).c_str(),
                            (std::string(group) + "/v1").c_str());
    }
}

void cluster_scoped_create_drops_a_namespace(void**) {
    Fixture f;
    std::string ns = f.mustCreate(f.store("", "namespaces"), "",
                                  R"({"metadata":{"name":"wire","namespace":"other"}})");
    assert_string_equal(at(ns, {"metadata", "namespace"}).c_str(), "<absent>");
    assert_string_equal(at(ns, {"status", "phase"}).c_str(), "Active");
    assert_string_equal(at(ns, {"spec", "finalizers"}).c_str(), R"(["kubernetes"])");
}

void create_of_an_existing_name_is_already_exists(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    f.mustCreate(cms, "wire", R"({"metadata":{"name":"a"}})");
    storage::Revision before = f.memory.currentRevision();
    Result r = f.create(cms, "wire", R"({"metadata":{"name":"a"},"data":{"x":"y"}})");
    expectStatus(r.error, 409, "AlreadyExists", "configmaps \"a\" already exists");
    assert_string_equal(r.error->details->name.c_str(), "a");
    assert_string_equal(r.error->details->kind.c_str(), "configmaps");
    assert_int_equal(f.memory.currentRevision(), before);
    // The same name in another namespace is another object.
    assert_false(f.create(cms, "other", R"({"metadata":{"name":"a"}})").error.has_value());
}

void generate_name_gets_five_random_characters(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::set<std::string> names;
    for (int i = 0; i < 3; i++) {
        std::string obj = f.mustCreate(cms, "wire", R"({"metadata":{"generateName":"gen-"}})");
        std::string name = at(obj, {"metadata", "name"});
        assert_int_equal(name.size(), 9);
        assert_true(name.starts_with("gen-"));
        for (char c : name.substr(4)) {
            assert_non_null(strchr("bcdfghjklmnpqrstvwxz2456789", c));
        }
        assert_string_equal(at(obj, {"metadata", "generateName"}).c_str(), "gen-");
        assert_false(f.get(cms, "wire", name).error.has_value());
        names.insert(name);
    }
    assert_int_equal(names.size(), 3);
}

void invalid_objects_are_422_with_causes_and_not_stored(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    Result r = f.create(cms, "wire", R"({"metadata":{"name":"Bad_Name"}})");
    expectStatus(r.error, 422, "Invalid", nullptr);
    assert_true(r.error->message.starts_with(
        "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a "
        "lowercase RFC 1123 subdomain"));
    assert_string_equal(r.error->details->kind.c_str(), "ConfigMap");
    assert_string_equal(r.error->details->name.c_str(), "Bad_Name");
    assert_int_equal(r.error->details->causes.size(), 1);
    assert_string_equal(r.error->details->causes[0].reason.c_str(), "FieldValueInvalid");
    assert_string_equal(r.error->details->causes[0].field.c_str(), "metadata.name");

    // Metadata and kind validation together, each a cause.
    r = f.create(cms, "wire",
                 R"({"metadata":{"name":"ok","labels":{"bad key":"v"}},)"
                 R"("data":{"bad key":"v"}})");
    expectStatus(r.error, 422, "Invalid", nullptr);
    assert_int_equal(r.error->details->causes.size(), 2);
    assert_string_equal(r.error->details->causes[0].field.c_str(), "metadata.labels");
    assert_string_equal(r.error->details->causes[1].field.c_str(), "data[bad key]");
    assert_int_equal(f.memory.currentRevision(), 0);
    assert_int_equal(f.list(cms, "").items.size(), 0);

    // Nameless: required.
    r = f.create(cms, "wire", R"({"data":{}})");
    expectStatus(r.error, 422, "Invalid", nullptr);
    assert_string_equal(r.error->details->causes[0].reason.c_str(), "FieldValueRequired");
}

void dry_run_create_answers_without_storing(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    Result r = f.create(cms, "wire", R"({"metadata":{"name":"dry"},"data":{"k":"v"}})",
                        registry::CreateOptions{true});
    assert_false(r.error.has_value());
    assert_true(isUuid4(at(r.object, {"metadata", "uid"})));
    assert_string_equal(at(r.object, {"metadata", "creationTimestamp"}).c_str(),
                        "2026-09-21T14:13:20Z");
    assert_string_equal(rv(r.object).c_str(), "<absent>");
    assert_string_equal(at(r.object, {"data", "k"}).c_str(), "v");
    assert_int_equal(f.memory.currentRevision(), 0);
    expectStatus(f.get(cms, "wire", "dry").error, 404, "NotFound", "configmaps \"dry\" not found");
    // Validation still runs.
    expectStatus(
        f.create(cms, "wire", R"({"metadata":{"name":"Bad"}})", registry::CreateOptions{true})
            .error,
        422, "Invalid", nullptr);
}

void update_with_a_stale_resource_version_is_a_conflict(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string v1 = f.mustCreate(cms, "wire", R"({"metadata":{"name":"a"},"data":{"k":"1"}})");
    Result r = f.update(cms, "wire", "a", R"({"metadata":{"name":"a"},"data":{"k":"2"}})");
    assert_false(r.error.has_value());
    std::string stale =
        R"({"metadata":{"name":"a","resourceVersion":")" + rv(v1) + R"("},"data":{"k":"3"}})";
    r = f.update(cms, "wire", "a", stale);
    expectStatus(r.error, 409, "Conflict",
                 "Operation cannot be fulfilled on configmaps \"a\": the object has been "
                 "modified; please apply your changes to the latest version and try again");
    assert_string_equal(r.error->details->name.c_str(), "a");
    assert_string_equal(r.error->details->kind.c_str(), "configmaps");
    assert_string_equal(at(f.get(cms, "wire", "a").object, {"data", "k"}).c_str(), "2");
}

void update_without_resource_version_is_unconditional(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string v1 = f.mustCreate(cms, "wire", R"({"metadata":{"name":"a"},"data":{"k":"1"}})");
    Result r = f.update(cms, "wire", "a", R"({"metadata":{"name":"a"},"data":{"k":"2"}})");
    assert_false(r.error.has_value());
    assert_int_equal(std::stoull(rv(r.object)), std::stoull(rv(v1)) + 1);
    assert_string_equal(at(r.object, {"data", "k"}).c_str(), "2");
    // Server-owned metadata survives a body that leaves it out.
    assert_string_equal(at(r.object, {"metadata", "uid"}).c_str(),
                        at(v1, {"metadata", "uid"}).c_str());
    assert_string_equal(at(r.object, {"metadata", "creationTimestamp"}).c_str(),
                        at(v1, {"metadata", "creationTimestamp"}).c_str());
    assert_string_equal(at(r.object, {"metadata", "namespace"}).c_str(), "wire");
    assert_string_equal(r.object.c_str(), f.get(cms, "wire", "a").object.c_str());
    // The current resourceVersion is accepted as a precondition.
    std::string current =
        R"({"metadata":{"name":"a","resourceVersion":")" + rv(r.object) + R"("},"data":{"k":"3"}})";
    r = f.update(cms, "wire", "a", current);
    assert_false(r.error.has_value());
    assert_string_equal(at(r.object, {"data", "k"}).c_str(), "3");
}

void update_of_a_missing_object_is_not_found(void**) {
    Fixture f;
    Result r =
        f.update(f.store("", "configmaps"), "wire", "nosuch", R"({"metadata":{"name":"nosuch"}})");
    expectStatus(r.error, 404, "NotFound", "configmaps \"nosuch\" not found");
    assert_int_equal(f.memory.currentRevision(), 0);
}

void no_op_update_keeps_the_resource_version(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string v1 = f.mustCreate(cms, "wire", R"({"metadata":{"name":"a"},"data":{"k":"1"}})");
    storage::Revision before = f.memory.currentRevision();
    Result r = f.update(cms, "wire", "a", v1);
    assert_false(r.error.has_value());
    assert_string_equal(r.object.c_str(), v1.c_str());
    assert_int_equal(f.memory.currentRevision(), before);
    // Also without the resourceVersion in the body.
    r = f.update(cms, "wire", "a", R"({"metadata":{"name":"a"},"data":{"k":"1"}})");
    assert_string_equal(rv(r.object).c_str(), rv(v1).c_str());
    assert_int_equal(f.memory.currentRevision(), before);
}

void generation_is_bumped_only_by_spec_changes(void**) {
    Fixture f;
    registry::Store& deploys = f.store("apps", "deployments");
    std::string v1 = f.mustCreate(deploys, "wire", kDeployment);
    json::Document d = parse(v1);
    auto& a = d.GetAllocator();
    json::Value labels(rapidjson::kObjectType);
    labels.AddMember("tier", "fe", a);
    d["metadata"].AddMember("labels", labels, a);
    Result r = f.update(deploys, "wire", "web", json::serialize(d));
    assert_false(r.error.has_value());
    assert_int_not_equal(std::stoull(rv(r.object)), std::stoull(rv(v1)));
    assert_string_equal(at(r.object, {"metadata", "generation"}).c_str(), "1");

    d = parse(r.object);
    d["spec"]["replicas"].SetInt(3);
    r = f.update(deploys, "wire", "web", json::serialize(d));
    assert_false(r.error.has_value());
    assert_string_equal(at(r.object, {"metadata", "generation"}).c_str(), "2");
    assert_string_equal(at(r.object, {"spec", "replicas"}).c_str(), "3");
    // A client cannot set the generation.
    d = parse(r.object);
    d["metadata"]["generation"].SetInt(40);
    r = f.update(deploys, "wire", "web", json::serialize(d));
    assert_string_equal(at(r.object, {"metadata", "generation"}).c_str(), "2");
}

void status_is_kept_for_kinds_with_a_status_subresource(void**) {
    Fixture f;
    registry::Store& deploys = f.store("apps", "deployments");
    std::string v1 = f.mustCreate(deploys, "wire", kDeployment);
    std::string before = at(v1, {"status"});
    json::Document d = parse(v1);
    auto& a = d.GetAllocator();
    json::Value status(rapidjson::kObjectType);
    status.AddMember("replicas", 5, a);
    status.AddMember("readyReplicas", 5, a);
    json::setMember(d, "status", std::move(status), a);
    d["spec"]["replicas"].SetInt(2);
    Result r = f.update(deploys, "wire", "web", json::serialize(d));
    assert_false(r.error.has_value());
    assert_string_equal(at(r.object, {"status"}).c_str(), before.c_str());
    assert_string_equal(at(r.object, {"spec", "replicas"}).c_str(), "2");
    // Create clears a client's status too.
    std::string ns = f.mustCreate(f.store("", "namespaces"), "",
                                  R"({"metadata":{"name":"x"},"status":{"phase":"Terminating"}})");
    assert_string_equal(at(ns, {"status", "phase"}).c_str(), "Active");
}

void update_with_another_uid_fails_its_precondition(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string v1 = f.mustCreate(cms, "wire", R"({"metadata":{"name":"a"}})");
    std::string uid = at(v1, {"metadata", "uid"});
    Result r = f.update(cms, "wire", "a",
                        R"({"metadata":{"name":"a","uid":"0000-other"},"data":{"k":"v"}})");
    expectStatus(r.error, 409, "Conflict", nullptr);
    assert_true(
        r.error->message.starts_with("Operation cannot be fulfilled on configmaps \"a\": "));
    std::string want =
        "Precondition failed: UID in precondition: 0000-other, UID in object meta: " + uid;
    assert_true(r.error->message.find(want) != std::string::npos);
    assert_string_equal(f.get(cms, "wire", "a").object.c_str(), v1.c_str());
    // The right uid is fine.
    std::string same = R"({"metadata":{"name":"a","uid":")" + uid + R"("},"data":{"k":"v"}})";
    assert_false(f.update(cms, "wire", "a", same).error.has_value());
}

void invalid_update_is_422_and_leaves_the_object(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string v1 = f.mustCreate(cms, "wire", R"({"metadata":{"name":"a"}})");
    Result r = f.update(cms, "wire", "a", R"({"metadata":{"name":"a"},"data":{"bad key":"v"}})");
    expectStatus(r.error, 422, "Invalid", nullptr);
    assert_string_equal(r.error->details->causes[0].field.c_str(), "data[bad key]");
    assert_string_equal(f.get(cms, "wire", "a").object.c_str(), v1.c_str());
}

void delete_answers_a_success_status_naming_the_object(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string cm = f.mustCreate(cms, "wire", R"({"metadata":{"name":"c"}})");
    Deleted d = f.remove(cms, "wire", "c");
    assert_false(d.error.has_value());
    assert_false(d.result.returnsObject);
    assert_string_equal(d.result.status.toJson().c_str(),
                        (R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success",)"
                         R"("details":{"name":"c","kind":"configmaps","uid":")" +
                         at(cm, {"metadata", "uid"}) + R"("}})")
                            .c_str());
    expectStatus(f.get(cms, "wire", "c").error, 404, "NotFound", "configmaps \"c\" not found");

    registry::Store& deploys = f.store("apps", "deployments");
    std::string web = f.mustCreate(deploys, "wire", kDeployment);
    d = f.remove(deploys, "wire", "web");
    assert_false(d.error.has_value());
    assert_string_equal(d.result.status.details->group.c_str(), "apps");
    assert_string_equal(d.result.status.details->kind.c_str(), "deployments");
    assert_string_equal(d.result.status.details->uid.c_str(), at(web, {"metadata", "uid"}).c_str());

    expectStatus(f.remove(cms, "wire", "c").error, 404, "NotFound", "configmaps \"c\" not found");
}

void dry_run_delete_answers_the_same_and_keeps_the_object(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string cm = f.mustCreate(cms, "wire", R"({"metadata":{"name":"c"}})");
    registry::DeleteOptions opts;
    opts.dryRun = true;
    Deleted d = f.remove(cms, "wire", "c", opts);
    assert_false(d.error.has_value());
    assert_true(d.result.status.success);
    assert_string_equal(d.result.status.details->uid.c_str(), at(cm, {"metadata", "uid"}).c_str());
    assert_string_equal(f.get(cms, "wire", "c").object.c_str(), cm.c_str());
}

void delete_preconditions_are_checked(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string cm = f.mustCreate(cms, "wire", R"({"metadata":{"name":"c"}})");
    std::string uid = at(cm, {"metadata", "uid"});

    registry::DeleteOptions wrongUid;
    wrongUid.uid = "other";
    Deleted d = f.remove(cms, "wire", "c", wrongUid);
    expectStatus(d.error, 409, "Conflict",
                 ("Operation cannot be fulfilled on ConfigMap \"c\": the UID in the "
                  "precondition (other) does not match the UID in record (" +
                  uid + "). The object might have been deleted and then recreated")
                     .c_str());
    assert_string_equal(d.error->details->kind.c_str(), "ConfigMap");

    registry::DeleteOptions wrongRv;
    // Compared as strings: a leading zero is another version.
    wrongRv.resourceVersion = "0" + rv(cm);
    d = f.remove(cms, "wire", "c", wrongRv);
    expectStatus(d.error, 409, "Conflict",
                 ("Operation cannot be fulfilled on ConfigMap \"c\": the ResourceVersion in the "
                  "precondition (0" +
                  rv(cm) + ") does not match the ResourceVersion in record (" + rv(cm) +
                  "). The object might have been modified")
                     .c_str());
    // A dry run checks them too.
    wrongRv.dryRun = true;
    expectStatus(f.remove(cms, "wire", "c", wrongRv).error, 409, "Conflict", nullptr);
    assert_false(f.get(cms, "wire", "c").error.has_value());

    registry::DeleteOptions right;
    right.uid = uid;
    right.resourceVersion = rv(cm);
    d = f.remove(cms, "wire", "c", right);
    assert_false(d.error.has_value());
    assert_true(f.get(cms, "wire", "c").error.has_value());
}

void delete_collection_answers_with_the_deleted_objects(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string a = f.mustCreate(cms, "one", R"({"metadata":{"name":"a"}})");
    std::string b = f.mustCreate(cms, "one", R"({"metadata":{"name":"b"}})");
    f.mustCreate(cms, "two", R"({"metadata":{"name":"c"}})");
    Page deleted = f.deleteCollection(cms, "one");
    assert_false(deleted.error.has_value());
    assert_int_equal(deleted.items.size(), 2);
    assert_string_equal(at(deleted.items[0], {"metadata", "uid"}).c_str(),
                        at(a, {"metadata", "uid"}).c_str());
    assert_string_equal(at(deleted.items[1], {"metadata", "uid"}).c_str(),
                        at(b, {"metadata", "uid"}).c_str());
    assert_int_equal(f.list(cms, "one").items.size(), 0);
    Page two = f.list(cms, "two");
    assert_int_equal(two.items.size(), 1);
    // Nothing left: an empty answer, nothing written.
    storage::Revision before = f.memory.currentRevision();
    deleted = f.deleteCollection(cms, "one");
    assert_false(deleted.error.has_value());
    assert_int_equal(deleted.items.size(), 0);
    assert_int_equal(f.memory.currentRevision(), before);
}

void dry_run_delete_collection_deletes_nothing(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string a = f.mustCreate(cms, "one", R"({"metadata":{"name":"a"}})");
    f.mustCreate(cms, "one", R"({"metadata":{"name":"b"}})");
    storage::Revision before = f.memory.currentRevision();
    registry::DeleteOptions dry;
    dry.dryRun = true;
    Page deleted = f.deleteCollection(cms, "one", dry);
    assert_false(deleted.error.has_value());
    assert_int_equal(deleted.items.size(), 2);
    assert_string_equal(deleted.items[0].c_str(), a.c_str());
    assert_int_equal(f.list(cms, "one").items.size(), 2);
    assert_int_equal(f.memory.currentRevision(), before);
}

void delete_collection_preconditions_hold_for_every_item_or_nothing_goes(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    std::string a = f.mustCreate(cms, "one", R"({"metadata":{"name":"a"}})");
    std::string b = f.mustCreate(cms, "one", R"({"metadata":{"name":"b"}})");
    storage::Revision before = f.memory.currentRevision();
    // b's uid: a fails it first, and a is not deleted either.
    registry::DeleteOptions opts;
    opts.uid = at(b, {"metadata", "uid"});
    Page deleted = f.deleteCollection(cms, "one", opts);
    expectStatus(deleted.error, 409, "Conflict",
                 ("Operation cannot be fulfilled on ConfigMap \"a\": the UID in the "
                  "precondition (" +
                  *opts.uid + ") does not match the UID in record (" + at(a, {"metadata", "uid"}) +
                  "). The object might have been deleted and then recreated")
                     .c_str());
    assert_int_equal(f.list(cms, "one").items.size(), 2);
    assert_int_equal(f.memory.currentRevision(), before);
    // Preconditions every item meets: all go.
    f.mustCreate(cms, "two", R"({"metadata":{"name":"c"}})");
    std::string c = f.get(cms, "two", "c").object;
    opts.uid = at(c, {"metadata", "uid"});
    opts.resourceVersion = rv(c);
    deleted = f.deleteCollection(cms, "two", opts);
    assert_false(deleted.error.has_value());
    assert_int_equal(deleted.items.size(), 1);
    assert_int_equal(f.list(cms, "two").items.size(), 0);
}

void list_pages_return_every_object_once(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    for (const char* name : {"e", "a", "d", "b", "c"}) {
        f.mustCreate(cms, "wire", R"({"metadata":{"name":")" + std::string(name) + R"("}})");
    }
    f.mustCreate(cms, "other", R"({"metadata":{"name":"z"}})");
    storage::Revision listRevision = f.memory.currentRevision();
    std::vector<std::string> seen;
    registry::ListOptions opts;
    opts.limit = 2;
    std::vector<std::optional<uint64_t>> remaining;
    for (int pages = 0; pages < 10; pages++) {
        Page p = f.list(cms, "wire", opts);
        assert_false(p.error.has_value());
        assert_int_equal(p.revision, listRevision);
        for (const std::string& item : p.items) {
            seen.push_back(at(item, {"metadata", "name"}));
        }
        remaining.push_back(p.remaining);
        if (p.continueToken.empty()) {
            break;
        }
        opts.continueToken = p.continueToken;
    }
    std::vector<std::string> want = {"a", "b", "c", "d", "e"};
    assert_true(seen == want);
    assert_int_equal(remaining.size(), 3);
    assert_true(remaining[0] == std::optional<uint64_t>(3));
    assert_true(remaining[1] == std::optional<uint64_t>(1));
    // The last page has neither continue nor remainingItemCount.
    assert_false(remaining[2].has_value());

    Page all = f.list(cms, "");
    assert_int_equal(all.items.size(), 6);
    assert_true(all.continueToken.empty());
    // Items are sorted by key (namespace, then name).
    assert_string_equal(at(all.items[0], {"metadata", "namespace"}).c_str(), "other");
}

void a_malformed_continue_token_is_a_bad_request(void**) {
    Fixture f;
    registry::ListOptions opts;
    opts.continueToken = "%%%";
    Page p = f.list(f.store("", "configmaps"), "wire", opts);
    expectStatus(p.error, 400, "BadRequest", nullptr);
    // storage.ValidateListOptions wraps the decode error.
    assert_true(p.error->message.starts_with("invalid continue token: "));
}

kube::util::FieldSelector nameSelector(const char* name) {
    std::string err;
    return *kube::util::FieldSelector::parse(std::string("metadata.name=") + name, &err);
}

void name_filter_selects_that_object_in_every_namespace(void**) {
    Fixture f;
    registry::Store& cms = f.store("", "configmaps");
    f.mustCreate(cms, "one", R"({"metadata":{"name":"a"}})");
    f.mustCreate(cms, "one", R"({"metadata":{"name":"ab"}})");
    f.mustCreate(cms, "two", R"({"metadata":{"name":"a"}})");
    f.mustCreate(cms, "two", R"({"metadata":{"name":"b"}})");
    registry::ListOptions opts;
    opts.fieldSelector = nameSelector("a");
    Page p = f.list(cms, "", opts);
    assert_int_equal(p.items.size(), 2);
    assert_string_equal(at(p.items[0], {"metadata", "namespace"}).c_str(), "one");
    assert_string_equal(at(p.items[1], {"metadata", "namespace"}).c_str(), "two");
    p = f.list(cms, "two", opts);
    assert_int_equal(p.items.size(), 1);
    opts.fieldSelector = nameSelector("nosuch");
    assert_int_equal(f.list(cms, "", opts).items.size(), 0);

    registry::Store& nss = f.store("", "namespaces");
    f.mustCreate(nss, "", R"({"metadata":{"name":"wire"}})");
    f.mustCreate(nss, "", R"({"metadata":{"name":"wire2"}})");
    opts.fieldSelector = nameSelector("wire");
    p = f.list(nss, "", opts);
    assert_int_equal(p.items.size(), 1);
    assert_string_equal(at(p.items[0], {"metadata", "name"}).c_str(), "wire");
}

void namespace_deletion_removes_its_contents_and_answers_terminating(void**) {
    Fixture f;
    registry::Store& nss = f.store("", "namespaces");
    registry::Store& cms = f.store("", "configmaps");
    registry::Store& secrets = f.store("", "secrets");
    registry::Store& deploys = f.store("apps", "deployments");
    registry::Store& roles = f.store("rbac.authorization.k8s.io", "roles");
    for (const char* ns : {"doomed", "kept"}) {
        f.mustCreate(nss, "", R"({"metadata":{"name":")" + std::string(ns) + R"("}})");
        f.mustCreate(cms, ns, R"({"metadata":{"name":"a"}})");
        f.mustCreate(cms, ns, R"({"metadata":{"name":"b"}})");
        f.mustCreate(secrets, ns, R"({"metadata":{"name":"s"},"stringData":{"k":"v"}})");
        f.mustCreate(deploys, ns, kDeployment);
        f.mustCreate(roles, ns, R"({"metadata":{"name":"r"},"rules":[]})");
    }
    f.loop.advance(std::chrono::seconds(30));
    Deleted d = f.remove(nss, "", "doomed");
    assert_false(d.error.has_value());
    assert_true(d.result.returnsObject);
    assert_string_equal(at(d.result.object, {"kind"}).c_str(), "Namespace");
    assert_string_equal(at(d.result.object, {"metadata", "name"}).c_str(), "doomed");
    assert_string_equal(at(d.result.object, {"status", "phase"}).c_str(), "Terminating");
    assert_string_equal(at(d.result.object, {"metadata", "deletionTimestamp"}).c_str(),
                        "2026-09-21T14:13:50Z");
    assert_string_equal(at(d.result.object, {"spec", "finalizers"}).c_str(), R"(["kubernetes"])");

    expectStatus(f.get(nss, "", "doomed").error, 404, "NotFound",
                 "namespaces \"doomed\" not found");
    for (registry::Store* s : {&cms, &secrets, &deploys, &roles}) {
        assert_int_equal(f.list(*s, "doomed").items.size(), 0);
    }
    assert_false(f.get(nss, "", "kept").error.has_value());
    assert_int_equal(f.list(cms, "kept").items.size(), 2);
    assert_int_equal(f.list(secrets, "kept").items.size(), 1);
    assert_int_equal(f.list(deploys, "kept").items.size(), 1);
    assert_int_equal(f.list(roles, "kept").items.size(), 1);
}

void a_namespace_waits_for_the_finalizers_of_its_contents(void**) {
    Fixture f;
    registry::Store& nss = f.store("", "namespaces");
    registry::Store& cms = f.store("", "configmaps");
    f.mustCreate(nss, "", R"({"metadata":{"name":"held"}})");
    f.mustCreate(cms, "held", R"({"metadata":{"name":"a","finalizers":["example.com/x"]}})");
    f.mustCreate(cms, "held", R"({"metadata":{"name":"b"}})");
    Deleted d = f.remove(nss, "", "held");
    assert_false(d.error.has_value());
    assert_false(d.result.deleted);
    Result ns = f.get(nss, "", "held");
    assert_false(ns.error.has_value());
    assert_string_equal(at(ns.object, {"status", "phase"}).c_str(), "Terminating");
    assert_string_equal(at(ns.object, {"spec", "finalizers"}).c_str(), R"(["kubernetes"])");
    json::Document doc;
    doc.Parse(ns.object.data(), ns.object.size());
    const json::Value& conds = doc["status"]["conditions"];
    assert_int_equal(conds.Size(), 5);
    assert_string_equal(json::serialize(conds[3]).c_str(),
                        R"({"type":"NamespaceContentRemaining","status":"True",)"
                        R"("lastTransitionTime":"2026-09-21T14:13:20Z","reason":)"
                        R"("SomeResourcesRemain","message":"Some resources are remaining: )"
                        R"(configmaps. has 1 resource instances"})");
    assert_string_equal(std::string(json::stringMember(conds[4], "message")).c_str(),
                        "Some finalizers are remaining: example.com/x in 1 resource instances");
    assert_string_equal(std::string(json::stringMember(conds[2], "reason")).c_str(),
                        "ContentDeleted");
    // The object without finalizers went through its store; the other is marked.
    expectStatus(f.get(cms, "held", "b").error, 404, "NotFound", "configmaps \"b\" not found");
    assert_string_not_equal(
        at(f.get(cms, "held", "a").object, {"metadata", "deletionTimestamp"}).c_str(), "<absent>");
    // Passes go on while it is held; a second delete changes nothing.
    f.loop.advance(kube::namespacecontroller::NamespaceController::kRequeueDelay);
    f.loop.run();
    assert_false(f.get(nss, "", "held").error.has_value());
    Deleted again = f.remove(nss, "", "held");
    assert_false(again.error.has_value());
    assert_string_equal(at(again.result.object, {"status", "conditions"}).c_str(),
                        json::serialize(conds).c_str());
    // Its finalizer removed, the configmap goes, and at the next pass the namespace.
    auto patched = std::make_shared<Result>();
    cms.patch(
        "held", "a",
        [](const json::Value& cur, json::Document& out) {
            out.CopyFrom(cur, out.GetAllocator());
            json::removeMember(out["metadata"], "finalizers");
            return std::optional<Status>();
        },
        {},
        [patched](const Status* err, std::string_view) {
            patched->called = true;
            if (err) {
                patched->error = *err;
            }
        });
    f.loop.run();
    assert_true(patched->called && !patched->error);
    f.loop.advance(kube::namespacecontroller::NamespaceController::kRequeueDelay);
    f.loop.run();
    expectStatus(f.get(nss, "", "held").error, 404, "NotFound", "namespaces \"held\" not found");
}

void namespace_dry_run_delete_answers_terminating_and_keeps_everything(void**) {
    Fixture f;
    registry::Store& nss = f.store("", "namespaces");
    registry::Store& cms = f.store("", "configmaps");
    std::string ns = f.mustCreate(nss, "", R"({"metadata":{"name":"dry"}})");
    f.mustCreate(cms, "dry", R"({"metadata":{"name":"a"}})");
    registry::DeleteOptions opts;
    opts.dryRun = true;
    Deleted d = f.remove(nss, "", "dry", opts);
    assert_false(d.error.has_value());
    assert_true(d.result.returnsObject);
    assert_string_equal(at(d.result.object, {"status", "phase"}).c_str(), "Terminating");
    assert_string_equal(f.get(nss, "", "dry").object.c_str(), ns.c_str());
    assert_int_equal(f.list(cms, "dry").items.size(), 1);
}

void racing_unconditional_updates_both_succeed_by_retrying(void**) {
    Fixture f(true);
    registry::Store& cms = f.store("", "configmaps");
    std::string v1 = f.mustCreate(cms, "wire", R"({"metadata":{"name":"a"},"data":{"k":"0"}})");
    int writesBefore = f.deferred.writes;
    auto first = std::make_shared<Result>();
    auto second = std::make_shared<Result>();
    auto record = [](std::shared_ptr<Result> r) {
        return [r](const Status* err, std::string_view obj) {
            r->called = true;
            if (err) {
                r->error = *err;
            }
            r->object = std::string(obj);
        };
    };
    // Both read revision v1 before either write lands.
    cms.update("wire", "a", body(R"({"metadata":{"name":"a"},"data":{"k":"1"}})"), {},
               record(first));
    cms.update("wire", "a", body(R"({"metadata":{"name":"a"},"data":{"k":"2"}})"), {},
               record(second));
    assert_false(first->called);
    assert_false(second->called);
    f.loop.run();
    assert_true(first->called && second->called);
    if (first->error || second->error) {
        fail_msg("a racing update failed: %s",
                 (first->error ? first->error : second->error)->message.c_str());
    }
    // The second lost the race once and wrote again on top of the first.
    assert_int_equal(f.deferred.writes - writesBefore, 3);
    assert_int_equal(std::stoull(rv(first->object)), std::stoull(rv(v1)) + 1);
    assert_int_equal(std::stoull(rv(second->object)), std::stoull(rv(v1)) + 2);
    assert_string_equal(f.get(cms, "wire", "a").object.c_str(), second->object.c_str());
    assert_string_equal(at(second->object, {"data", "k"}).c_str(), "2");
}

void racing_conditional_updates_do_not_retry(void**) {
    Fixture f(true);
    registry::Store& cms = f.store("", "configmaps");
    std::string v1 = f.mustCreate(cms, "wire", R"({"metadata":{"name":"a"},"data":{"k":"0"}})");
    auto first = std::make_shared<Result>();
    auto second = std::make_shared<Result>();
    auto record = [](std::shared_ptr<Result> r) {
        return [r](const Status* err, std::string_view obj) {
            r->called = true;
            if (err) {
                r->error = *err;
            }
            r->object = std::string(obj);
        };
    };
    std::string withRv = R"({"metadata":{"name":"a","resourceVersion":")" + rv(v1) + R"("},)";
    cms.update("wire", "a", body(withRv + R"("data":{"k":"1"}})"), {}, record(first));
    cms.update("wire", "a", body(withRv + R"("data":{"k":"2"}})"), {}, record(second));
    f.loop.run();
    assert_false(first->error.has_value());
    expectStatus(second->error, 409, "Conflict",
                 "Operation cannot be fulfilled on configmaps \"a\": the object has been "
                 "modified; please apply your changes to the latest version and try again");
    assert_string_equal(at(f.get(cms, "wire", "a").object, {"data", "k"}).c_str(), "1");
}

}  // namespace

int main() {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_fills_server_owned_metadata),
        cmocka_unit_test(create_accepts_a_body_without_type_meta),
        cmocka_unit_test(cluster_scoped_create_drops_a_namespace),
        cmocka_unit_test(create_of_an_existing_name_is_already_exists),
        cmocka_unit_test(generate_name_gets_five_random_characters),
        cmocka_unit_test(invalid_objects_are_422_with_causes_and_not_stored),
        cmocka_unit_test(dry_run_create_answers_without_storing),
        cmocka_unit_test(update_with_a_stale_resource_version_is_a_conflict),
        cmocka_unit_test(update_without_resource_version_is_unconditional),
        cmocka_unit_test(update_of_a_missing_object_is_not_found),
        cmocka_unit_test(no_op_update_keeps_the_resource_version),
        cmocka_unit_test(generation_is_bumped_only_by_spec_changes),
        cmocka_unit_test(status_is_kept_for_kinds_with_a_status_subresource),
        cmocka_unit_test(update_with_another_uid_fails_its_precondition),
        cmocka_unit_test(invalid_update_is_422_and_leaves_the_object),
        cmocka_unit_test(delete_answers_a_success_status_naming_the_object),
        cmocka_unit_test(dry_run_delete_answers_the_same_and_keeps_the_object),
        cmocka_unit_test(delete_preconditions_are_checked),
        cmocka_unit_test(delete_collection_answers_with_the_deleted_objects),
        cmocka_unit_test(dry_run_delete_collection_deletes_nothing),
        cmocka_unit_test(delete_collection_preconditions_hold_for_every_item_or_nothing_goes),
        cmocka_unit_test(list_pages_return_every_object_once),
        cmocka_unit_test(a_malformed_continue_token_is_a_bad_request),
        cmocka_unit_test(name_filter_selects_that_object_in_every_namespace),
        cmocka_unit_test(namespace_deletion_removes_its_contents_and_answers_terminating),
        cmocka_unit_test(a_namespace_waits_for_the_finalizers_of_its_contents),
        cmocka_unit_test(namespace_dry_run_delete_answers_terminating_and_keeps_everything),
        cmocka_unit_test(racing_unconditional_updates_both_succeed_by_retrying),
        cmocka_unit_test(racing_conditional_updates_do_not_retry),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
