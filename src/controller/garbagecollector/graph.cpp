#include "controller/garbagecollector/graph.hpp"

#include <algorithm>
#include <optional>

#include "registry/deletion.hpp"
#include "util/json_member_text.hpp"

namespace kube::garbagecollector {

namespace json = util::json;

bool objectInfo(const registry::KindInfo& kind, const json::Value& obj, ObjectInfo* out) {
    const json::Value* metadata = obj.IsObject() ? json::member(obj, "metadata") : nullptr;
    if (!metadata || !metadata->IsObject()) {
        return false;
    }
    out->kind = &kind;
    out->uid = json::stringMember(*metadata, "uid");
    if (out->uid.empty()) {
        return false;
    }
    out->ns = json::stringMember(*metadata, "namespace");
    out->name = json::stringMember(*metadata, "name");
    out->owners.clear();
    if (const json::Value* refs = json::member(*metadata, "ownerReferences");
        refs && refs->IsArray()) {
        for (const auto& r : refs->GetArray()) {
            if (!r.IsObject()) {
                continue;
            }
            OwnerReference ref;
            ref.apiVersion = json::stringMember(r, "apiVersion");
            ref.kind = json::stringMember(r, "kind");
            ref.name = json::stringMember(r, "name");
            ref.uid = json::stringMember(r, "uid");
            const json::Value* c = json::member(r, "controller");
            ref.controller = c && c->IsBool() && c->GetBool();
            const json::Value* b = json::member(r, "blockOwnerDeletion");
            ref.blockOwnerDeletion = b && b->IsBool() && b->GetBool();
            if (!ref.uid.empty()) {
                out->owners.push_back(std::move(ref));
            }
        }
    }
    const json::Value* ts = json::member(*metadata, "deletionTimestamp");
    out->deleting = ts && !ts->IsNull();
    out->deletingDependents =
        out->deleting && registry::hasFinalizer(obj, registry::kFinalizerForeground);
    out->orphaning = out->deleting && registry::hasFinalizer(obj, registry::kFinalizerOrphan);
    return true;
}

bool objectInfo(const registry::KindInfo& kind, std::string_view bytes, ObjectInfo* out) {
    // The metadata alone: it comes first in what this server stores, so a
    // large object costs the loop no more than a small one.
    std::optional<std::string_view> metadata = json::topLevelMemberText(bytes, "metadata");
    if (!metadata) {
        return false;
    }
    json::Document doc;
    doc.SetObject();
    json::Document parsed(&doc.GetAllocator());
    parsed.Parse(metadata->data(), metadata->size());
    if (parsed.HasParseError()) {
        return false;
    }
    doc.AddMember("metadata", parsed.Move(), doc.GetAllocator());
    return objectInfo(kind, doc, out);
}

Node& Graph::ensure(const std::string& uid) {
    Node& n = nodes_[uid];
    n.info.uid = uid;
    return n;
}

const Node* Graph::node(std::string_view uid) const {
    auto it = nodes_.find(std::string(uid));
    return it == nodes_.end() ? nullptr : &it->second;
}

size_t Graph::observedCount() const {
    return static_cast<size_t>(std::count_if(nodes_.begin(), nodes_.end(),
                                             [](const auto& kv) { return kv.second.observed; }));
}

void Graph::link(const std::string& owner, const std::string& dependent, Work& work) {
    Node& o = ensure(owner);
    o.dependents.insert(dependent);
    // An owner never seen may not exist (a dangling reference), and one
    // deleting in the foreground waits for this dependent: either way the
    // dependent is looked at.
    if (!o.observed || o.info.deletingDependents) {
        work.attemptToDelete.push_back(dependent);
    }
}

void Graph::unlink(const std::string& owner, const std::string& dependent, Work& work) {
    auto it = nodes_.find(owner);
    if (it == nodes_.end()) {
        return;
    }
    it->second.dependents.erase(dependent);
    if (it->second.observed && it->second.info.deletingDependents) {
        work.attemptToDelete.push_back(owner);  // one blocker fewer
    }
    prune(owner);
}

void Graph::prune(const std::string& uid) {
    auto it = nodes_.find(uid);
    if (it == nodes_.end() || !it->second.dependents.empty()) {
        return;
    }
    const ObjectInfo& i = it->second.info;
    if (!it->second.observed || (i.owners.empty() && !i.deletingDependents && !i.orphaning)) {
        nodes_.erase(it);
    }
}

void Graph::observe(ObjectInfo info, Work& work) {
    std::string uid = info.uid;
    Node& n = ensure(uid);
    bool wasObserved = n.observed;
    ObjectInfo old = std::move(n.info);
    n.info = std::move(info);
    n.observed = true;
    // Copies: linking may rehash the map, and `n` with it. Only the first
    // kMaxLinkedOwners references become edges (a hostile object may name
    // tens of thousands); the collector still reads them all when it looks
    // at the object.
    std::vector<OwnerReference> owners(
        n.info.owners.begin(),
        n.info.owners.begin() + std::min(n.info.owners.size(), kMaxLinkedOwners));
    n.info.owners = owners;
    bool deletingDependents = n.info.deletingDependents;
    bool orphaning = n.info.orphaning;
    // By uid on both sides: an object may name tens of thousands of owners.
    std::unordered_map<std::string_view, const OwnerReference*> now, before;
    for (const OwnerReference& r : owners) {
        now.emplace(r.uid, &r);
    }
    for (const OwnerReference& r : old.owners) {
        before.emplace(r.uid, &r);
    }
    for (const OwnerReference& was : old.owners) {
        auto it = now.find(was.uid);
        if (it == now.end()) {
            unlink(was.uid, uid, work);
        } else if (was.blockOwnerDeletion && !it->second->blockOwnerDeletion) {
            const Node* o = node(was.uid);
            if (o && o->observed && o->info.deletingDependents) {
                work.attemptToDelete.push_back(was.uid);
            }
        }
    }
    for (const OwnerReference& ref : owners) {
        if (!before.contains(ref.uid)) {
            link(ref.uid, uid, work);
        }
    }
    if (orphaning) {
        work.attemptToOrphan.push_back(uid);
    }
    if (deletingDependents) {
        if (!wasObserved || !old.deletingDependents) {
            for (const std::string& d : nodes_.at(uid).dependents) {
                work.attemptToDelete.push_back(d);
            }
        }
        work.attemptToDelete.push_back(uid);
    }
    prune(uid);
}

void Graph::forget(std::string_view uidView, Work& work) {
    std::string uid(uidView);
    auto it = nodes_.find(uid);
    if (it == nodes_.end()) {
        return;
    }
    std::vector<OwnerReference> owners = std::move(it->second.info.owners);
    it->second.info = ObjectInfo{};
    it->second.info.uid = uid;
    it->second.observed = false;
    for (const std::string& d : it->second.dependents) {
        work.attemptToDelete.push_back(d);  // their owner is gone
    }
    for (const OwnerReference& ref : owners) {
        unlink(ref.uid, uid, work);
    }
    prune(uid);
}

void Graph::forgetResource(std::string_view group, std::string_view resource, Work& work) {
    std::vector<std::string> uids;
    for (const auto& [uid, n] : nodes_) {
        const registry::KindInfo* k = n.info.kind;
        if (n.observed && k && k->group == group && k->resource == resource) {
            uids.push_back(uid);
        }
    }
    for (const std::string& uid : uids) {
        forget(uid, work);
    }
}

std::vector<const Node*> Graph::dependents(std::string_view uid) const {
    std::vector<const Node*> out;
    if (const Node* n = node(uid)) {
        for (const std::string& d : n->dependents) {
            if (const Node* dn = node(d)) {
                out.push_back(dn);
            }
        }
    }
    return out;
}

std::vector<const Node*> Graph::blockingDependents(std::string_view uid) const {
    std::vector<const Node*> out;
    for (const Node* d : dependents(uid)) {
        bool blocks = std::any_of(
            d->info.owners.begin(), d->info.owners.end(),
            [uid](const OwnerReference& r) { return r.uid == uid && r.blockOwnerDeletion; });
        if (blocks) {
            out.push_back(d);
        }
    }
    return out;
}

}  // namespace kube::garbagecollector
