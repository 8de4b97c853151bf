#include <string>

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

constexpr int kDefaultNominalConcurrencyShares = 30;
// A v1 level with 0 shares read at v1beta3 carries this annotation, so that
// v1beta3's defaulting (0 means 30) leaves the 0 alone.
constexpr const char* kPreserveZeroAnnotation =
    "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares";

bool absentOrZero(const json::Value& obj, std::string_view name) {
    const json::Value* v = json::member(obj, name);
    return !v || v->IsNull() || (v->IsInt64() && v->GetInt64() == 0);
}

void setIfAbsent(json::Value& obj, std::string_view name, int value, json::Allocator& a) {
    const json::Value* v = json::member(obj, name);
    if (!v || v->IsNull()) {
        json::setMember(obj, name, json::Value(value), a);
    }
}

void setIfAbsentOrZero(json::Value& obj, std::string_view name, int value, json::Allocator& a) {
    if (absentOrZero(obj, name)) {
        json::setMember(obj, name, json::Value(value), a);
    }
}

// Mirrors the SetDefaults_ functions of flowcontrol v1 and v1beta3: v1 fills
// an unset nominalConcurrencyShares (0 stays 0), v1beta3 also a 0 unless the
// object carries the preserve-zero annotation.
void defaultLevel(json::Value& obj, json::Allocator& a, bool v1beta3) {
    json::Value* spec = json::member(obj, "spec");
    if (!spec || !spec->IsObject()) {
        return;
    }
    if (json::Value* limited = json::member(*spec, "limited"); limited && limited->IsObject()) {
        bool preserveZero =
            json::at(obj, {"metadata", "annotations", kPreserveZeroAnnotation}) != nullptr;
        if (v1beta3 && !preserveZero) {
            setIfAbsentOrZero(*limited, "nominalConcurrencyShares",
                              kDefaultNominalConcurrencyShares, a);
        } else {
            setIfAbsent(*limited, "nominalConcurrencyShares", kDefaultNominalConcurrencyShares, a);
        }
        setIfAbsent(*limited, "lendablePercent", 0, a);
        json::Value* response = json::member(*limited, "limitResponse");
        json::Value* queuing = response && response->IsObject()
                                   ? json::member(*response, "queuing")
                                   : nullptr;
        if (queuing && queuing->IsObject()) {
            setIfAbsentOrZero(*queuing, "queues", 64, a);
            setIfAbsentOrZero(*queuing, "handSize", 8, a);
            setIfAbsentOrZero(*queuing, "queueLengthLimit", 50, a);
        }
    }
    if (json::Value* exempt = json::member(*spec, "exempt"); exempt && exempt->IsObject()) {
        setIfAbsent(*exempt, "nominalConcurrencyShares", 0, a);
        setIfAbsent(*exempt, "lendablePercent", 0, a);
    }
}

// A cell of a Limited level's queuing, "<none>" without one.
registry::TableColumn queuingColumn(std::string name, std::string description,
                                    std::string_view field) {
    registry::TableColumn c;
    c.name = std::move(name);
    c.type = "string";
    c.description = std::move(description);
    std::string f(field);
    c.cell = [f](const json::Value& obj, const registry::TableContext&, json::Allocator& a) {
        const json::Value* v = json::at(obj, {"spec", "limited", "limitResponse", "queuing", f});
        if (v && v->IsInt64()) {
            return json::Value(v->GetInt64());
        }
        return json::Value("<none>", a);
    };
    return c;
}

}  // namespace

registry::KindInfo priorityLevelConfigurationKind(std::string_view version) {
    registry::KindInfo k;
    k.group = "flowcontrol.apiserver.k8s.io";
    k.version = std::string(version);
    k.storageVersion = "v1";
    k.kind = "PriorityLevelConfiguration";
    k.resource = "prioritylevelconfigurations";
    k.singular = "prioritylevelconfiguration";
    k.namespaced = false;
    k.tracksGeneration = true;
    k.subresources = {registry::statusSubresource()};
    registry::TableColumn shares = queuingColumn(
        "NominalConcurrencyShares", "The level's share of the server's concurrency limit.", "");
    shares.cell = [](const json::Value& obj, const registry::TableContext&, json::Allocator& a) {
        const json::Value* v = json::at(obj, {"spec", "limited", "nominalConcurrencyShares"});
        if (v && v->IsInt64()) {
            return json::Value(v->GetInt64());
        }
        return json::Value("<none>", a);
    };
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Type", "string", "Exempt or Limited.",
                          [](const json::Value& obj, const registry::TableContext&) {
                              return std::string(cells::text(obj, {"spec", "type"}));
                          }),
        shares,
        queuingColumn("Queues", "How many queues the level has.", "queues"),
        queuingColumn("HandSize", "How many queues a flow is dealt.", "handSize"),
        queuingColumn("QueueLengthLimit", "How many requests may wait in one queue.",
                      "queueLengthLimit"),
        cells::ageColumn(),
    };
    bool v1beta3 = version == "v1beta3";
    k.defaults = [v1beta3](json::Value& obj, json::Allocator& a) { defaultLevel(obj, a, v1beta3); };
    std::string v(version);
    k.validate = [v](const json::Value& obj) { return validatePriorityLevelConfiguration(obj, v); };
    return k;
}

}  // namespace kube::apis::flowcontrol
