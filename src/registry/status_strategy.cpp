#include "registry/status_strategy.hpp"

#include <string>
#include <vector>

namespace kube::registry {

namespace json = util::json;

namespace {

// The members a status update may change; the rest of the object is the spec.
bool ownedByStatusUpdate(std::string_view member) {
    return member == "metadata" || member == "status" || member == "kind" || member == "apiVersion";
}

}  // namespace

SubresourceInfo statusSubresource() {
    return {"status", "", "", "", {"get", "patch", "update"}};
}

void prepareForStatusUpdate(const KindInfo& kind, json::Document& obj, const json::Value& old,
                            const StatusUpdateContext& ctx, const SubresourceInfo* sub) {
    auto& a = obj.GetAllocator();
    std::vector<std::string> dropped;
    for (const auto& m : obj.GetObject()) {
        std::string_view name = json::view(m.name);
        if (!ownedByStatusUpdate(name) && !json::member(old, name)) {
            dropped.emplace_back(name);
        }
    }
    for (const std::string& name : dropped) {
        json::removeMember(obj, name);
    }
    for (const auto& m : old.GetObject()) {
        std::string_view name = json::view(m.name);
        if (!ownedByStatusUpdate(name)) {
            json::setMember(obj, name, json::Value(m.value, a), a);
        }
    }
    if (sub && sub->prepareForUpdate) {
        sub->prepareForUpdate(obj, old, ctx, a);
    } else if (kind.prepareForStatusUpdate) {
        kind.prepareForStatusUpdate(obj, old, ctx, a);
    }
}

}  // namespace kube::registry
