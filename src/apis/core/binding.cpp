#include "apis/core/binding.hpp"

#include <string>

#include "apis/core/kinds.hpp"
#include "registry/table_cells.hpp"
#include "registry/validation.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;

constexpr meta::GroupResource kPodsBinding{"", "pods/binding"};

registry::KindInfo makeBindingKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "Binding";
    k.resource = "bindings";
    k.singular = "binding";
    k.verbs = {"create"};
    // Never stored: answered on create by binding the pod it names.
    k.storage = registry::KindStorage::Binding;
    k.columns = cells::defaultColumns();
    return k;
}

// Mirrors podutil.UpdatePodCondition for {PodScheduled, True}: the
// condition is replaced whole (reason and message go), keeping its
// transition time when it already was True.
void setScheduled(json::Value& pod, std::string_view now, json::Allocator& a) {
    json::Value& status = json::objectMember(pod, "status", a);
    json::Value* conditions = json::member(status, "conditions");
    if (!conditions || !conditions->IsArray()) {
        json::setMember(status, "conditions", json::Value(rapidjson::kArrayType), a);
        conditions = json::member(status, "conditions");
    }
    json::Value condition(rapidjson::kObjectType);
    condition.AddMember("type", "PodScheduled", a);
    condition.AddMember("status", "True", a);
    condition.AddMember("lastProbeTime", json::Value(), a);
    for (json::Value& c : conditions->GetArray()) {
        if (!c.IsObject() || cells::text(c, {"type"}) != "PodScheduled") {
            continue;
        }
        const json::Value* since = json::member(c, "lastTransitionTime");
        bool keep = cells::text(c, {"status"}) == "True" && since;
        condition.AddMember("lastTransitionTime",
                            keep ? json::Value(*since, a) : json::stringValue(now, a), a);
        c = std::move(condition);
        return;
    }
    condition.AddMember("lastTransitionTime", json::stringValue(now, a), a);
    conditions->PushBack(std::move(condition), a);
}

}  // namespace

const registry::KindInfo& bindingRequestKind() {
    static const registry::KindInfo kind = makeBindingKind();
    return kind;
}

registry::KindInfo bindingKind() {
    return makeBindingKind();
}

registry::SubresourceInfo bindingSubresource() {
    registry::SubresourceInfo s{"binding", "", "", "Binding", {"create"}};
    s.storage = registry::SubresourceStorage::Binding;
    s.responseKind = &bindingRequestKind();
    return s;
}

std::optional<meta::Status> validateBinding(const json::Value& binding) {
    std::vector<std::string> errors;
    std::string_view kind = cells::text(binding, {"target", "kind"});
    if (!kind.empty() && kind != "Node") {
        errors.push_back("target.kind: Unsupported value: " + registry::validation::goQuote(kind) +
                         ": supported values: \"Node\", \"<empty>\"");
    }
    if (cells::text(binding, {"target", "name"}).empty()) {
        errors.push_back("target.name: Required value");
    }
    if (errors.empty()) {
        return std::nullopt;
    }
    // utilerrors.NewAggregate's message: one error bare, several in brackets.
    std::string message = errors.size() == 1 ? errors[0] : "[" + errors[0] + ", " + errors[1] + "]";
    meta::Status s;
    s.code = 500;
    s.message = std::move(message);
    return s;
}

std::optional<meta::Status> bindPod(json::Value& pod, std::string_view name, std::string_view node,
                                    const json::Value* annotations, std::string_view now,
                                    json::Allocator& a) {
    if (json::at(pod, {"metadata", "deletionTimestamp"}) &&
        !json::at(pod, {"metadata", "deletionTimestamp"})->IsNull()) {
        return meta::Status::conflict(
            kPodsBinding, name,
            "pod " + std::string(name) + " is being deleted, cannot be assigned to a host");
    }
    std::string_view current = cells::text(pod, {"spec", "nodeName"});
    if (!current.empty()) {
        return meta::Status::conflict(kPodsBinding, name,
                                      "pod " + std::string(name) + " is already assigned to node " +
                                          registry::validation::goQuote(current));
    }
    json::Value& spec = json::objectMember(pod, "spec", a);
    json::setMember(spec, "nodeName", json::stringValue(node, a), a);
    if (annotations && annotations->IsObject() && !annotations->ObjectEmpty()) {
        json::Value& own =
            json::objectMember(json::objectMember(pod, "metadata", a), "annotations", a);
        for (const auto& m : annotations->GetObject()) {
            json::setMember(own, json::view(m.name), json::Value(m.value, a), a);
        }
    }
    setScheduled(pod, now, a);
    return std::nullopt;
}

}  // namespace kube::apis::core
