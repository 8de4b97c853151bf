#include <vector>

#include "apis/core/defaulting.hpp"
#include "apis/core/kinds.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"
#include "registry/validation.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;

// SetDefaults_Namespace: every named namespace carries its name as a label.
void labelWithName(json::Value& obj, json::Allocator& a) {
    json::Value& metadata = defaulting::ensureObject(obj, "metadata", a);
    // A copy: short strings live inside the Value, which adding "labels" may move.
    std::string name(json::stringMember(metadata, "name"));
    if (name.empty()) {
        return;
    }
    json::Value& labels = defaulting::ensureObject(metadata, "labels", a);
    json::setMember(labels, "kubernetes.io/metadata.name", json::stringValue(name, a), a);
}

void defaultNamespace(json::Value& obj, json::Allocator& a) {
    labelWithName(obj, a);
    defaulting::setString(defaulting::ensureObject(obj, "status", a), "phase", "Active", a);
}

// Mirrors namespaceStrategy.PrepareForCreate: active, and finalized by the
// namespace controller ("kubernetes" is appended when missing).
void prepareNamespace(json::Value& obj, json::Allocator& a) {
    labelWithName(obj, a);
    json::Value status(rapidjson::kObjectType);
    status.AddMember("phase", "Active", a);
    json::setMember(obj, "status", std::move(status), a);
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    json::Value& finalizers =
        defaulting::setDefault(spec, "finalizers", json::Value(rapidjson::kArrayType), a);
    if (!finalizers.IsArray()) {
        return;
    }
    for (const auto& f : finalizers.GetArray()) {
        if (json::view(f) == "kubernetes") {
            return;
        }
    }
    finalizers.PushBack("kubernetes", a);
}

// Mirrors ValidateNamespaceStatusUpdate: the phase follows deletionTimestamp.
std::vector<meta::StatusCause> validateNamespaceStatus(const json::Value& obj, const json::Value&) {
    namespace field = registry::validation::field;
    std::string_view phase = cells::text(obj, {"status", "phase"});
    if (!json::at(obj, {"metadata", "deletionTimestamp"})) {
        if (phase != "Active") {
            return {field::invalid("status.Phase", phase,
                                   "may only be 'Active' if `deletionTimestamp` is empty")};
        }
    } else if (phase != "Terminating") {
        return {field::invalid("status.Phase", phase,
                               "may only be 'Terminating' if `deletionTimestamp` is not empty")};
    }
    return {};
}

// A namespace being deleted is Terminating until its contents are gone (the
// namespace controller's work, controller/namespace).
// Its status conditions (the controller's) stay.
void markTerminating(json::Value& obj, json::Allocator& a) {
    json::Value& status = defaulting::ensureObject(obj, "status", a);
    json::setMember(status, "phase", json::Value("Terminating", a), a);
}

}  // namespace

registry::KindInfo namespaceKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "Namespace";
    k.resource = "namespaces";
    k.singular = "namespace";
    k.namespaced = false;
    k.shortNames = {"ns"};
    k.verbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
    k.nameRule = registry::NameRule::DNS1123Label;
    k.subresources = {
        {"finalize", "", "", "", {"update"}, registry::SubresourceStorage::Finalize},
        registry::statusSubresource(),
    };
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Status", "string", "The status of the namespace",
                          [](const json::Value& obj, const registry::TableContext&) {
                              return std::string(cells::text(obj, {"status", "phase"}));
                          }),
        cells::ageColumn(),
    };
    k.defaults = defaultNamespace;
    k.prepareForCreate = prepareNamespace;
    k.validateStatusUpdate = validateNamespaceStatus;
    k.selectableFields = {{"metadata.name"}, {"status.phase"}};
    k.beginTerminating = markTerminating;
    k.gcPolicy = registry::GarbageCollectionPolicy::Unsupported;
    return k;
}

}  // namespace kube::apis::core
