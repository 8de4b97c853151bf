#include "controller/namespace/namespace_controller.hpp"

#include <algorithm>

#include "registry/deletion.hpp"
#include "registry/encoding.hpp"
#include "util/json.hpp"
#include "util/time.hpp"

namespace kube::namespacecontroller {

namespace cacher = storage::cacher;
namespace json = util::json;

namespace {

constexpr std::string_view kFinalizer = "kubernetes";

json::Document parse(std::string_view bytes) {
    json::Document doc;
    doc.Parse(bytes.data(), bytes.size());
    if (doc.HasParseError() || !doc.IsObject()) {
        doc.SetObject();
    }
    return doc;
}

std::string nameOf(const json::Value& obj) {
    const json::Value* n = json::at(obj, {"metadata", "name"});
    return n && n->IsString() ? std::string(json::view(*n)) : std::string();
}

bool deleting(const json::Value& obj) {
    return json::at(obj, {"metadata", "deletionTimestamp"}) != nullptr;
}

std::vector<std::string> specFinalizers(const json::Value& ns) {
    std::vector<std::string> out;
    const json::Value* f = json::at(ns, {"spec", "finalizers"});
    if (f && f->IsArray()) {
        for (const json::Value& v : f->GetArray()) {
            if (v.IsString()) {
                out.emplace_back(json::view(v));
            }
        }
    }
    return out;
}

// One NamespaceCondition as kube's deleter sets it.
struct Condition {
    std::string type;
    bool failing = false;
    std::string reason;
    std::string message;
};

std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& p : parts) {
        out += (out.empty() ? "" : ", ") + p;
    }
    return out;
}

// The five conditions the deleter maintains, in kube's order, failing or
// in their "ok" variant (status_condition_utils.go).
std::vector<Condition> conditionsFor(const std::map<std::string, int64_t>& remaining,
                                     const std::map<std::string, int64_t>& finalizers,
                                     std::vector<std::string> errors) {
    std::vector<Condition> out = {
        {"NamespaceDeletionDiscoveryFailure", false, "ResourcesDiscovered",
         "All resources successfully discovered"},
        {"NamespaceDeletionGroupVersionParsingFailure", false, "ParsedGroupVersions",
         "All legacy kube types successfully parsed"},
        {"NamespaceDeletionContentFailure", false, "ContentDeleted",
         "All content successfully deleted, may be waiting on finalization"},
        {"NamespaceContentRemaining", false, "ContentRemoved", "All content successfully removed"},
        {"NamespaceFinalizersRemaining", false, "ContentRemoved",
         "All content successfully removed"},
    };
    if (!errors.empty()) {
        std::sort(errors.begin(), errors.end());
        out[2] = {out[2].type, true, "ContentDeletionFailed",
                  "Failed to delete all resource types, " + std::to_string(errors.size()) +
                      " remaining: " + join(errors)};
    }
    if (!remaining.empty()) {
        std::vector<std::string> parts;
        for (const auto& [gr, n] : remaining) {
            parts.push_back(gr + " has " + std::to_string(n) + " resource instances");
        }
        std::sort(parts.begin(), parts.end());
        out[3] = {out[3].type, true, "SomeResourcesRemain",
                  "Some resources are remaining: " + join(parts)};
    }
    if (!finalizers.empty()) {
        std::vector<std::string> parts;
        for (const auto& [f, n] : finalizers) {
            parts.push_back(f + " in " + std::to_string(n) + " resource instances");
        }
        std::sort(parts.begin(), parts.end());
        out[4] = {out[4].type, true, "SomeFinalizerRemain",
                  "Some finalizers are remaining: " + join(parts)};
    }
    return out;
}

// Mirrors updateConditions: each condition added or changed in place (its
// lastTransitionTime moves only when its status does); whether any changed.
bool updateConditions(json::Document& ns, const std::vector<Condition>& want,
                      const std::string& now) {
    auto& a = ns.GetAllocator();
    if (!json::member(ns, "status") || !ns["status"].IsObject()) {
        json::setMember(ns, "status", json::Value(rapidjson::kObjectType), a);
    }
    json::Value& status = ns["status"];
    if (!json::member(status, "conditions") || !status["conditions"].IsArray()) {
        json::setMember(status, "conditions", json::Value(rapidjson::kArrayType), a);
    }
    json::Value& list = status["conditions"];
    bool changed = false;
    for (const Condition& c : want) {
        const char* st = c.failing ? "True" : "False";
        json::Value* old = nullptr;
        for (json::Value& o : list.GetArray()) {
            if (o.IsObject() && json::stringMember(o, "type") == c.type) {
                old = &o;
                break;
            }
        }
        if (!old) {
            json::Value n(rapidjson::kObjectType);
            n.AddMember("type", json::stringValue(c.type, a), a);
            n.AddMember("status", json::stringValue(st, a), a);
            n.AddMember("lastTransitionTime", json::stringValue(now, a), a);
            n.AddMember("reason", json::stringValue(c.reason, a), a);
            n.AddMember("message", json::stringValue(c.message, a), a);
            list.PushBack(std::move(n), a);
            changed = true;
            continue;
        }
        if (json::stringMember(*old, "status") == st &&
            json::stringMember(*old, "reason") == c.reason &&
            json::stringMember(*old, "message") == c.message) {
            continue;
        }
        if (json::stringMember(*old, "status") != st) {
            json::setMember(*old, "lastTransitionTime", json::stringValue(now, a), a);
        }
        json::setMember(*old, "status", json::stringValue(st, a), a);
        json::setMember(*old, "reason", json::stringValue(c.reason, a), a);
        json::setMember(*old, "message", json::stringValue(c.message, a), a);
        changed = true;
    }
    return changed;
}

storage::WriteOp updateOp(const std::string& key, const json::Value& obj,
                          storage::Revision expected) {
    registry::EncodedObject enc = registry::encodeObject(obj);
    storage::WriteOp op;
    op.type = storage::WriteOp::Type::Update;
    op.key = key;
    op.expectedModRevision = expected;
    op.value = std::move(enc.bytes);
    op.revisionOffset = enc.revisionOffset;
    return op;
}

}  // namespace

struct NamespaceController::Pass {
    std::string name;
    std::string key;
    // The kinds it lists, kept alive while it runs.
    std::vector<std::shared_ptr<const registry::KindInfo>> kinds;
    // The objects to delete: their kind and name.
    std::vector<std::pair<const registry::KindInfo*, std::string>> content;
    size_t next = 0;
    size_t inFlight = 0;
    bool counting = false;
    std::vector<std::string> errors;
    // "<resource>.<group>" and finalizer → objects left.
    std::map<std::string, int64_t> remaining;
    std::map<std::string, int64_t> finalizers;
};

NamespaceController::NamespaceController(util::EventLoop& loop, storage::Interface& storage,
                                         const registry::Scheme& scheme,
                                         const registry::KindInfo& namespaces, StoreFor stores)
    : loop_(loop),
      storage_(storage),
      scheme_(scheme),
      namespaces_(namespaces),
      stores_(std::move(stores)) {}

// Every namespaced kind the scheme serves now (custom resources come and
// go), once per stored resource.
std::vector<std::shared_ptr<const registry::KindInfo>> NamespaceController::kinds() const {
    std::vector<std::shared_ptr<const registry::KindInfo>> out;
    std::set<std::string> prefixes;
    for (const auto& k : scheme_.all()) {
        if (k->namespaced && k->stored() && k->servedAtStorageVersion() &&
            prefixes.insert(registry::collectionPrefix(*k, "")).second) {
            out.push_back(k);
        }
    }
    return out;
}

NamespaceController::~NamespaceController() {
    *alive_ = false;
}

// Every namespace the cache holds or an event brings that is being deleted
// is worked on; deleted namespaces need nothing.
void NamespaceController::follow(cacher::WatchCache& cache) {
    cacher::Follower::Handlers h;
    h.put = [this](const cacher::CachedObject& obj) {
        if (obj.bytes.find("\"deletionTimestamp\"") == std::string_view::npos) {
            return false;
        }
        json::Document ns = parse(obj.bytes);
        if (deleting(ns)) {
            enqueue(std::string(json::stringMember(ns["metadata"], "name")));
        }
        return false;
    };
    follower_ = std::make_unique<cacher::Follower>(cache, std::move(h));
}

void NamespaceController::enqueue(const std::string& name) {
    if (name.empty()) {
        return;
    }
    if (running_.count(name)) {
        rerun_.insert(name);
        return;
    }
    waiting_.erase(name);
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

void NamespaceController::pump() {
    while (running_.size() < kMaxPasses && !queue_.empty()) {
        std::string name = std::move(queue_.front());
        queue_.pop_front();
        queued_.erase(name);
        running_.insert(name);
        start(name);
    }
}

void NamespaceController::finished(const std::string& name, bool again,
                                   std::chrono::milliseconds delay) {
    running_.erase(name);
    bool rerun = rerun_.erase(name) > 0;
    if (rerun || (again && delay.count() == 0)) {
        enqueue(name);
    } else if (again) {
        std::weak_ptr<bool> alive = alive_;
        waiting_[name] = loop_.startTimer(delay, [this, alive, name] {
            if (alive.lock()) {
                waiting_.erase(name);  // the loop moved this task out of the timer
                enqueue(name);
            }
        });
    }
    pump();
}

// Mirrors namespacedResourcesDeleter.Delete: nothing to do unless the
// namespace is being deleted.
void NamespaceController::start(const std::string& name) {
    auto p = std::make_shared<Pass>();
    p->name = name;
    p->key = registry::objectKey(namespaces_, "", name);
    p->kinds = kinds();
    readNamespace(p, [this, p](json::Document& ns, storage::Revision) {
        if (!deleting(ns)) {
            finished(p->name, false, {});
            return;
        }
        std::vector<std::string> fs = specFinalizers(ns);
        if (std::find(fs.begin(), fs.end(), kFinalizer) == fs.end()) {
            finalize(p);
            return;
        }
        listContent(p, 0);
    });
}

// The namespace as stored, for `then` (on the loop, while the controller
// lives); a failed read ends the pass, which runs again after
// kRequeueDelay unless the namespace is gone.
void NamespaceController::readNamespace(
    std::shared_ptr<Pass> p, std::function<void(json::Document& ns, storage::Revision)> then) {
    std::weak_ptr<bool> alive = alive_;
    storage_.get(p->key, [this, alive, p, then = std::move(then)](const storage::Error& err,
                                                                  const storage::ObjectView* cur) {
        if (!alive.lock()) {
            return;
        }
        if (!err.ok()) {
            finished(p->name, err.code != storage::ErrorCode::NotFound, kRequeueDelay);
            return;
        }
        json::Document ns = parse(cur->value);
        then(ns, cur->modRevision);
    });
}

// What is in the namespace, one kind after the other.
void NamespaceController::listContent(std::shared_ptr<Pass> p, size_t kind) {
    if (kind == p->kinds.size()) {
        deleteContent(p);
        return;
    }
    const registry::KindInfo* k = p->kinds[kind].get();
    storage::ListOptions opts;
    opts.prefix = registry::collectionPrefix(*k, p->name);
    std::weak_ptr<bool> alive = alive_;
    storage_.list(
        opts, [this, alive, p, k, kind](const storage::Error& err, const storage::ListResult& res) {
            if (!alive.lock()) {
                return;
            }
            if (!err.ok()) {
                p->errors.push_back(k->resource + "." + k->group + ": " + err.message);
            } else {
                for (const storage::ObjectView& item : res.items) {
                    json::Document obj = parse(item.value);
                    // An object already being deleted is left to its finalizers
                    // or grace period.
                    if (!deleting(obj)) {
                        p->content.emplace_back(k, nameOf(obj));
                    }
                }
            }
            listContent(p, kind + 1);
        });
}

// Each object through its store, a few at a time; an object gone already
// is no failure.
void NamespaceController::deleteContent(std::shared_ptr<Pass> p) {
    while (p->inFlight < kParallelism && p->next < p->content.size()) {
        auto [kind, name] = p->content[p->next++];
        registry::Store* store = stores_(*kind);
        if (!store || name.empty()) {
            continue;
        }
        p->inFlight++;
        registry::DeleteOptions opts;
        opts.propagationPolicy = "Background";
        std::weak_ptr<bool> alive = alive_;
        store->remove(
            p->name, name, opts,
            [this, alive, p, kind](const meta::Status* e, const registry::DeleteResult&) {
                if (!alive.lock()) {
                    return;
                }
                p->inFlight--;
                if (e && e->code != 404) {
                    p->errors.push_back(kind->resource + "." + kind->group + ": " + e->message);
                }
                deleteContent(p);
            });
    }
    if (p->inFlight == 0 && p->next == p->content.size() && !p->counting) {
        p->counting = true;
        countRemaining(p, 0);
    }
}

// Mirrors deleteAllContent's totals: what is left, by resource and by
// finalizer.
void NamespaceController::countRemaining(std::shared_ptr<Pass> p, size_t kind) {
    if (kind == p->kinds.size()) {
        if (p->remaining.empty() && p->errors.empty()) {
            finalize(p);
        } else {
            writeConditions(p);
        }
        return;
    }
    const registry::KindInfo* k = p->kinds[kind].get();
    storage::ListOptions opts;
    opts.prefix = registry::collectionPrefix(*k, p->name);
    std::weak_ptr<bool> alive = alive_;
    storage_.list(opts, [this, alive, p, k, kind](const storage::Error& err,
                                                  const storage::ListResult& res) {
        if (!alive.lock()) {
            return;
        }
        if (err.ok() && !res.items.empty()) {
            p->remaining[k->resource + "." + k->group] += static_cast<int64_t>(res.items.size());
            for (const storage::ObjectView& item : res.items) {
                for (const std::string& f : registry::finalizersOf(parse(item.value))) {
                    p->finalizers[f]++;
                }
            }
        }
        countRemaining(p, kind + 1);
    });
}

// Content remains: the namespace's conditions say what, and another pass
// follows.
void NamespaceController::writeConditions(std::shared_ptr<Pass> p) {
    readNamespace(p, [this, p](json::Document& ns, storage::Revision revision) {
        std::string now = util::time::formatRFC3339(loop_.now());
        if (!updateConditions(ns, conditionsFor(p->remaining, p->finalizers, p->errors), now)) {
            finished(p->name, true, kRequeueDelay);
            return;
        }
        std::weak_ptr<bool> alive = alive_;
        storage_.write({updateOp(p->key, ns, revision)}, [this, alive, p](storage::WriteResult&&) {
            if (alive.lock()) {
                finished(p->name, true, kRequeueDelay);
            }
        });
    });
}

// Mirrors finalizeNamespace and the deleter's last Delete: "kubernetes"
// leaves spec.finalizers; the namespace goes once no finalizer is left.
void NamespaceController::finalize(std::shared_ptr<Pass> p) {
    readNamespace(p, [this, p](json::Document& ns, storage::Revision revision) {
        std::weak_ptr<bool> alive = alive_;
        auto removeNamespace = [this, alive, p](storage::Revision at) {
            storage::WriteOp op;
            op.type = storage::WriteOp::Type::Delete;
            op.key = p->key;
            op.expectedModRevision = at;
            storage_.write({std::move(op)}, [this, alive, p](storage::WriteResult&& res) {
                if (alive.lock()) {
                    // A concurrent write: look again.
                    finished(p->name, res.error.code == storage::ErrorCode::Conflict, {});
                }
            });
        };
        std::vector<std::string> fs = specFinalizers(ns);
        bool empty = registry::finalizersOf(ns).empty();
        auto kept = std::remove(fs.begin(), fs.end(), kFinalizer);
        if (kept == fs.end()) {
            if (fs.empty() && empty) {
                removeNamespace(revision);
            } else {
                finished(p->name, false, {});
            }
            return;
        }
        fs.erase(kept, fs.end());
        auto& a = ns.GetAllocator();
        json::Value list(rapidjson::kArrayType);
        for (const std::string& f : fs) {
            list.PushBack(json::stringValue(f, a), a);
        }
        if (!json::member(ns, "spec") || !ns["spec"].IsObject()) {
            json::setMember(ns, "spec", json::Value(rapidjson::kObjectType), a);
        }
        json::setMember(ns["spec"], "finalizers", std::move(list), a);
        bool gone = fs.empty() && empty;
        storage_.write({updateOp(p->key, ns, revision)}, [this, alive, p, gone, removeNamespace](
                                                             storage::WriteResult&& res) {
            if (!alive.lock()) {
                return;
            }
            if (!res.error.ok()) {
                finished(p->name, res.error.code != storage::ErrorCode::NotFound, {});
                return;
            }
            if (!gone) {
                finished(p->name, false, {});
                return;
            }
            removeNamespace(res.objects.at(0).modRevision);
        });
    });
}

}  // namespace kube::namespacecontroller
