#include "apis/core/defaulting.hpp"
#include "apis/flowcontrol/kinds.hpp"
#include "apis/flowcontrol/validation.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::flowcontrol {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
namespace json = util::json;
using registry::TableContext;

// FlowSchemaDefaultMatchingPrecedence.
constexpr int kDefaultMatchingPrecedence = 1000;

// Mirrors SetDefaults_FlowSchemaSpec (v1 and v1beta3 alike).
void defaultFlowSchema(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    const json::Value* p = json::member(spec, "matchingPrecedence");
    if (!p || (p->IsInt64() && p->GetInt64() == 0)) {
        json::setMember(spec, "matchingPrecedence", json::Value(kDefaultMatchingPrecedence), a);
    }
}

// The MissingPL cell: the Dangling condition's status, "?" without one.
std::string missingLevel(const json::Value& obj) {
    const json::Value* conditions = json::at(obj, {"status", "conditions"});
    if (conditions && conditions->IsArray()) {
        for (const json::Value& c : conditions->GetArray()) {
            if (c.IsObject() && json::stringMember(c, "type") == "Dangling") {
                return std::string(json::stringMember(c, "status"));
            }
        }
    }
    return "?";
}

}  // namespace

registry::KindInfo flowSchemaKind(std::string_view version) {
    registry::KindInfo k;
    k.group = "flowcontrol.apiserver.k8s.io";
    k.version = std::string(version);
    k.storageVersion = "v1";
    k.kind = "FlowSchema";
    k.resource = "flowschemas";
    k.singular = "flowschema";
    k.namespaced = false;
    k.tracksGeneration = true;
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("PriorityLevel", "string",
                          "The PriorityLevelConfiguration matched requests go to.",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(
                                  cells::text(obj, {"spec", "priorityLevelConfiguration", "name"}));
                          }),
        cells::countColumn("MatchingPrecedence", "string",
                           "The lowest value wins among the schemas that match a request.",
                           [](const json::Value& obj) {
                               return cells::integer(obj, {"spec", "matchingPrecedence"});
                           }),
        cells::textColumn("DistinguisherMethod", "string",
                          "How matched requests are split into flows.",
                          [](const json::Value& obj, const TableContext&) {
                              std::string_view t =
                                  cells::text(obj, {"spec", "distinguisherMethod", "type"});
                              return t.empty() ? std::string("<none>") : std::string(t);
                          }),
        cells::ageColumn(),
        cells::textColumn("MissingPL", "string",
                          "Whether the PriorityLevelConfiguration it names is missing.",
                          [](const json::Value& obj, const TableContext&) {
                              return missingLevel(obj);
                          }),
    };
    k.defaults = defaultFlowSchema;
    k.validate = validateFlowSchema;
    return k;
}

}  // namespace kube::apis::flowcontrol
