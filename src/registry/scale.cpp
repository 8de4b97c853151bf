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

int64_t replicasAt(const json::Value& obj, std::initializer_list<std::string_view> path) {
    const json::Value* v = json::at(obj, path);
    return v && v->IsInt64() ? v->GetInt64() : 0;
}

}  // namespace

SubresourceInfo scaleSubresource() {
    SubresourceInfo s{"scale", "autoscaling", "v1", "Scale", {"get", "patch", "update"}};
    s.storage = SubresourceStorage::Scale;
    s.responseKind = &scaleKind();
    return s;
}

const KindInfo& scaleKind() {
    static const KindInfo kind = makeScaleKind();
    return kind;
}

json::Document scaleFromObject(const json::Value& parent) {
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
    if (int64_t wanted = replicasAt(parent, {"spec", "replicas"}); wanted != 0) {
        spec.AddMember("replicas", json::Value(wanted), a);
    }
    scale.AddMember("spec", spec, a);
    json::Value status(rapidjson::kObjectType);
    status.AddMember("replicas", json::Value(replicasAt(parent, {"status", "replicas"})), a);
    // A core/v1 ReplicationController selects with a plain label map, which
    // reads as a selector's matchLabels.
    const json::Value* sel = json::at(parent, {"spec", "selector"});
    std::string selector;
    if (json::stringMember(parent, "apiVersion") == "v1" && sel && sel->IsObject()) {
        json::Document wrapped(rapidjson::kObjectType);
        wrapped.AddMember("matchLabels", json::Value(*sel, wrapped.GetAllocator()),
                          wrapped.GetAllocator());
        selector = cells::labelSelectorString(&wrapped);
    } else {
        selector = cells::labelSelectorString(sel);
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
    json::Value* spec = json::member(parent, "spec");
    if (!spec || !spec->IsObject()) {
        json::setMember(parent, "spec", json::Value(rapidjson::kObjectType), a);
        spec = json::member(parent, "spec");
    }
    json::setMember(*spec, "replicas", json::Value(replicas), a);
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
