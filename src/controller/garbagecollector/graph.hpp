#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "registry/kind.hpp"
#include "util/json.hpp"

// The ownership graph of the garbage collector; mirrors kube's
// pkg/controller/garbagecollector graph_builder.go and graph.go. Nodes are
// objects keyed by uid; edges run from an owner to its dependents, as the
// dependents' metadata.ownerReferences name them (only the uid says which
// object an edge reaches, as in kube). An owner that is referenced but not
// observed is a virtual node until it is seen.
namespace kube::garbagecollector {

// One entry of metadata.ownerReferences.
struct OwnerReference {
    std::string apiVersion;
    std::string kind;
    std::string name;
    std::string uid;
    bool controller = false;
    bool blockOwnerDeletion = false;

    bool operator==(const OwnerReference&) const = default;
};

// What the graph keeps of one object.
struct ObjectInfo {
    const registry::KindInfo* kind = nullptr;
    std::string ns;
    std::string name;
    std::string uid;
    std::vector<OwnerReference> owners;
    bool deleting = false;            // metadata.deletionTimestamp is set
    bool deletingDependents = false;  // deleting, with the foregroundDeletion finalizer
    bool orphaning = false;           // deleting, with the orphan finalizer
};

// The graph's part of an object, read from its stored JSON; false when the
// bytes are not an object with a uid.
bool objectInfo(const registry::KindInfo& kind, const util::json::Value& obj, ObjectInfo* out);
bool objectInfo(const registry::KindInfo& kind, std::string_view bytes, ObjectInfo* out);

struct Node {
    ObjectInfo info;
    // Seen in a watch cache; false for an owner known only from references.
    bool observed = false;
    // The uids of the objects that name this one as an owner.
    std::set<std::string> dependents;
};

// What the collector is to look at after a change: objects to attempt to
// delete (their owners may be gone or waiting for them; a foreground
// deletion that may be finished) and owners whose dependents are to be
// orphaned. Uids; the collector deduplicates.
struct Work {
    std::vector<std::string> attemptToDelete;
    std::vector<std::string> attemptToOrphan;
};

// Loop thread only; no I/O.
class Graph {
public:
    // Owner references of one object that become edges.
    static constexpr size_t kMaxLinkedOwners = 1000;

    // An object was added or changed (or seen when a cache was scanned).
    void observe(ObjectInfo info, Work& work);
    // An object was deleted.
    void forget(std::string_view uid, Work& work);
    // Every object of `group`'s `resource` (any version) is forgotten: it is
    // no longer served, and no node refers to its kinds afterwards.
    void forgetResource(std::string_view group, std::string_view resource, Work& work);

    const Node* node(std::string_view uid) const;
    // The dependents of `uid` that block its foreground deletion (their
    // reference to it has blockOwnerDeletion).
    std::vector<const Node*> blockingDependents(std::string_view uid) const;
    std::vector<const Node*> dependents(std::string_view uid) const;

    size_t size() const { return nodes_.size(); }
    size_t observedCount() const;

private:
    Node& ensure(const std::string& uid);
    void link(const std::string& owner, const std::string& dependent, Work& work);
    void unlink(const std::string& owner, const std::string& dependent, Work& work);
    // Drops a virtual node that no longer has dependents.
    void prune(const std::string& uid);

    std::unordered_map<std::string, Node> nodes_;
};

}  // namespace kube::garbagecollector
