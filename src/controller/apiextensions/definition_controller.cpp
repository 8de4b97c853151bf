#include "controller/apiextensions/definition_controller.hpp"

#include <charconv>
#include <vector>

#include "apis/apiextensions/crd_conditions.hpp"
#include "apis/apiextensions/custom_resource_kind.hpp"
#include "controller/apiextensions/naming.hpp"

namespace kube::controller::apiextensions {

namespace json = util::json;
namespace ext = apis::apiextensions;

namespace {

std::string_view nameOf(const json::Value& crd) {
    const json::Value* m = json::member(crd, "metadata");
    return m && m->IsObject() ? json::stringMember(*m, "name") : std::string_view();
}

uint64_t revisionOf(const json::Value& crd) {
    const json::Value* m = json::member(crd, "metadata");
    std::string_view rv = m && m->IsObject() ? json::stringMember(*m, "resourceVersion") : "";
    uint64_t n = 0;
    std::from_chars(rv.data(), rv.data() + rv.size(), n);
    return n;
}

std::string_view groupOf(const json::Value& crd) {
    const json::Value* spec = json::member(crd, "spec");
    return spec && spec->IsObject() ? json::stringMember(*spec, "group") : std::string_view();
}

std::shared_ptr<json::Document> copyOf(const json::Document& d) {
    auto out = std::make_shared<json::Document>();
    out->CopyFrom(d, out->GetAllocator());
    return out;
}

// Resources of built-in kinds whose keys a definition could share
// (finalizer.OverlappingBuiltInResources): their objects are never deleted.
bool overlapsBuiltIn(std::string_view group, std::string_view plural) {
    return (group == "apiregistration.k8s.io" && plural == "apiservices") ||
           (group == "apiextensions.k8s.io" && plural == "customresourcedefinitions");
}

}  // namespace

// One deletion of a definition's custom resources.
struct DefinitionController::Finalization {
    std::string name;
    Doc crd;  // as last written
    std::shared_ptr<registry::KindInfo> kind;
    std::shared_ptr<registry::Store> store;
    std::vector<std::string> namespaces;
    size_t next = 0;
    std::vector<std::string> errors;
    std::chrono::steady_clock::time_point deadline;
    std::unique_ptr<util::EventLoop::Timer> timer;
    ext::CrdCondition outcome;
};

DefinitionController::DefinitionController(util::EventLoop& loop, storage::Interface& storage,
                                           storage::cacher::WatchCache& definitions,
                                           registry::Store& store)
    : loop_(loop), storage_(storage), store_(store) {
    storage::cacher::Follower::Handlers h;
    h.replacing = [this] {
        crds_.clear();
        return true;
    };
    h.put = [this](const storage::cacher::CachedObject& obj) {
        auto doc = std::make_shared<json::Document>();
        if (!json::parse(obj.bytes, *doc) && doc->IsObject() && !nameOf(*doc).empty()) {
            put(std::move(doc));
        }
        return false;
    };
    h.remove = [this](const storage::cacher::CachedObject& obj) {
        json::Document doc;
        if (!json::parse(obj.bytes, doc) && doc.IsObject()) {
            removed(std::string(nameOf(doc)));
        }
        return false;
    };
    follower_ = std::make_unique<storage::cacher::Follower>(definitions, std::move(h));
}

DefinitionController::~DefinitionController() {
    *alive_ = false;
}

void DefinitionController::put(Doc crd) {
    std::string name(nameOf(*crd));
    auto it = crds_.find(name);
    // What this worker wrote stays until the cache shows it or something newer.
    if (it != crds_.end() && revisionOf(*it->second) > revisionOf(*crd)) {
        return;
    }
    crds_[name] = std::move(crd);
    enqueue(name);
}

void DefinitionController::removed(const std::string& name) {
    crds_.erase(name);
    // Its names are free: the others of its group may have them now.
    requeueGroup(name);
}

void DefinitionController::requeueGroup(const std::string& name) {
    size_t dot = name.find('.');
    std::string_view group = dot == std::string::npos ? "" : std::string_view(name).substr(dot + 1);
    for (const auto& [other, crd] : crds_) {
        if (other != name && groupOf(*crd) == group) {
            enqueue(other);
        }
    }
}

void DefinitionController::enqueue(const std::string& name) {
    if (!queued_.insert(name).second) {
        return;
    }
    queue_.push_back(name);
    std::weak_ptr<bool> alive = alive_;
    loop_.post([this, alive] {
        if (alive.lock()) {
            pump();
        }
    });
}

void DefinitionController::pump() {
    if (busy_ || queue_.empty()) {
        return;
    }
    std::string name = std::move(queue_.front());
    queue_.pop_front();
    queued_.erase(name);
    busy_ = true;
    sync(name);
}

void DefinitionController::done() {
    busy_ = false;
    std::weak_ptr<bool> alive = alive_;
    loop_.post([this, alive] {
        if (alive.lock()) {
            pump();
        }
    });
}

void DefinitionController::sync(const std::string& name) {
    auto it = crds_.find(name);
    if (it == crds_.end()) {
        done();
        return;
    }
    const Doc& crd = it->second;
    const json::Value* metadata = json::member(*crd, "metadata");
    if (metadata && json::member(*metadata, "deletionTimestamp")) {
        if (ext::hasFinalizer(*crd, ext::kCustomResourceCleanupFinalizer) &&
            !finalizing_.count(name)) {
            finalize(name, crd);
        }
        done();
        return;
    }
    Doc next = copyOf(*crd);
    std::vector<const json::Value*> group;
    for (const auto& [other, doc] : crds_) {
        if (groupOf(*doc) == groupOf(*crd)) {
            group.push_back(doc.get());
        }
    }
    auto now = loop_.now();
    if (updateAcceptedNames(*next, group, now)) {
        writeStatus(next, [this, name](Doc stored) {
            if (stored) {
                // It may hold names now that others asked for, or be established.
                requeueGroup(name);
                enqueue(name);
            }
            done();
        });
        return;
    }
    if (establish(*next, now)) {
        writeStatus(next, [this](Doc) { done(); });
        return;
    }
    done();
}

void DefinitionController::writeStatus(const Doc& crd, std::function<void(Doc)> then) {
    std::string name(nameOf(*crd));
    registry::UpdateOptions opts;
    opts.status = true;
    std::weak_ptr<bool> alive = alive_;
    store_.update(
        "", name, crd, opts,
        [this, alive, name, then = std::move(then)](const meta::Status* err, std::string_view obj) {
            if (!alive.lock()) {
                return;
            }
            if (err) {
                // NotFound, Conflict: the cache brings what changed.
                then(nullptr);
                return;
            }
            auto stored = std::make_shared<json::Document>();
            if (json::parse(obj, *stored) || !stored->IsObject()) {
                then(nullptr);
                return;
            }
            if (auto it = crds_.find(name);
                it != crds_.end() && revisionOf(*it->second) <= revisionOf(*stored)) {
                it->second = stored;
            }
            then(stored);
        });
}

void DefinitionController::finalize(const std::string& name, Doc crd) {
    finalizing_.insert(name);
    retries_.erase(name);
    auto f = std::make_shared<Finalization>();
    f->name = name;
    Doc next = copyOf(*crd);
    ext::setCondition(*next,
                      {"Terminating", "True", "InstanceDeletionInProgress",
                       "CustomResource deletion is in progress"},
                      loop_.now(), next->GetAllocator());
    writeStatus(next, [this, f](Doc stored) {
        if (!stored) {
            finalizing_.erase(f->name);
            return;
        }
        f->crd = stored;
        const json::Value* plural = json::at(*stored, {"spec", "names", "plural"});
        if (overlapsBuiltIn(groupOf(*stored),
                            plural && plural->IsString() ? json::view(*plural) : "")) {
            f->outcome = {"Terminating", "False", "OverlappingBuiltInResource",
                          "instances overlap with built-in resources in storage"};
            finishFinalization(f, false);
        } else if (ext::isConditionTrue(*stored, "Established")) {
            deleteInstances(f);
        } else {
            f->outcome = {"Terminating", "False", "NeverEstablished",
                          "resource was never established"};
            finishFinalization(f, false);
        }
    });
}

// Mirrors CRDFinalizer.deleteInstances: one list of every instance, then a
// delete of the collection in each namespace that has any.
void DefinitionController::deleteInstances(std::shared_ptr<Finalization> f) {
    std::optional<registry::KindInfo> kind = ext::customResourceStorageKind(f->crd);
    if (!kind) {
        f->outcome = {
            "Terminating", "True", "InstanceDeletionFailed",
            "could not list instances: unable to find a custom resource client for " + f->name};
        finishFinalization(f, true);
        return;
    }
    f->kind = std::make_shared<registry::KindInfo>(std::move(*kind));
    f->store = std::make_shared<registry::Store>(*f->kind, storage_, loop_);
    std::weak_ptr<bool> alive = alive_;
    f->store->list("", {}, [this, alive, f](const meta::Status* err, registry::ListPage&& page) {
        if (!alive.lock()) {
            return;
        }
        if (err) {
            f->outcome = {"Terminating", "True", "InstanceDeletionFailed",
                          "could not list instances: " + err->message};
            finishFinalization(f, true);
            return;
        }
        std::set<std::string> seen;
        for (const storage::ObjectView& item : page.items) {
            json::Document obj;
            if (json::parse(item.value, obj) || !obj.IsObject()) {
                continue;
            }
            const json::Value* m = json::member(obj, "metadata");
            std::string ns(m && m->IsObject() ? json::stringMember(*m, "namespace") : "");
            if (seen.insert(ns).second) {
                f->namespaces.push_back(ns);
            }
        }
        deleteNamespaces(f);
    });
}

// A delete of the collection in each namespace in turn.
void DefinitionController::deleteNamespaces(std::shared_ptr<Finalization> f) {
    if (f->next == f->namespaces.size()) {
        if (!f->errors.empty()) {
            // utilerrors.NewAggregate's message: one error as it is, more in brackets.
            std::string all = f->errors.size() == 1 ? f->errors[0] : "[";
            for (size_t i = 0; f->errors.size() > 1 && i < f->errors.size(); i++) {
                all += (i ? ", " : "") + f->errors[i];
            }
            if (f->errors.size() > 1) {
                all += "]";
            }
            f->outcome = {"Terminating", "True", "InstanceDeletionFailed",
                          "could not issue all deletes: " + all};
            finishFinalization(f, true);
            return;
        }
        f->deadline = std::chrono::steady_clock::now() + kFinalizerWait;
        checkInstances(f);
        return;
    }
    std::string ns = f->namespaces[f->next++];
    std::weak_ptr<bool> alive = alive_;
    f->store->deleteCollection(ns, {}, {},
                               [this, alive, f](const meta::Status* e, registry::ListPage&&) {
                                   if (!alive.lock()) {
                                       return;
                                   }
                                   if (e) {
                                       f->errors.push_back(e->message);
                                   }
                                   deleteNamespaces(f);
                               });
}

// Waits, as kube's finalizer polls, until no instance is left.
void DefinitionController::checkInstances(std::shared_ptr<Finalization> f) {
    std::weak_ptr<bool> alive = alive_;
    registry::ListOptions one;
    one.limit = 1;
    f->store->list("", one, [this, alive, f](const meta::Status* err, registry::ListPage&& page) {
        if (!alive.lock()) {
            return;
        }
        if (!err && page.items.empty()) {
            f->outcome = {"Terminating", "False", "InstanceDeletionCompleted",
                          "removed all instances"};
            finishFinalization(f, false);
            return;
        }
        if (err || std::chrono::steady_clock::now() >= f->deadline) {
            f->outcome = {
                "Terminating", "True", "InstanceDeletionCheck",
                "could not confirm zero CustomResources remaining: " +
                    (err ? err->message : std::string("timed out waiting for the condition"))};
            finishFinalization(f, true);
            return;
        }
        f->timer = loop_.startTimer(kFinalizerPoll, [this, alive, f] {
            // Posted: the next check replaces this timer.
            loop_.post([this, alive, f] {
                if (alive.lock()) {
                    checkInstances(f);
                }
            });
        });
    });
}

// Writes the outcome; without a failure the finalizer goes too, and with it
// the definition. A failure is tried again after kRetryDelay.
void DefinitionController::finishFinalization(std::shared_ptr<Finalization> f, bool failed) {
    f->timer.reset();
    Doc next = copyOf(*f->crd);
    ext::setCondition(*next, f->outcome, loop_.now(), next->GetAllocator());
    if (!failed) {
        ext::removeFinalizer(*next, ext::kCustomResourceCleanupFinalizer);
    }
    writeStatus(next, [this, f, failed](Doc stored) {
        finalizing_.erase(f->name);
        if (failed || !stored) {
            std::weak_ptr<bool> alive = alive_;
            std::string name = f->name;
            retries_[name] = loop_.startTimer(kRetryDelay, [this, alive, name] {
                if (alive.lock()) {
                    enqueue(name);
                }
            });
        }
    });
}

}  // namespace kube::controller::apiextensions
