#pragma once

#include <string>
#include <string_view>

#include "registry/kind.hpp"
#include "util/json.hpp"

namespace kube::registry {

// An object serialized for storage: kind, apiVersion and metadata first, in
// kube-apiserver's (Go struct) key order, with metadata.resourceVersion left
// as an empty slot at `revisionOffset` for the store to fill at commit.
struct EncodedObject {
    std::string bytes;
    size_t revisionOffset = std::string::npos;
};

// `withRevisionSlot` false leaves resourceVersion out entirely (dry runs).
EncodedObject encodeObject(const json::Value& obj, bool withRevisionSlot = true);

// `{"kind":"ConfigMap","apiVersion":"v1",`, the prefix every stored object
// of `kind` starts with (its storage version's); list items are written without it (kube's lists
// carry no kind/apiVersion per item).
std::string storedPrefix(const KindInfo& kind);

// A stored object as the version `kind` serves (its storage version's
// apiVersion replaced, or converted for a kind stored as another); a copy of
// `stored` when the versions are the same.
std::string servedObject(const KindInfo& kind, std::string_view stored);

// Appends a stored object to `out` as a list item (kind/apiVersion dropped).
void appendListItem(std::string& out, std::string_view stored, std::string_view prefix);
// The same, leaving the object's bytes where they are: appends what goes
// before them and returns the part of `stored` that follows it.
std::string_view appendListItemHead(std::string& out, std::string_view stored,
                                    std::string_view prefix);

// A stored object with metadata.resourceVersion set to `revision` (a
// DELETED watch event carries the deletion's revision).
std::string withResourceVersion(std::string_view stored, uint64_t revision);

// Storage keys in kube-apiserver's etcd layout.
std::string objectKey(const KindInfo& kind, std::string_view ns, std::string_view name);
// The prefix of every object of `kind` in `ns` ("" = all namespaces).
std::string collectionPrefix(const KindInfo& kind, std::string_view ns);

}  // namespace kube::registry
