#include <algorithm>
#include <cctype>
#include <string>

#include "apis/apiextensions/crd_conditions.hpp"
#include "apis/apiextensions/kinds.hpp"
#include "apis/apiextensions/validation.hpp"
#include "apis/core/defaulting.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::apiextensions {

namespace {

namespace json = util::json;

json::Value* objectMember(json::Value& obj, std::string_view name) {
    json::Value* v = obj.IsObject() ? json::member(obj, name) : nullptr;
    return v && v->IsObject() ? v : nullptr;
}

bool isEmptyString(const json::Value* v) {
    return !v || !v->IsString() || v->GetStringLength() == 0;
}

// The name of the first version marked storage, "" when none is.
std::string storageVersion(const json::Value& obj) {
    const json::Value* versions = json::at(obj, {"spec", "versions"});
    if (versions && versions->IsArray()) {
        for (const json::Value& v : versions->GetArray()) {
            const json::Value* storage = v.IsObject() ? json::member(v, "storage") : nullptr;
            if (storage && storage->IsBool() && storage->GetBool()) {
                return std::string(json::stringMember(v, "name"));
            }
        }
    }
    return "";
}

// Adds the storage version to status.storedVersions when it is not there
// (the strategies' "if !IsStoredVersion: append").
void recordStorageVersion(json::Value& obj, json::Allocator& a) {
    std::string version = storageVersion(obj);
    json::Value* status = objectMember(obj, "status");
    if (version.empty() || !status) {
        return;
    }
    json::Value* stored = json::member(*status, "storedVersions");
    if (!stored || !stored->IsArray()) {
        json::setMember(*status, "storedVersions", json::Value(rapidjson::kArrayType), a);
        stored = json::member(*status, "storedVersions");
    }
    for (const json::Value& v : stored->GetArray()) {
        if (v.IsString() && json::view(v) == version) {
            return;
        }
    }
    stored->PushBack(json::stringValue(version, a), a);
}

// Mirrors SetDefaults_CustomResourceDefinition (v1): singular and listKind
// from the kind, conversion None, webhook service port 443, and the storage
// version as the first stored version.
void defaultCustomResourceDefinition(json::Value& obj, json::Allocator& a) {
    json::Value* spec = objectMember(obj, "spec");
    if (!spec) {
        return;
    }
    if (json::Value* names = objectMember(*spec, "names")) {
        std::string kind(json::stringMember(*names, "kind"));
        if (isEmptyString(json::member(*names, "singular"))) {
            std::string singular = kind;
            std::transform(singular.begin(), singular.end(), singular.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            json::setMember(*names, "singular", json::stringValue(singular, a), a);
        }
        if (isEmptyString(json::member(*names, "listKind")) && !kind.empty()) {
            json::setMember(*names, "listKind", json::stringValue(kind + "List", a), a);
        }
    }
    json::Value* conversion = json::member(*spec, "conversion");
    if (!conversion || conversion->IsNull()) {
        json::Value none(rapidjson::kObjectType);
        none.AddMember("strategy", "None", a);
        json::setMember(*spec, "conversion", std::move(none), a);
    } else {
        json::Value* webhook = objectMember(*conversion, "webhook");
        json::Value* clientConfig = webhook ? objectMember(*webhook, "clientConfig") : nullptr;
        json::Value* service = clientConfig ? objectMember(*clientConfig, "service") : nullptr;
        const json::Value* port = service ? json::member(*service, "port") : nullptr;
        if (service && (!port || port->IsNull())) {
            json::setMember(*service, "port", json::Value(443), a);
        }
    }
    const json::Value* stored = json::at(obj, {"status", "storedVersions"});
    if ((!stored || !stored->IsArray() || stored->Empty()) && objectMember(obj, "status")) {
        recordStorageVersion(obj, a);
    }
}

// An empty status, as Go writes CustomResourceDefinitionStatus{}.
json::Value emptyStatus(json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    status.AddMember("conditions", json::Value(), a);
    json::Value names(rapidjson::kObjectType);
    names.AddMember("plural", "", a);
    names.AddMember("kind", "", a);
    status.AddMember("acceptedNames", names, a);
    status.AddMember("storedVersions", json::Value(), a);
    return status;
}

// Mirrors strategy.PrepareForCreate: the status is the server's; the storage
// version is the first stored version.
void prepareForCreate(json::Value& obj, json::Allocator& a) {
    if (!obj.IsObject()) {
        return;
    }
    json::setMember(obj, "status", emptyStatus(a), a);
    recordStorageVersion(obj, a);
}

// Mirrors strategy.PrepareForUpdate (the store keeps the stored status):
// a new storage version joins the stored versions.
void prepareForUpdate(json::Value& obj, const json::Value&, json::Allocator& a) {
    if (!objectMember(obj, "status")) {
        json::setMember(obj, "status", emptyStatus(a), a);
    }
    recordStorageVersion(obj, a);
}

// Mirrors statusStrategy.PrepareForUpdate: a status update changes neither
// the spec (the store keeps it) nor labels, annotations and owners.
void prepareForStatusUpdate(json::Value& obj, const json::Value& old,
                            const registry::StatusUpdateContext&, json::Allocator& a) {
    json::Value& metadata = obj["metadata"];
    for (std::string_view kept : {"labels", "annotations", "ownerReferences"}) {
        if (const json::Value* v = json::at(old, {"metadata", kept})) {
            json::setMember(metadata, kept, json::Value(*v, a), a);
        } else {
            json::removeMember(metadata, kept);
        }
    }
}

// Mirrors the first Delete of kube's CRD REST: the definition stays,
// marked, with the cleanup finalizer and the Terminating condition, until the
// finalizer controller has removed its custom resources. Later deletes find
// the finalizer and change nothing.
void beginTerminating(json::Value& obj, json::Allocator& a) {
    if (hasFinalizer(obj, kCustomResourceCleanupFinalizer)) {
        return;
    }
    addFinalizer(obj, kCustomResourceCleanupFinalizer, a);
    setCondition(obj,
                 {"Terminating", "True", "InstanceDeletionPending",
                  "CustomResourceDefinition marked for deletion; CustomResource deletion will "
                  "begin soon"},
                 std::chrono::system_clock::now(), a);
}

}  // namespace

registry::KindInfo customResourceDefinitionKind() {
    registry::KindInfo k;
    k.group = "apiextensions.k8s.io";
    k.version = "v1";
    k.kind = "CustomResourceDefinition";
    k.resource = "customresourcedefinitions";
    k.singular = "customresourcedefinition";
    k.namespaced = false;
    k.shortNames = {"crd", "crds"};
    k.categories = {"api-extensions"};
    k.subresources = {registry::statusSubresource()};
    k.tracksGeneration = true;
    // No printer is registered for CRDs: kube's default table.
    k.columns = registry::cells::defaultColumns();
    k.defaults = defaultCustomResourceDefinition;
    k.prepareForCreate = prepareForCreate;
    k.prepareForUpdate = prepareForUpdate;
    k.validate = validateCustomResourceDefinition;
    k.validateUpdate = validateCustomResourceDefinitionUpdate;
    k.prepareForStatusUpdate = prepareForStatusUpdate;
    k.beginTerminating = beginTerminating;
    k.validateStatusUpdate = [](const json::Value& obj, const json::Value&) {
        return validateCustomResourceDefinitionStatus(obj);
    };
    return k;
}

}  // namespace kube::apis::apiextensions
