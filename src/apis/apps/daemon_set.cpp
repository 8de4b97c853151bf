#include "apis/apps/kinds.hpp"
#include "apis/apps/workload.hpp"
#include "apis/core/defaulting.hpp"
#include "apis/core/pod_spec.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::apps {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
using registry::TableContext;

// Mirrors SetDefaults_DaemonSet: rolling updates one node at a time, no
// surge, ten old revisions kept.
void defaultDaemonSet(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    json::Value& strategy = defaulting::ensureObject(spec, "updateStrategy", a);
    defaulting::setString(strategy, "type", "RollingUpdate", a);
    if (json::stringMember(strategy, "type") == "RollingUpdate") {
        json::Value& rolling = defaulting::ensureObject(strategy, "rollingUpdate", a);
        defaulting::setInt(rolling, "maxUnavailable", 1, a);
        defaulting::setInt(rolling, "maxSurge", 0, a);
    }
    defaulting::setInt(spec, "revisionHistoryLimit", 10, a);
    core::defaultPodTemplate(spec, a);
}

// Mirrors daemonSetStrategy.PrepareForCreate: status reset (these four
// counters are always serialized).
void prepareDaemonSet(json::Value& obj, json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    status.AddMember("currentNumberScheduled", 0, a);
    status.AddMember("numberMisscheduled", 0, a);
    status.AddMember("desiredNumberScheduled", 0, a);
    status.AddMember("numberReady", 0, a);
    json::setMember(obj, "status", std::move(status), a);
}

field::Causes validateDaemonSet(const json::Value& obj) {
    field::Causes out;
    validateWorkloadSpec(obj, {"daemonset", "DaemonSet", false}, out);
    field::validateEnum(json::at(obj, {"spec", "updateStrategy", "type"}),
                        "spec.updateStrategy.type", {"RollingUpdate", "OnDelete"}, out);
    return out;
}

cells::CountCell statusCount(std::string_view member) {
    return [member](const json::Value& obj) { return cells::integer(obj, {"status", member}); };
}

}  // namespace

registry::KindInfo daemonSetKind() {
    registry::KindInfo k;
    k.group = "apps";
    k.version = "v1";
    k.kind = "DaemonSet";
    k.resource = "daemonsets";
    k.singular = "daemonset";
    k.shortNames = {"ds"};
    k.categories = {"all"};
    k.tracksGeneration = true;
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::countColumn("Desired", "integer",
                           "The number of nodes that should run the daemon pod.",
                           statusCount("desiredNumberScheduled")),
        cells::countColumn("Current", "integer", "The number of nodes running the daemon pod.",
                           statusCount("currentNumberScheduled")),
        cells::countColumn("Ready", "integer", "The number of nodes whose daemon pod is ready.",
                           statusCount("numberReady")),
        cells::countColumn("Up-to-date", "integer",
                           "The number of nodes running the updated daemon pod.",
                           statusCount("updatedNumberScheduled")),
        cells::countColumn("Available", "integer",
                           "The number of nodes whose daemon pod is available.",
                           statusCount("numberAvailable")),
        cells::textColumn("Node Selector", "string", "The node labels the daemon pods must match.",
                          [](const json::Value& obj, const TableContext&) {
                              return cells::formatLabels(
                                  json::at(obj, {"spec", "template", "spec", "nodeSelector"}));
                          }),
        cells::ageColumn(),
        containersColumn(),
        imagesColumn(),
        selectorColumn(),
    };
    k.defaults = defaultDaemonSet;
    k.prepareForCreate = prepareDaemonSet;
    k.validate = validateDaemonSet;
    return k;
}

}  // namespace kube::apis::apps
