#include <string>

#include "apis/core/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;
using registry::TableContext;

// The Healthy condition, null without one.
const json::Value* healthy(const json::Value& obj) {
    const json::Value* conditions = json::member(obj, "conditions");
    if (!conditions || !conditions->IsArray()) {
        return nullptr;
    }
    for (const json::Value& c : conditions->GetArray()) {
        if (cells::text(c, {"type"}) == "Healthy") {
            return &c;
        }
    }
    return nullptr;
}

std::string conditionText(const json::Value& obj, std::string_view member) {
    const json::Value* c = healthy(obj);
    return c ? std::string(cells::text(*c, {member})) : std::string();
}

}  // namespace

// Read-only: the objects are computed by the server on each get and list
// (endpoints/handlers/component_status), never stored. Mirrors
// pkg/registry/core/componentstatus and printComponentStatus.
registry::KindInfo componentStatusKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "ComponentStatus";
    k.resource = "componentstatuses";
    k.singular = "componentstatus";
    k.namespaced = false;
    k.shortNames = {"cs"};
    k.verbs = {"get", "list"};
    k.storage = registry::KindStorage::ComponentStatus;
    k.gcPolicy = registry::GarbageCollectionPolicy::Unsupported;
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Status", "string", "Status of the component conditions",
                          [](const json::Value& obj, const TableContext&) {
                              const json::Value* c = healthy(obj);
                              if (!c) {
                                  return std::string("Unknown");
                              }
                              return std::string(
                                  cells::text(*c, {"status"}) == "True" ? "Healthy" : "Unhealthy");
                          }),
        cells::textColumn("Message", "string", "Message of the component conditions",
                          [](const json::Value& obj, const TableContext&) {
                              return conditionText(obj, "message");
                          }),
        cells::textColumn("Error", "string", "Error of the component conditions",
                          [](const json::Value& obj, const TableContext&) {
                              return conditionText(obj, "error");
                          }),
    };
    return k;
}

}  // namespace kube::apis::core
