#include "registry/object_meta.hpp"

#include "registry/deletion.hpp"
#include "util/time.hpp"
#include "util/uid.hpp"

namespace kube::registry {

namespace {

// names.SimpleNameGenerator: 5 random characters after a base cut to fit 63.
constexpr size_t kRandomLength = 5;
constexpr size_t kMaxGeneratedNameLength = 63 - kRandomLength;

void copyMember(json::Value& to, const json::Value& from, std::string_view name,
                json::Allocator& a) {
    if (const json::Value* v = json::member(from, name)) {
        json::setMember(to, name, json::Value(*v, a), a);
    } else {
        json::removeMember(to, name);
    }
}

}  // namespace

json::Value& ensureMetadata(json::Document& obj) {
    json::Value* m = json::member(obj, "metadata");
    if (!m || m->IsNull()) {
        json::setMember(obj, "metadata", json::Value(rapidjson::kObjectType), obj.GetAllocator());
        m = json::member(obj, "metadata");
    }
    return *m;
}

void prepareObjectMetaForCreate(const KindInfo& kind, json::Document& obj, std::string_view ns,
                                std::chrono::system_clock::time_point now) {
    auto& a = obj.GetAllocator();
    json::setMember(obj, "kind", json::stringValue(kind.kind, a), a);
    json::setMember(obj, "apiVersion", json::stringValue(kind.storageApiVersion(), a), a);
    json::Value& m = ensureMetadata(obj);
    if (kind.namespaced) {
        json::setMember(m, "namespace", json::stringValue(ns, a), a);
    } else {
        json::removeMember(m, "namespace");
    }
    std::string_view generateName = json::stringMember(m, "generateName");
    if (json::stringMember(m, "name").empty() && !generateName.empty()) {
        std::string base(generateName.substr(0, kMaxGeneratedNameLength));
        json::setMember(m, "name", json::stringValue(base + util::randomSuffix(kRandomLength), a),
                        a);
    }
    json::setMember(m, "uid", json::stringValue(util::newUid(), a), a);
    json::setMember(m, "creationTimestamp", json::stringValue(util::time::formatRFC3339(now), a),
                    a);
    for (std::string_view gone : {"selfLink", "resourceVersion", "deletionTimestamp",
                                  "deletionGracePeriodSeconds"}) {
        json::removeMember(m, gone);
    }
    if (kind.tracksGeneration) {
        json::setMember(m, "generation", json::Value(1), a);
    } else {
        json::removeMember(m, "generation");
    }
}

std::optional<meta::Status> prepareObjectMetaForUpdate(const KindInfo& kind, json::Document& obj,
                                                       const json::Value& old,
                                                       std::string_view name, bool patch) {
    auto& a = obj.GetAllocator();
    json::setMember(obj, "kind", json::stringValue(kind.kind, a), a);
    json::setMember(obj, "apiVersion", json::stringValue(kind.storageApiVersion(), a), a);
    json::Value& m = ensureMetadata(obj);
    const json::Value& oldMeta = old["metadata"];
    std::string_view uid = json::stringMember(m, "uid");
    std::string_view oldUid = json::stringMember(oldMeta, "uid");
    bool keepUid = patch && !uid.empty();
    if (!uid.empty() && uid != oldUid && !patch) {
        return meta::Status::conflict(
            kind.groupResource(), name,
            "Precondition failed: UID in precondition: " + std::string(uid) +
                ", UID in object meta: " + std::string(oldUid));
    }
    // deletionTimestamp and deletionGracePeriodSeconds: rest.BeforeUpdate
    // keeps the stored ones (keepDeletionFields), then validation refuses
    // other changes.
    for (std::string_view owned :
         {"name", "namespace", "uid", "creationTimestamp", "generation", "generateName"}) {
        if ((owned == "generateName" && json::member(m, owned)) || (owned == "uid" && keepUid)) {
            continue;
        }
        copyMember(m, oldMeta, owned, a);
    }
    for (std::string_view gone : {"selfLink", "resourceVersion"}) {
        json::removeMember(m, gone);
    }
    keepDeletionFields(m, oldMeta, a);
    return std::nullopt;
}

}  // namespace kube::registry
