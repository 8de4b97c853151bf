#include "admission/resource_quota.hpp"

#include <vector>

#include "admission/quota_evaluator.hpp"
#include "registry/encoding.hpp"
#include "util/json.hpp"

namespace kube::admission {

namespace json = util::json;
namespace cacher = storage::cacher;

struct ResourceQuota::Attempt {
    const Attributes* a = nullptr;
    Callback done;
    int attempt = 0;
};

namespace {

void setUsed(json::Document& quota, const resources::List& used) {
    auto& a = quota.GetAllocator();
    if (!json::member(quota, "status") || !quota["status"].IsObject()) {
        json::setMember(quota, "status", json::Value(rapidjson::kObjectType), a);
    }
    json::Value list(rapidjson::kObjectType);
    for (const auto& [k, v] : used) {
        list.AddMember(json::stringValue(k, a), json::stringValue(v.string(), a), a);
    }
    json::setMember(quota["status"], "used", std::move(list), a);
}

}  // namespace

ResourceQuota::ResourceQuota(storage::Interface& storage, cacher::Cacher& cacher,
                             const registry::KindInfo& quotas)
    : storage_(storage), cacher_(cacher), quotas_(quotas) {}

bool ResourceQuota::handles(const Attributes& a) const {
    return a.kind && a.kind->namespaced && !a.ns.empty() && a.object && a.object->IsObject() &&
           quota::evaluates(*a.kind, a.operation, a.subresource);
}

void ResourceQuota::validate(const Attributes& a, Callback done) {
    auto at = std::make_shared<Attempt>();
    at->a = &a;
    at->done = std::move(done);
    attempt(std::move(at));
}

// One pass of checkQuotas: read the namespace's quotas, check, charge.
void ResourceQuota::attempt(std::shared_ptr<Attempt> at) {
    const Attributes& a = *at->a;
    storage::Error err;
    cacher::WatchCache* cache = cacher_.cache(registry::collectionPrefix(quotas_, ""), &err);
    if (cache) {
        err = cacher_.sync();
    }
    cacher::WatchCache::Page page;
    if (err.ok() &&
        !cache->list(registry::collectionPrefix(quotas_, a.ns), "", 0, nullptr, 0, &page)) {
        err = {storage::ErrorCode::Internal, "the quotas' watch cache has no current state"};
    }
    if (!err.ok()) {
        meta::Status s = meta::Status::internalError(err.message);
        at->done(&s);
        return;
    }
    if (page.items.empty()) {
        at->done(nullptr);
        return;
    }
    std::vector<json::Document> docs(page.items.size());
    std::vector<quota::Quota> quotas;
    std::vector<storage::Revision> revisions;
    for (size_t i = 0; i < page.items.size(); i++) {
        const cacher::CachedObject& item = *page.items[i];
        json::Document& doc = docs[i];
        doc.Parse(item.bytes.data(), item.bytes.size());
        if (doc.HasParseError() || !doc.IsObject()) {
            continue;
        }
        quota::Quota q;
        q.name = json::stringMember(doc["metadata"], "name");
        q.object = &doc;
        q.hard = resources::listOf(json::at(doc, {"status", "hard"}));
        q.used = resources::listOf(json::at(doc, {"status", "used"}));
        quotas.push_back(std::move(q));
        revisions.push_back(item.modRevision);
    }
    const json::Value* old = a.operation == Operation::Update ? a.oldObject : nullptr;
    if (std::optional<std::string> refused = quota::check(*a.kind, *a.object, old, quotas)) {
        meta::Status s = forbidden(a, *refused);
        at->done(&s);
        return;
    }
    std::vector<storage::WriteOp> ops;
    for (size_t i = 0; i < quotas.size(); i++) {
        if (!quotas[i].changed) {
            continue;
        }
        json::Document next;
        next.CopyFrom(*quotas[i].object, next.GetAllocator());
        setUsed(next, quotas[i].used);
        registry::EncodedObject enc = registry::encodeObject(next);
        storage::WriteOp op;
        op.type = storage::WriteOp::Type::Update;
        op.key = registry::objectKey(quotas_, a.ns, quotas[i].name);
        op.expectedModRevision = revisions[i];
        op.value = std::move(enc.bytes);
        op.revisionOffset = enc.revisionOffset;
        ops.push_back(std::move(op));
    }
    if (ops.empty() || a.dryRun) {
        at->done(nullptr);
        return;
    }
    // All charges in one batch: either every matching quota grows or
    // none does (a concurrent change to one starts the check over).
    storage_.write(std::move(ops), [this, at](storage::WriteResult&& wr) {
        if ((wr.error.code == storage::ErrorCode::Conflict ||
             wr.error.code == storage::ErrorCode::NotFound) &&
            ++at->attempt < kMaxAttempts) {
            attempt(at);
            return;
        }
        if (!wr.error.ok()) {
            meta::Status s = meta::Status::internalError("resource quota evaluation timed out: " +
                                                         wr.error.message);
            at->done(&s);
            return;
        }
        at->done(nullptr);
    });
}

}  // namespace kube::admission
