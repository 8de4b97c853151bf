#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "registry/kind.hpp"
#include "storage/cacher/follower.hpp"
#include "storage/cacher/watch_cache.hpp"

namespace kube::controller::apiextensions {

// Keeps one worker serving the custom resources of every Established
// CustomResourceDefinition its watch cache holds; mirrors kube's crdHandler
// (the serving info it keeps per definition and rebuilds when the
// definition's spec or accepted names change) with its discovery controller.
//
// A definition is served, one kind per served version (apis/apiextensions'
// customResourceKinds), from the moment its Established condition is True
// in this worker's cache; when its uid, spec or accepted names change, its
// kinds are removed and added again (open watches on them end, as kube tears
// the old storage down); when it stops being established or is deleted,
// they are removed. Every worker runs one, so a definition established by
// any worker is served by all of them as soon as their caches see it.
// Loop thread only.
class CustomResourceServing {
  public:
    // Serves a kind; false when its group, version and resource are served
    // already (a built-in kind).
    using AddKind = std::function<bool(registry::KindInfo kind)>;
    // Stops serving every version of a group's resource.
    using RemoveKind = std::function<void(std::string_view group, std::string_view resource)>;

    CustomResourceServing(storage::cacher::WatchCache& definitions, AddKind add, RemoveKind remove);
    CustomResourceServing(const CustomResourceServing&) = delete;
    CustomResourceServing& operator=(const CustomResourceServing&) = delete;

    // The definitions served now.
    size_t served() const { return served_.size(); }
    // The definition serving `group`'s `resource` is being deleted (its
    // Terminating condition is True): kube refuses creates meanwhile.
    bool terminating(std::string_view group, std::string_view resource) const;

  private:
    struct Served {
        std::string group;
        std::string resource;
        // What the kinds were built from: uid, spec generation and accepted
        // names.
        std::string fingerprint;
        bool terminating = false;
    };

    void put(std::string_view bytes);
    void unserve(const std::string& name);
    // After a hand-over: what the cache no longer holds stops being served.
    void sweep();

    AddKind add_;
    RemoveKind remove_;
    std::map<std::string, Served> served_;
    // The names a hand-over put.
    std::set<std::string> handedOver_;
    bool replaying_ = false;
    std::unique_ptr<storage::cacher::Follower> follower_;
};

}  // namespace kube::controller::apiextensions
