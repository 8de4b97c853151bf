#include "authz/bootstrap.hpp"

#include <memory>

#include "authz/bootstrap_policy.hpp"
#include "authz/reconcile.hpp"

namespace kube::authz {

namespace json = util::json;

namespace {

// Attempts per object: a create racing another creator, or an update racing
// another writer, looks again (kube gives up after three as well).
constexpr int kMaxAttempts = 3;

struct Run {
    RbacStores stores;
    ReconcileFn reconcile;
    std::function<void(BootstrapSummary)> done;
    BootstrapSummary summary;
    size_t pending = 0;

    void settle() {
        if (--pending == 0) {
            done(std::move(summary));
        }
    }
    void fail(const BootstrapObject& o, std::string why) {
        summary.errors.push_back(o.resource + " " +
                                 (o.namespace_.empty() ? "" : o.namespace_ + "/") + o.name + ": " +
                                 why);
        settle();
    }
};

void reconcileOne(std::shared_ptr<Run> run, const BootstrapObject& o, int attempt);

void retryOrFail(std::shared_ptr<Run> run, const BootstrapObject& o, int attempt,
                 const meta::Status& err) {
    if (attempt + 1 < kMaxAttempts &&
        (err.reason == "AlreadyExists" || err.reason == "Conflict" || err.reason == "NotFound")) {
        reconcileOne(run, o, attempt + 1);
        return;
    }
    run->fail(o, err.message);
}

void write(std::shared_ptr<Run> run, const BootstrapObject& o, int attempt, Reconciled r) {
    registry::Store& store = run->stores(o.resource);
    auto written = [run, &o, attempt](int BootstrapSummary::*counter) {
        return [run, &o, attempt, counter](const meta::Status* err, std::string_view) {
            if (err) {
                retryOrFail(run, o, attempt, *err);
                return;
            }
            run->summary.*counter += 1;
            run->settle();
        };
    };
    switch (r.operation) {
        case ReconcileOperation::None:
            if (r.isProtected) {
                run->summary.protectedObjects++;
            } else {
                run->summary.unchanged++;
            }
            run->settle();
            return;
        case ReconcileOperation::Create:
            store.create(o.namespace_, r.object, {}, written(&BootstrapSummary::created));
            return;
        case ReconcileOperation::Update:
            store.update(o.namespace_, o.name, r.object, {}, written(&BootstrapSummary::updated));
            return;
        case ReconcileOperation::Recreate: {
            store.remove(o.namespace_, o.name, {},
                         [run, &o, attempt, r, written](const meta::Status* err,
                                                        const registry::DeleteResult&) {
                             if (err && err->reason != "NotFound") {
                                 retryOrFail(run, o, attempt, *err);
                                 return;
                             }
                             run->stores(o.resource)
                                 .create(o.namespace_, r.object, {},
                                         written(&BootstrapSummary::recreated));
                         });
            return;
        }
    }
}

void reconcileOne(std::shared_ptr<Run> run, const BootstrapObject& o, int attempt) {
    run->stores(o.resource)
        .get(o.namespace_, o.name,
             [run, &o, attempt](const meta::Status* err, std::string_view stored) {
                 if (err && err->reason != "NotFound") {
                     run->fail(o, err->message);
                     return;
                 }
                 json::Document existing;
                 const json::Value* current = nullptr;
                 if (!err) {
                     if (json::parse(stored, existing)) {
                         run->fail(o, "stored object is not JSON");
                         return;
                     }
                     current = &existing;
                 }
                 write(run, o, attempt, run->reconcile(o, current));
             });
}

}  // namespace

void reconcileObjects(RbacStores stores, const std::vector<BootstrapObject>& objects,
                      ReconcileFn reconcile, std::function<void(BootstrapSummary)> done) {
    auto run = std::make_shared<Run>();
    run->stores = std::move(stores);
    run->reconcile = std::move(reconcile);
    run->done = std::move(done);
    // One more than the objects, released below: a run answered inline
    // finishes only after every object has started.
    run->pending = objects.size() + 1;
    for (const BootstrapObject& o : objects) {
        reconcileOne(run, o, 0);
    }
    run->settle();
}

void reconcileBootstrapPolicy(RbacStores stores, std::function<void(BootstrapSummary)> done) {
    reconcileObjects(
        std::move(stores), bootstrapPolicy(),
        [](const BootstrapObject& o, const json::Value* existing) {
            bool role = o.resource == "roles" || o.resource == "clusterroles";
            return role ? reconcileRole(*o.object, existing) : reconcileBinding(*o.object, existing);
        },
        std::move(done));
}

}  // namespace kube::authz
