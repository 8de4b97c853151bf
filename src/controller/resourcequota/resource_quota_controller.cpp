#include "controller/resourcequota/resource_quota_controller.hpp"

#include <algorithm>

#include "admission/quota_evaluator.hpp"
#include "registry/encoding.hpp"
#include "util/json.hpp"

namespace kube::resourcequota {

namespace cacher = storage::cacher;
namespace json = util::json;
namespace quota = admission::quota;
using admission::resources::List;

namespace {

// The namespace of a key under `prefix` ("<prefix><ns>/<name>").
std::string namespaceOf(std::string_view key, std::string_view prefix) {
    if (key.substr(0, prefix.size()) != prefix) {
        return {};
    }
    std::string_view rest = key.substr(prefix.size());
    size_t slash = rest.find('/');
    return slash == std::string_view::npos ? std::string() : std::string(rest.substr(0, slash));
}

json::Document parse(std::string_view bytes) {
    json::Document doc;
    doc.Parse(bytes.data(), bytes.size());
    if (doc.HasParseError() || !doc.IsObject()) {
        doc.SetObject();
    }
    return doc;
}

// Resource lists compared by amount, not spelling.
bool sameAmounts(const List& a, const List& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (const auto& [k, v] : a) {
        auto it = b.find(k);
        if (it == b.end() || it->second.compare(v) != 0) {
            return false;
        }
    }
    return true;
}

bool hardMirrored(const json::Value& q) {
    return sameAmounts(admission::resources::listOf(json::at(q, {"spec", "hard"})),
                       admission::resources::listOf(json::at(q, {"status", "hard"})));
}

json::Value listValue(const List& l, json::Allocator& a) {
    json::Value out(rapidjson::kObjectType);
    for (const auto& [k, v] : l) {
        out.AddMember(json::stringValue(k, a), json::stringValue(v.string(), a), a);
    }
    return out;
}

}  // namespace

ResourceQuotaController::ResourceQuotaController(util::EventLoop& loop, storage::Interface& storage,
                                                 const registry::KindInfo& quotas)
    : loop_(loop), storage_(storage), quotas_(quotas) {
    std::weak_ptr<bool> alive = alive_;
    resyncTimer_ = loop_.startTimer(kResyncPeriod, [this, alive] {
        if (alive.lock()) {
            resync();
        }
    });
}

ResourceQuotaController::~ResourceQuotaController() {
    *alive_ = false;
}

void ResourceQuotaController::follow(const registry::KindInfo& kind, cacher::WatchCache& cache) {
    if (!kind.namespaced) {
        return;
    }
    // Recounts read the caches, so no hand-over of a cache's state is taken;
    // a refilled cache may hold anything, so every namespace with a quota is
    // recounted then (what kube's resync does).
    cacher::Follower::Handlers h;
    h.replacing = [this] {
        markQuotasDirty();
        return false;
    };
    h.put = [this, &kind](const cacher::CachedObject& obj) {
        observe(kind, obj, false);
        return false;
    };
    h.remove = [this, &kind](const cacher::CachedObject& obj) {
        observe(kind, obj, true);
        return false;
    };
    followed_.push_back({&kind, &cache, std::make_unique<cacher::Follower>(cache, std::move(h))});
    if (&kind == &quotas_) {
        quotaCache_ = &cache;
        resync();
    }
}

void ResourceQuotaController::unfollow(const registry::KindInfo& kind) {
    auto it = std::find_if(followed_.begin(), followed_.end(),
                           [&kind](const Followed& f) { return f.kind == &kind; });
    if (it == followed_.end() || &kind == &quotas_) {
        return;
    }
    followed_.erase(it);
    markQuotasDirty();
}

void ResourceQuotaController::observe(const registry::KindInfo& kind,
                                      const cacher::CachedObject& obj, bool deleted) {
    std::string ns = namespaceOf(obj.key, registry::collectionPrefix(kind, ""));
    if (ns.empty()) {
        return;
    }
    if (&kind == &quotas_) {
        // A quota's own status writes (ours, admission's charges) change
        // nothing to recount; a new quota or a changed spec.hard does.
        if (!deleted && !hardMirrored(parse(obj.bytes))) {
            markDirty(ns);
        }
        return;
    }
    if (!quotaCache_) {
        return;
    }
    cacher::WatchCache::Page page;
    if (quotaCache_->list(registry::collectionPrefix(quotas_, ns), "", 1, nullptr, 0, &page) &&
        !page.items.empty()) {
        markDirty(ns);
    }
}

void ResourceQuotaController::markDirty(const std::string& ns) {
    dirty_.insert(ns);
    schedule();
}

void ResourceQuotaController::schedule() {
    if (scheduled_ || dirty_.empty()) {
        return;
    }
    scheduled_ = true;
    std::weak_ptr<bool> alive = alive_;
    loop_.post([this, alive] {
        if (alive.lock()) {
            scheduled_ = false;
            pump();
        }
    });
}

void ResourceQuotaController::pump() {
    for (size_t n = 0; n < kNamespacesPerPass && !dirty_.empty(); n++) {
        std::string ns = *dirty_.begin();
        dirty_.erase(dirty_.begin());
        recount(ns);
    }
    schedule();
}

void ResourceQuotaController::markQuotasDirty() {
    cacher::WatchCache::Page page;
    if (!quotaCache_ || !quotaCache_->list(quotaCache_->prefix(), "", 0, nullptr, 0, &page)) {
        return;
    }
    std::string prefix = registry::collectionPrefix(quotas_, "");
    for (const cacher::ObjectRef& obj : page.items) {
        std::string ns = namespaceOf(obj->key, prefix);
        if (!ns.empty()) {
            dirty_.insert(ns);
        }
    }
    schedule();
}

// Every namespace with a quota is recounted (kube's resync), now and every
// kResyncPeriod.
void ResourceQuotaController::resync() {
    markQuotasDirty();
    std::weak_ptr<bool> alive = alive_;
    resyncTimer_ = loop_.startTimer(kResyncPeriod, [this, alive] {
        if (alive.lock()) {
            resync();
        }
    });
}

// Mirrors syncResourceQuota: each quota's usage from what the caches hold.
void ResourceQuotaController::recount(const std::string& ns) {
    if (!quotaCache_) {
        return;
    }
    cacher::WatchCache::Page quotas;
    if (!quotaCache_->list(registry::collectionPrefix(quotas_, ns), "", 0, nullptr, 0, &quotas)) {
        return;
    }
    stats_.recounts++;
    for (const cacher::ObjectRef& ref : quotas.items) {
        json::Document q = parse(ref->bytes);
        List hard = admission::resources::listOf(json::at(q, {"spec", "hard"}));
        std::vector<std::string> names;
        List used;
        for (const auto& [k, v] : hard) {
            names.push_back(k);
            used.emplace(k, *util::Quantity::parse("0"));
        }
        for (const Followed& f : followed_) {
            std::vector<std::string> tracked = quota::matchingResources(*f.kind, names);
            if (tracked.empty()) {
                continue;
            }
            cacher::WatchCache::Page objects;
            if (!f.cache->list(registry::collectionPrefix(*f.kind, ns), "", 0, nullptr, 0,
                               &objects)) {
                markDirty(ns);  // the cache is being refilled: later
                return;
            }
            for (const cacher::ObjectRef& obj : objects.items) {
                json::Document o = parse(obj->bytes);
                if (!quota::matchesScopes(*f.kind, q, o)) {
                    continue;
                }
                for (const auto& [k, v] : quota::usage(*f.kind, o)) {
                    if (auto it = used.find(k); it != used.end()) {
                        it->second = quota::add(it->second, v);
                    }
                }
            }
        }
        List statusHard = admission::resources::listOf(json::at(q, {"status", "hard"}));
        List statusUsed = admission::resources::listOf(json::at(q, {"status", "used"}));
        if (sameAmounts(hard, statusHard) && sameAmounts(used, statusUsed)) {
            continue;
        }
        auto& a = q.GetAllocator();
        json::Value status(rapidjson::kObjectType);
        status.AddMember("hard", listValue(hard, a), a);
        status.AddMember("used", listValue(used, a), a);
        json::setMember(q, "status", std::move(status), a);
        registry::EncodedObject enc = registry::encodeObject(q);
        storage::WriteOp op;
        op.type = storage::WriteOp::Type::Update;
        op.key = ref->key;
        op.expectedModRevision = ref->modRevision;
        op.value = std::move(enc.bytes);
        op.revisionOffset = enc.revisionOffset;
        std::weak_ptr<bool> alive = alive_;
        storage_.write({std::move(op)}, [this, alive, ns](storage::WriteResult&& res) {
            if (!alive.lock()) {
                return;
            }
            if (res.error.ok()) {
                stats_.statusWrites++;
            } else if (res.error.code == storage::ErrorCode::Conflict) {
                markDirty(ns);
            }
        });
    }
}

}  // namespace kube::resourcequota
