#include "registry/apply/updater.hpp"

namespace kube::registry::apply {

namespace json = util::json;

std::optional<std::string> Updater::takeFields(const json::Value& live,
                                               const json::Value& newObject, Managers& managers,
                                               const std::string& self, bool force,
                                               Comparison& compare,
                                               std::vector<Conflict>& conflicts) const {
    if (auto err = apply::compare(live, newObject, type_, compare)) {
        return "failed to compare objects: " + *err;
    }
    compare.exclude(ignored_);
    FieldSet changed = compare.modified.unionWith(compare.added);
    std::map<std::string, FieldSet> taken;
    for (const auto& [key, ms] : managers) {
        if (key == self) {
            continue;
        }
        FieldSet conflict = ms.set.intersection(changed);
        if (!conflict.empty()) {
            conflict.iterate([&](const Path& p) { conflicts.push_back({ms.id, p}); });
            taken.emplace(key, std::move(conflict));
        }
    }
    if (!force && !conflicts.empty()) {
        return std::nullopt;
    }
    for (auto it = managers.begin(); it != managers.end();) {
        if (it->first != self) {
            if (auto t = taken.find(it->first); t != taken.end()) {
                it->second.set = it->second.set.difference(t->second);
            }
            if (!compare.removed.empty()) {
                it->second.set = it->second.set.difference(compare.removed);
            }
        }
        it = it->second.set.empty() ? managers.erase(it) : std::next(it);
    }
    return std::nullopt;
}

UpdaterResult Updater::update(const json::Value& live, const json::Value& newObject,
                              const std::string& apiVersion, Managers& managers,
                              const ManagerId& manager) const {
    UpdaterResult out;
    std::string self = manager.identifier();
    Comparison c;
    // With force, takeFields changes `managers` only once it cannot fail.
    if ((out.error = takeFields(live, newObject, managers, self, true, c, out.conflicts))) {
        return out;
    }
    out.conflicts.clear();
    ManagedSet& mine = managers[self];
    mine.id = manager;
    mine.apiVersion = apiVersion;
    mine.applied = false;
    mine.set = mine.set.unionWith(c.modified)
                   .unionWith(c.added)
                   .difference(c.removed)
                   .recursiveDifference(ignored_);
    if (mine.set.empty()) {
        managers.erase(self);
    }
    return out;
}

UpdaterResult Updater::apply(const json::Value& live, const json::Value& config,
                             const std::string& apiVersion, Managers& managers,
                             const ManagerId& manager, bool force) const {
    UpdaterResult out;
    json::Document merged;
    if (auto err = merge(live, config, type_, merged, merged.GetAllocator())) {
        out.error = "failed to merge config: " + *err;
        return out;
    }
    std::string self = manager.identifier();
    // The applier's entry is replaced now and put back if the apply fails;
    // takeFields leaves the others alone unless it succeeds.
    std::optional<ManagedSet> previous;
    if (auto it = managers.find(self); it != managers.end()) {
        previous = std::move(it->second);
    }
    ManagedSet& mine = managers[self];
    mine.id = manager;
    mine.apiVersion = apiVersion;
    mine.applied = true;
    mine.time = previous ? previous->time : std::string();
    mine.set = toFieldSet(config, type_).recursiveDifference(ignored_);
    auto restore = [&] {
        if (previous) {
            managers[self] = std::move(*previous);
        } else {
            managers.erase(self);
        }
    };

    json::Document pruned;
    static const FieldSet kNone;
    static_cast<json::Value&>(pruned) =
        prune(merged, managers, previous ? previous->set : kNone, pruned.GetAllocator());

    Comparison c;
    if ((out.error = takeFields(live, pruned, managers, self, force, c, out.conflicts))) {
        restore();
        return out;
    }
    if (!out.conflicts.empty() && !force) {
        restore();
        return out;
    }
    out.conflicts.clear();
    if (!c.same()) {
        out.object = std::move(pruned);
    }
    return out;
}

// Updater.prune: removes what `manager` applied last time and no longer
// applies, unless some manager (this one included) owns it now.
json::Value Updater::prune(const json::Value& merged, const Managers& managers,
                           const FieldSet& lastSet, json::Allocator& a) const {
    // Nothing given up: the rest of the walk would remove nothing.
    if (lastSet.empty()) {
        return json::Value(merged, a);
    }
    FieldSet givenUp = lastSet;
    for (const auto& [key, ms] : managers) {
        givenUp = givenUp.difference(ms.set);
        if (givenUp.empty()) {
            return json::Value(merged, a);
        }
    }
    FieldSet owned;
    for (const auto& [key, ms] : managers) {
        owned = owned.unionWith(ms.set);
    }
    FieldSet last = ensureNamedFieldsAreMembers(lastSet, type_);
    FieldSet mergedSet = ensureNamedFieldsAreMembers(toFieldSet(merged, type_), type_);

    json::Document scratch;
    json::Value firstCut = removeItems(merged, last, type_, scratch.GetAllocator());
    // addBackOwnedItems: put back whatever any manager owns.
    FieldSet kept = ensureNamedFieldsAreMembers(toFieldSet(firstCut, type_), type_)
                        .unionWith(ensureNamedFieldsAreMembers(owned, type_));
    json::Value secondCut =
        removeItems(merged, mergedSet.difference(kept), type_, scratch.GetAllocator());
    // addBackDanglingItems: of what is gone, remove only what was applied.
    FieldSet survived = ensureNamedFieldsAreMembers(toFieldSet(secondCut, type_), type_);
    return removeItems(merged, mergedSet.difference(survived).intersection(last), type_, a);
}

}  // namespace kube::registry::apply
