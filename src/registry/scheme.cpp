#include "registry/scheme.hpp"

#include <algorithm>

namespace kube::registry {

const KindInfo& Scheme::add(KindInfo kind) {
    addGroupVersion(kind);
    kinds_.push_back(std::make_shared<const KindInfo>(std::move(kind)));
    index(*kinds_.back());
    ++generation_;
    return *kinds_.back();
}

void Scheme::index(const KindInfo& kind) {
    byResource_[kind.resource].push_back(&kind);
    byKind_[kind.kind].push_back(&kind);
}

void Scheme::addGroupVersion(const KindInfo& kind) {
    auto g = std::find_if(groups_.begin(), groups_.end(),
                          [&](const GroupInfo& gi) { return gi.name == kind.group; });
    if (g == groups_.end()) {
        groups_.push_back({kind.group, {kind.version}});
    } else if (std::find(g->versions.begin(), g->versions.end(), kind.version) ==
               g->versions.end()) {
        g->versions.push_back(kind.version);
    }
}

std::vector<std::shared_ptr<const KindInfo>> Scheme::remove(std::string_view group,
                                                            std::string_view resource) {
    std::vector<std::shared_ptr<const KindInfo>> removed;
    std::vector<std::shared_ptr<const KindInfo>> kept;
    for (std::shared_ptr<const KindInfo>& k : kinds_) {
        (k->group == group && k->resource == resource ? removed : kept).push_back(std::move(k));
    }
    kinds_ = std::move(kept);
    if (removed.empty()) {
        return removed;
    }
    // The groups and versions of the kinds left, in the order first seen.
    groups_.clear();
    byResource_.clear();
    byKind_.clear();
    for (const auto& k : kinds_) {
        addGroupVersion(*k);
        index(*k);
    }
    ++generation_;
    return removed;
}

namespace {

template <typename Index>
const KindInfo* findIn(const Index& index, std::string_view name, std::string_view group,
                       std::string_view version) {
    auto found = index.find(name);
    if (found == index.end()) {
        return nullptr;
    }
    for (const KindInfo* k : found->second) {
        if (k->group == group && k->version == version) {
            return k;
        }
    }
    return nullptr;
}

}  // namespace

const KindInfo* Scheme::find(std::string_view group, std::string_view version,
                             std::string_view resource) const {
    return findIn(byResource_, resource, group, version);
}

const KindInfo* Scheme::findKind(std::string_view group, std::string_view version,
                                 std::string_view kind) const {
    return findIn(byKind_, kind, group, version);
}

std::vector<const KindInfo*> Scheme::kinds(std::string_view group,
                                           std::string_view version) const {
    std::vector<const KindInfo*> out;
    for (const auto& k : kinds_) {
        if (k->group == group && k->version == version) {
            out.push_back(k.get());
        }
    }
    return out;
}

bool Scheme::hasGroupVersion(std::string_view group, std::string_view version) const {
    for (const GroupInfo& g : groups_) {
        if (g.name == group) {
            return std::find(g.versions.begin(), g.versions.end(), version) != g.versions.end();
        }
    }
    return false;
}

}  // namespace kube::registry
