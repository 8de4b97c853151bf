#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "registry/kind.hpp"

namespace kube::registry {

// One API group with its versions, preferred first.
struct GroupInfo {
    std::string name;  // "" for the legacy core group
    std::vector<std::string> versions;
};

// The registry of kinds served; the data every route, discovery document and
// store is derived from. The built-in kinds are added at start-up; kinds
// added and removed later (custom resources) bump the generation, which
// tells what was derived from an older scheme. Kinds are shared: one removed
// stays alive for whoever still holds it (a request that is running).
class Scheme {
public:
    // Adds a kind; groups and versions are listed in the order first seen.
    const KindInfo& add(KindInfo kind);
    // Removes every version of `group`'s `resource`; the kinds removed, in
    // the order added (none when the scheme has no such resource).
    std::vector<std::shared_ptr<const KindInfo>> remove(std::string_view group,
                                                        std::string_view resource);
    // Counts the changes: add and remove each bump it.
    uint64_t generation() const { return generation_; }

    const KindInfo* find(std::string_view group, std::string_view version,
                         std::string_view resource) const;
    const KindInfo* findKind(std::string_view group, std::string_view version,
                             std::string_view kind) const;

    // The groups in priority order ("" first when present).
    const std::vector<GroupInfo>& groups() const { return groups_; }
    // The kinds of one group-version, in the order added.
    std::vector<const KindInfo*> kinds(std::string_view group, std::string_view version) const;
    // Every kind, in the order added.
    const std::vector<std::shared_ptr<const KindInfo>>& all() const { return kinds_; }

    bool hasGroupVersion(std::string_view group, std::string_view version) const;

private:
    void addGroupVersion(const KindInfo& kind);
    void index(const KindInfo& kind);

    // string_view lookups without a copy of the key
    struct NameHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    using Index =
        std::unordered_map<std::string, std::vector<const KindInfo*>, NameHash, std::equal_to<>>;

    std::vector<std::shared_ptr<const KindInfo>> kinds_;
    // The kinds by resource and by kind name (every request looks its kind
    // up), in the order added.
    Index byResource_;
    Index byKind_;
    std::vector<GroupInfo> groups_;
    uint64_t generation_ = 0;
};

// The built-in kinds (src/apis/...), in kube-apiserver's group priority order.
void addBuiltinKinds(Scheme& scheme);

}  // namespace kube::registry
