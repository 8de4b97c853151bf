#include "admission/taint_nodes_by_condition.hpp"

namespace kube::admission {

namespace json = util::json;

namespace {

constexpr std::string_view kNotReady = "node.kubernetes.io/not-ready";
constexpr std::string_view kNoSchedule = "NoSchedule";

}  // namespace

bool TaintNodesByCondition::handles(const Attributes& a) const {
    return a.kind == &nodes_ && a.operation == Operation::Create && a.subresource.empty();
}

void TaintNodesByCondition::admit(Attributes& a, Callback done) {
    if (!a.object || !a.object->IsObject() || !a.allocator) {
        done(nullptr);
        return;
    }
    json::Allocator& alloc = *a.allocator;
    json::Value* spec = json::member(*a.object, "spec");
    if (!spec || !spec->IsObject()) {
        json::setMember(*a.object, "spec", json::Value(rapidjson::kObjectType), alloc);
        spec = json::member(*a.object, "spec");
    }
    json::Value* taints = json::member(*spec, "taints");
    if (!taints || !taints->IsArray()) {
        json::setMember(*spec, "taints", json::Value(rapidjson::kArrayType), alloc);
        taints = json::member(*spec, "taints");
    }
    // Taint.MatchTaint: the same key and effect.
    for (const json::Value& t : taints->GetArray()) {
        if (t.IsObject() && json::stringMember(t, "key") == kNotReady &&
            json::stringMember(t, "effect") == kNoSchedule) {
            done(nullptr);
            return;
        }
    }
    json::Value taint(rapidjson::kObjectType);
    taint.AddMember("key", json::stringValue(kNotReady, alloc), alloc);
    taint.AddMember("effect", json::stringValue(kNoSchedule, alloc), alloc);
    taints->PushBack(std::move(taint), alloc);
    done(nullptr);
}

}  // namespace kube::admission
