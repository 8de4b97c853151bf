#include <exception>
#include <string>

#include "endpoints/handlers/scope.hpp"
#include "endpoints/warning.hpp"
#include "registry/encoding.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

// The one component this server checks: its storage backend, named as kube
// names its etcd server.
constexpr std::string_view kStorageComponent = "etcd-0";

// The deprecation warning kube's filter adds to every request of the
// deprecated componentstatuses API.
constexpr std::string_view kDeprecated = "v1 ComponentStatus is deprecated in v1.19+";

// Mirrors REST.getComponentStatus on the storage's health: Healthy True, or
// False with the reason the backend cannot serve as its error.
std::string storageStatus(storage::Interface& storage) {
    std::string why;
    try {
        storage.currentRevision();
        why = storage.health();
    } catch (const std::exception& e) {
        why = e.what();
    }
    json::Document obj(rapidjson::kObjectType);
    auto& a = obj.GetAllocator();
    obj.AddMember("kind", "ComponentStatus", a);
    obj.AddMember("apiVersion", "v1", a);
    json::Value meta(rapidjson::kObjectType);
    meta.AddMember("name", json::stringValue(kStorageComponent, a), a);
    meta.AddMember("creationTimestamp", json::Value(), a);
    obj.AddMember("metadata", std::move(meta), a);
    json::Value condition(rapidjson::kObjectType);
    condition.AddMember("type", "Healthy", a);
    condition.AddMember("status", rapidjson::StringRef(why.empty() ? "True" : "False"), a);
    if (!why.empty()) {
        condition.AddMember("error", json::stringValue(why, a), a);
    }
    json::Value conditions(rapidjson::kArrayType);
    conditions.PushBack(std::move(condition), a);
    obj.AddMember("conditions", std::move(conditions), a);
    return json::serialize(obj);
}

void respondDeprecated(const Scope& s, HttpResponse r) {
    for (const std::string& h : warningHeaders({std::string(kDeprecated)})) {
        r.headers.emplace_back("Warning", h);
    }
    s->respond(std::move(r));
}

}  // namespace

// Mirrors componentstatus.REST.Get: an unknown component is kube's plain
// error, a 500.
void getComponentStatus(Scope s) {
    if (s->info.name != kStorageComponent) {
        meta::Status unknown;  // a 500 Failure without a reason
        unknown.message = "Component not found: " + s->info.name;
        respondDeprecated(s, statusResponse(unknown, s->render));
        return;
    }
    respondDeprecated(s, objectResponse(200, storageStatus(s->store.storage()), s->render));
}

// Mirrors componentstatus.REST.List: every component checked now, in a list
// without a resourceVersion.
void listComponentStatuses(Scope s) {
    std::string status = storageStatus(s->store.storage());
    storage::ObjectView item{registry::objectKey(s->store.kind(), "", kStorageComponent), status};
    registry::ListPage page;
    page.items = std::span<const storage::ObjectView>(&item, 1);
    respondDeprecated(s, listResponse(page, s->render));
}

}  // namespace kube::endpoints
