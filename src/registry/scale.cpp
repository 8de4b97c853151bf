#include "registry/scale.hpp"

#include <string>

#include "registry/table_cells.hpp"
#include "registry/validation.hpp"

namespace kube::registry {

namespace json = util::json;

namespace {

KindInfo makeScaleKind() {
    KindInfo k;
    k.group = "autoscaling";
    k.version = "v1";
    k.kind = "Scale";
    k.resource = "scale";
    k.verbs = {};
    // Mirrors the scale columns of kube's printers: a Name without the "name"
    // format, the wanted and the observed count, the parent's age.
    TableColumn name = cells::nameColumn();
    name.format.clear();
    k.columns = {
        std::move(name),
        cells::countColumn("Desired", "integer",
                           "replicas is the desired number of instances for the scaled object.",
                           [](const json::Value& obj) {
                               return cells::integer(obj, {"spec", "replicas"});
                           }),
        cells::countColumn("Available", "integer",
                           "replicas is the actual number of observed instances of the scaled "
                           "object.",
                           [](const json::Value& obj) {
                               return cells::integer(obj, {"status", "replicas"});
                           }),
        cells::ageColumn(),
    };
    return k;
}

const json::Value* valueAt(const json::Value& obj, const std::vector<std::string>& path) {
    const json::Value* v = &obj;
    for (const std::string& field : path) {
        v = v->IsObject() ? json::member(*v, field) : nullptr;
        if (!v) {
            return nullptr;
        }
    }
    return v;
}

int64_t replicasAt(const json::Value& obj, const std::vector<std::string>& path) {
    const json::Value* v = valueAt(obj, path);
    return v && v->IsInt64() ? v->GetInt64() : 0;
}

// Sets the member at `path`, making the objects on the way (unstructured's
// SetNestedField); false when a value on the way is no object.
bool setAt(json::Value& obj, const std::vector<std::string>& path, json::Value value,
           json::Allocator& a) {
    json::Value* v = &obj;
    for (size_t i = 0; i + 1 < path.size(); i++) {
        json::Value* next = json::member(*v, path[i]);
        if (!next || next->IsNull()) {
            json::setMember(*v, path[i], json::Value(rapidjson::kObjectType), a);
            next = json::member(*v, path[i]);
        }
        if (!next->IsObject()) {
            return false;
        }
        v = next;
    }
    json::setMember(*v, path.back(), std::move(value), a);
    return true;
}

const ScalePaths& scalePathsOf(const KindInfo& kind) {
    static const ScalePaths kReplicated;
    const SubresourceInfo* s = kind.subresource("scale");
    return s ? s->scale : kReplicated;
}

}  // namespace

SubresourceInfo scaleSubresource(ScalePaths paths) {
    SubresourceInfo s{"scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"}};
    s.storage = SubresourceStorage::Scale;
    s.responseKind = &scaleKind();
    s.scale = std::move(paths);
    return s;
}

const KindInfo& scaleKind() {
    static const KindInfo kind = makeScaleKind();
    return kind;
}

json::Document scaleFromObject(const KindInfo& kind, const json::Value& parent) {
    const ScalePaths& paths = scalePathsOf(kind);
    json::Document scale(rapidjson::kObjectType);
    auto& a = scale.GetAllocator();
    scale.AddMember("kind", "Scale", a);
    scale.AddMember("apiVersion", "autoscaling/v1", a);
    json::Value metadata(rapidjson::kObjectType);
    if (const json::Value* from = json::member(parent, "metadata"); from && from->IsObject()) {
        for (std::string_view field :
             {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
            if (const json::Value* v = json::member(*from, field)) {
                metadata.AddMember(json::stringValue(field, a), json::Value(*v, a), a);
            }
        }
    }
    scale.AddMember("metadata", metadata, a);
    json::Value spec(rapidjson::kObjectType);
    if (int64_t wanted = replicasAt(parent, paths.specReplicas); wanted != 0) {
        spec.AddMember("replicas", json::Value(wanted), a);
    }
    scale.AddMember("spec", spec, a);
    json::Value status(rapidjson::kObjectType);
    status.AddMember("replicas", json::Value(replicasAt(parent, paths.statusReplicas)), a);
    std::string selector;
    const json::Value* at =
        paths.labelSelector.empty() ? nullptr : valueAt(parent, paths.labelSelector);
    switch (paths.selectorForm) {
        case ScalePaths::SelectorForm::LabelSelector:
            selector = cells::labelSelectorString(at);
            break;
        case ScalePaths::SelectorForm::LabelMap:
            // Reads as a selector's matchLabels.
            if (at && at->IsObject()) {
                json::Document wrapped(rapidjson::kObjectType);
                wrapped.AddMember("matchLabels", json::Value(*at, wrapped.GetAllocator()),
                                  wrapped.GetAllocator());
                selector = cells::labelSelectorString(&wrapped);
            }
            break;
        case ScalePaths::SelectorForm::Text:
            if (at && at->IsString()) {
                selector = json::view(*at);
            }
            break;
    }
    if (!selector.empty()) {
        status.AddMember("selector", json::stringValue(selector, a), a);
    }
    scale.AddMember("status", status, a);
    return scale;
}

std::optional<meta::Status> applyScale(const KindInfo& kind, const json::Value& scale,
                                       json::Document& parent) {
    auto& a = parent.GetAllocator();
    json::Value* parentMeta = json::member(parent, "metadata");
    std::string name(parentMeta ? json::stringMember(*parentMeta, "name") : "");
    static const json::Value kEmpty(rapidjson::kObjectType);
    const json::Value* scaleMeta = json::member(scale, "metadata");
    if (!scaleMeta || !scaleMeta->IsObject()) {
        scaleMeta = &kEmpty;
    }
    std::vector<meta::StatusCause> causes =
        validation::validateObjectMeta(*scaleMeta, true, NameRule::DNS1123Subdomain);
    int64_t replicas = replicasAt(scale, {"spec", "replicas"});
    const ScalePaths& paths = scalePathsOf(kind);
    if (replicas < 0) {
        causes.push_back(validation::field::invalid("spec.replicas", replicas,
                                                    "must be greater than or equal to 0"));
    }
    if (!causes.empty()) {
        return meta::Status::invalid({"autoscaling", "Scale"}, name, std::move(causes));
    }
    std::string_view uid = json::stringMember(*scaleMeta, "uid");
    std::string_view parentUid = parentMeta ? json::stringMember(*parentMeta, "uid") : "";
    if (!uid.empty() && uid != parentUid) {
        return meta::Status::conflict(
            {kind.group, kind.resource + "/scale"}, name,
            "Precondition failed: UID in precondition: " + std::string(uid) +
                ", UID in object meta: " + std::string(parentUid));
    }
    std::string rv(json::stringMember(*scaleMeta, "resourceVersion"));
    if (paths.specReplicas.empty() ||
        !setAt(parent, paths.specReplicas, json::Value(replicas), a)) {
        return meta::Status::badRequest("the spec replicas field \"" + paths.specReplicasPath +
                                        "\" cannot be set");
    }
    parentMeta = json::member(parent, "metadata");
    if (!parentMeta || !parentMeta->IsObject()) {
        json::setMember(parent, "metadata", json::Value(rapidjson::kObjectType), a);
        parentMeta = json::member(parent, "metadata");
    }
    if (rv.empty()) {
        json::removeMember(*parentMeta, "resourceVersion");
    } else {
        json::setMember(*parentMeta, "resourceVersion", json::stringValue(rv, a), a);
    }
    return std::nullopt;
}

}  // namespace kube::registry
