#include "registry/apply/field_manager.hpp"

#include <algorithm>

#include "registry/apply/fields_v1.hpp"
#include "registry/apply/managed_fields.hpp"
#include "registry/patch/go_format.hpp"
#include "util/json_depth.hpp"

namespace kube::registry::apply {

namespace json = util::json;

namespace {

constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";
constexpr std::string_view kCurrentOperation = "current-operation";
constexpr std::string_view kBeforeFirstApply = "before-first-apply";
constexpr std::string_view kAncientChanges = "ancient-changes";

Path fieldPath(std::initializer_list<const char*> names) {
    Path p;
    for (const char* n : names) {
        p.push_back(PathElement::field(n));
    }
    return p;
}

// A copy of `v` without metadata.managedFields.
void copyWithoutManagedFields(const json::Value& v, json::Document& out) {
    out.CopyFrom(v, out.GetAllocator());
    if (json::Value* meta = json::member(out, "metadata"); meta && meta->IsObject()) {
        json::removeMember(*meta, "managedFields");
    }
}

void setManagedFields(json::Value& obj, const Managers& managers, json::Allocator& a) {
    if (!obj.IsObject()) {
        return;
    }
    json::Value* meta = json::member(obj, "metadata");
    if (!meta || !meta->IsObject()) {
        if (managers.empty()) {
            return;
        }
        json::setMember(obj, "metadata", json::Value(rapidjson::kObjectType), a);
        meta = json::member(obj, "metadata");
    }
    if (managers.empty()) {
        json::removeMember(*meta, "managedFields");
        return;
    }
    json::setMember(*meta, "managedFields", encodeManagedFields(managers, a), a);
}

// isResetManagedFields: [] or [{}].
bool isReset(const json::Value* mf) {
    if (!mf || !mf->IsArray()) {
        return false;
    }
    return mf->Empty() || (mf->Size() == 1 && (*mf)[0].IsObject() && (*mf)[0].ObjectEmpty());
}

const json::Value* managedFieldsOf(const json::Value& obj) {
    const json::Value* meta = json::member(obj, "metadata");
    return meta ? json::member(*meta, "managedFields") : nullptr;
}

Managers decodeOrEmpty(const json::Value& obj) {
    Managers m;
    if (decodeManagedFields(managedFieldsOf(obj), m)) {
        m.clear();
    }
    return m;
}

// A plain Go error as kube's handlers answer it (ErrorToAPIStatus): 500, no
// reason, the error's text.
meta::Status serverError(std::string message) {
    meta::Status s;
    s.code = 500;
    s.message = std::move(message);
    return s;
}

// Go's GroupVersionKind.String() of an apply body's apiVersion and kind.
std::string gvkString(std::string_view apiVersion, std::string_view kind) {
    std::string_view group;
    std::string_view version = apiVersion;
    if (auto slash = apiVersion.find('/'); slash != std::string_view::npos) {
        group = apiVersion.substr(0, slash);
        version = apiVersion.substr(slash + 1);
    }
    return std::string(group) + "/" + std::string(version) + ", Kind=" + std::string(kind);
}

}  // namespace

FieldManager::FieldManager(FieldManagerOptions options)
    : options_(std::move(options)), updater_(options_.type, options_.resetFields) {
    for (auto p :
         {fieldPath({"apiVersion"}), fieldPath({"kind"}), fieldPath({"metadata"}),
          fieldPath({"metadata", "name"}), fieldPath({"metadata", "namespace"}),
          fieldPath({"metadata", "creationTimestamp"}), fieldPath({"metadata", "selfLink"}),
          fieldPath({"metadata", "uid"}), fieldPath({"metadata", "clusterName"}),
          fieldPath({"metadata", "generation"}), fieldPath({"metadata", "managedFields"}),
          fieldPath({"metadata", "resourceVersion"})}) {
        stripSet_.insert(p);
    }
}

ManagerId FieldManager::updaterId(std::string_view manager) const {
    return ManagerId{manager.empty() ? "unknown" : std::string(manager),
                     std::string(kOperationUpdate), options_.apiVersion, options_.subresource};
}

void FieldManager::stripMeta(Managers& managers, const std::string& key) const {
    auto it = managers.find(key);
    if (it == managers.end()) {
        return;
    }
    it->second.set = it->second.set.difference(stripSet_);
    if (it->second.set.empty()) {
        managers.erase(it);
    }
}

// capManagersManager: beyond maxUpdateManagers update entries, the oldest
// are merged into one "ancient-changes" entry per version.
void FieldManager::capUpdateManagers(Managers& managers) const {
    std::vector<std::string> updaters;
    for (const auto& [key, ms] : managers) {
        if (!ms.applied) {
            updaters.push_back(key);
        }
    }
    if (updaters.size() <= options_.maxUpdateManagers) {
        return;
    }
    std::stable_sort(updaters.begin(), updaters.end(),
                     [&managers](const std::string& x, const std::string& y) {
                         const std::string& tx = managers.at(x).time;
                         const std::string& ty = managers.at(y).time;
                         return tx != ty ? tx < ty : x < y;
                     });
    std::map<std::string, std::string> firstOfVersion;
    size_t length = updaters.size();
    for (size_t i = 0; i < updaters.size() && length > options_.maxUpdateManagers; ++i) {
        ManagedSet ms = managers.at(updaters[i]);
        ManagerId bucketId{std::string(kAncientChanges), std::string(kOperationUpdate),
                           ms.apiVersion, ""};
        std::string bucket = bucketId.identifier();
        auto first = firstOfVersion.find(ms.apiVersion);
        if (first == firstOfVersion.end()) {
            firstOfVersion.emplace(ms.apiVersion, updaters[i]);
            continue;
        }
        if (managers.find(bucket) == managers.end()) {
            ManagedSet moved = managers.at(first->second);
            managers.erase(first->second);
            moved.id = bucketId;
            managers[bucket] = std::move(moved);
        }
        ManagedSet& b = managers[bucket];
        b.set = ms.set.unionWith(b.set);
        b.time = ms.time;
        managers.erase(updaters[i]);
        --length;
    }
}

std::optional<std::string> FieldManager::trackUpdate(const json::Value& live,
                                                     const json::Value& newObject,
                                                     Managers& managers, const ManagerId& id,
                                                     std::string_view now) const {
    // managedFieldsUpdater: the operation's own fields first, under a name
    // no manager has, then merged into the manager's entry with a new time
    // when it changed anything.
    ManagerId self{std::string(kCurrentOperation), std::string(kOperationUpdate),
                   options_.apiVersion, ""};
    std::string selfKey = self.identifier();
    UpdaterResult r = updater_.update(live, newObject, options_.apiVersion, managers, self);
    if (r.error) {
        return r.error;
    }
    stripMeta(managers, selfKey);
    if (auto it = managers.find(selfKey); it != managers.end()) {
        ManagedSet mine = std::move(it->second);
        managers.erase(it);
        std::string key = id.identifier();
        if (auto prev = managers.find(key); prev != managers.end()) {
            mine.set = mine.set.unionWith(prev->second.set);
        }
        mine.id = id;
        mine.time = std::string(now);
        managers[key] = std::move(mine);
    }
    capUpdateManagers(managers);
    return std::nullopt;
}

void FieldManager::update(const json::Value& live, json::Value& newObject, std::string_view manager,
                          std::string_view now, json::Allocator& a) const {
    Managers managers;
    const json::Value* sent = managedFieldsOf(newObject);
    if (!options_.subresource.empty()) {
        managers = decodeOrEmpty(live);
    } else if (!isReset(sent)) {
        if (decodeManagedFields(sent, managers) || managers.empty()) {
            managers = decodeOrEmpty(live);
        }
    }
    json::Document liveCopy;
    copyWithoutManagedFields(live, liveCopy);
    if (json::Value* meta = json::member(newObject, "metadata"); meta && meta->IsObject()) {
        json::removeMember(*meta, "managedFields");
    }
    // skipNonAppliedManager: an existing object nobody tracks stays
    // untracked until its first apply; a create is tracked.
    const json::Value* uid = json::at(liveCopy, {"metadata", "uid"});
    bool creating = !uid || json::view(*uid).empty();
    if (managers.empty() && !creating) {
        return;
    }
    Managers before = managers;
    // An object nested past what managedFields may hold (kMaxFieldsDepth,
    // the fieldsV1 reader's bound) keeps the managers it had, as an error of
    // the chain does: its field sets would be as deep, and building them on
    // the loop would hold it.
    if (json::firstTooDeep(newObject, kMaxFieldsDepth) ||
        trackUpdate(liveCopy, newObject, managers, updaterId(manager), now)) {
        managers = std::move(before);
    }
    setManagedFields(newObject, managers, a);
}

std::optional<FieldSet> FieldManager::allowedFromLastApplied(const json::Value& live) const {
    const json::Value* annotations = json::at(live, {"metadata", "annotations"});
    std::string_view lastApplied =
        annotations ? json::stringMember(*annotations, kLastApplied) : std::string_view();
    if (lastApplied.empty()) {
        return std::nullopt;
    }
    json::Document last;
    if (json::parse(lastApplied, last) || !last.IsObject() ||
        json::stringMember(last, "apiVersion") != options_.apiVersion) {
        return std::nullopt;
    }
    Comparison c;
    if (compare(last, live, options_.type, c)) {
        return std::nullopt;
    }
    // Fields the annotation shows with another value than the object has
    // were not last set by client-side apply.
    return toFieldSet(last, options_.type)
        .difference(c.modified)
        .difference(c.added)
        .difference(c.removed);
}

ApplyResult FieldManager::apply(const json::Value& live, const json::Value& config,
                                std::string_view manager, bool force, std::string_view now) const {
    ApplyResult out;
    Managers managers;
    if (auto err = decodeManagedFields(managedFieldsOf(live), managers)) {
        out.status = serverError("failed to decode managed fields: " + *err);
        return out;
    }
    std::string_view apiVersion = json::stringMember(config, "apiVersion");
    std::string_view kind = json::stringMember(config, "kind");
    if (apiVersion != options_.apiVersion) {
        out.status = meta::Status::badRequest(
            "Incorrect version specified in apply patch. Specified patch version: " +
            std::string(apiVersion) + ", expected: " + options_.apiVersion);
        return out;
    }
    if (kind != options_.kind) {
        out.status =
            meta::Status::badRequest("invalid object type: " + gvkString(apiVersion, kind));
        return out;
    }
    if (const json::Value* mf = managedFieldsOf(config); mf && !mf->IsNull()) {
        out.status = meta::Status::badRequest("metadata.managedFields must be nil");
        return out;
    }

    if (auto err = validate(config, options_.type)) {
        const json::Value* meta = json::member(config, "metadata");
        std::string nn = meta ? std::string(json::stringMember(*meta, "namespace")) + "/" +
                                    std::string(json::stringMember(*meta, "name"))
                              : "/";
        out.status = serverError("failed to create typed patch object (" + nn + "; " +
                                 gvkString(apiVersion, kind) + "): " + *err);
        return out;
    }

    json::Document liveCopy;
    copyWithoutManagedFields(live, liveCopy);
    // skipNonAppliedManager: the fields of an untracked object go to
    // "before-first-apply" before the first apply.
    if (managers.empty()) {
        json::Value empty(rapidjson::kObjectType);
        if (auto err = trackUpdate(empty, liveCopy, managers, updaterId(kBeforeFirstApply), now)) {
            out.status = serverError("failed to create manager for existing fields: " + *err);
            return out;
        }
    }

    ManagerId id{manager.empty() ? "unknown" : std::string(manager), std::string(kOperationApply),
                 options_.apiVersion, options_.subresource};
    // Updater::apply changes `managers` only when it succeeds.
    Managers& work = managers;
    UpdaterResult r = updater_.apply(liveCopy, config, options_.apiVersion, work, id, force);
    if (!r.error && !r.conflicts.empty() && manager == "kubectl") {
        // lastAppliedManager: conflicts only on what client-side apply's
        // annotation shows kubectl set are taken, as with force.
        if (auto allowed = allowedFromLastApplied(liveCopy)) {
            std::vector<Conflict> rest;
            for (const Conflict& c : r.conflicts) {
                if (!allowed->has(c.path)) {
                    rest.push_back(c);
                }
            }
            if (rest.empty()) {
                r = updater_.apply(liveCopy, config, options_.apiVersion, work, id, true);
            } else {
                r.conflicts = std::move(rest);
            }
        }
    }
    if (r.error) {
        out.status = serverError(*r.error);
        return out;
    }
    if (!r.conflicts.empty()) {
        out.status = conflictStatus(r.conflicts);
        return out;
    }
    stripMeta(work, id.identifier());
    if (r.object) {
        out.objectChanged = true;
        out.object.Swap(*r.object);
        if (auto it = work.find(id.identifier()); it != work.end()) {
            it->second.time = std::string(now);
        }
    } else {
        out.object.CopyFrom(liveCopy, out.object.GetAllocator());
    }
    // lastAppliedUpdater: kubectl's server-side apply keeps client-side
    // apply's annotation, when there is one, equal to what it applied.
    const json::Value* annotations = json::at(out.object, {"metadata", "annotations"});
    if (manager == "kubectl" && annotations &&
        !json::stringMember(*annotations, kLastApplied).empty()) {
        json::Document applied;
        applied.CopyFrom(config, applied.GetAllocator());
        if (json::Value* ann = json::member(applied, "metadata")) {
            if (json::Value* a = json::member(*ann, "annotations")) {
                json::removeMember(*a, kLastApplied);
            }
        }
        std::string text = patch::goMarshal(applied);
        json::Value* outAnnotations =
            json::member(*json::member(out.object, "metadata"), "annotations");
        json::setMember(*outAnnotations, kLastApplied,
                        json::stringValue(text, out.object.GetAllocator()),
                        out.object.GetAllocator());
    }
    setManagedFields(out.object, work, out.object.GetAllocator());
    return out;
}

}  // namespace kube::registry::apply
