#include <string>

#include "apis/apps/workload.hpp"
#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "apis/core/pod_spec.hpp"
#include "registry/scale.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;
using registry::TableContext;

// Mirrors SetDefaults_ReplicationController: the template's labels stand in
// for an empty selector and for the controller's own empty labels; one
// replica; the pod template's defaults.
void defaultReplicationController(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    const json::Value* labels = json::at(spec, {"template", "metadata", "labels"});
    if (labels && labels->IsObject()) {
        if (cells::count(json::member(spec, "selector")) == 0) {
            json::setMember(spec, "selector", json::Value(*labels, a), a);
        }
        json::Value& meta = defaulting::ensureObject(obj, "metadata", a);
        if (meta.IsObject() && cells::count(json::member(meta, "labels")) == 0) {
            json::setMember(meta, "labels", json::Value(*labels, a), a);
        }
    }
    defaulting::setInt(spec, "replicas", 1, a);
    defaultPodTemplate(spec, a);
}

// Mirrors rcStrategy.PrepareForCreate: status reset (replicas is always
// serialized).
void prepareReplicationController(json::Value& obj, json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    status.AddMember("replicas", 0, a);
    json::setMember(obj, "status", std::move(status), a);
}

// Whether every selector label is in `labels` with its value.
bool mapMatches(const json::Value& selector, const json::Value* labels) {
    for (const auto& m : selector.GetObject()) {
        const json::Value* v =
            labels && labels->IsObject() ? json::member(*labels, json::view(m.name)) : nullptr;
        if (!v || *v != m.value) {
            return false;
        }
    }
    return true;
}

// Mirrors ValidateReplicationControllerSpec: minReadySeconds and replicas
// not negative, a non-empty selector (its keys and values valid label
// parts), and a template whose labels it matches, that restarts Always and
// has no activeDeadlineSeconds.
field::Causes validateReplicationController(const json::Value& obj) {
    field::Causes out;
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* specp = json::member(obj, "spec");
    const json::Value& spec = specp && specp->IsObject() ? *specp : empty;
    field::validateNonnegative(json::member(spec, "minReadySeconds"), "spec.minReadySeconds", out);
    const json::Value* selector = json::member(spec, "selector");
    bool hasSelector = cells::count(selector) > 0 && selector->IsObject();
    if (!hasSelector) {
        out.push_back(field::required("spec.selector"));
    }
    field::validateNonnegative(json::member(spec, "replicas"), "spec.replicas", out);
    const json::Value* tmpl = json::member(spec, "template");
    if (!tmpl || !tmpl->IsObject()) {
        out.push_back(field::required("spec.template"));
    } else {
        const json::Value* labels = json::at(*tmpl, {"metadata", "labels"});
        if (hasSelector && !mapMatches(*selector, labels)) {
            out.push_back(field::invalid("spec.template.metadata.labels",
                                         field::goStringMap(labels),
                                         "`selector` does not match template `labels`"));
        }
        validatePodTemplate(tmpl, "spec.template", out);
        std::string_view restart = cells::text(*tmpl, {"spec", "restartPolicy"});
        if (restart != "Always") {
            out.push_back(
                field::notSupported("spec.template.spec.restartPolicy", restart, {"Always"}));
        }
        if (const json::Value* d = json::at(*tmpl, {"spec", "activeDeadlineSeconds"});
            d && !d->IsNull()) {
            out.push_back(field::invalid("spec.template.spec.activeDeadlineSeconds", *d,
                                         "activeDeadlineSeconds in ReplicationController is "
                                         "not Supported"));
        }
    }
    // ValidateLabels of the selector map (ValidateReplicationController).
    if (hasSelector) {
        for (const auto& m : selector->GetObject()) {
            std::string_view k = json::view(m.name);
            for (const std::string& msg : registry::validation::isQualifiedName(k)) {
                out.push_back(field::invalid("spec.selector", k, msg));
            }
            std::string_view v = m.value.IsString() ? json::view(m.value) : "";
            for (const std::string& msg : registry::validation::isValidLabelValue(v)) {
                out.push_back(field::invalid("spec.selector", v, msg));
            }
        }
    }
    return out;
}

// Mirrors ValidateReplicationControllerStatusUpdate (the metadata checks
// are the store's).
field::Causes validateReplicationControllerStatus(const json::Value& obj, const json::Value&) {
    field::Causes out;
    apps::validateReplicaCounts(obj,
                                {"replicas", "fullyLabeledReplicas", "readyReplicas",
                                 "availableReplicas", "observedGeneration"},
                                {"fullyLabeledReplicas", "readyReplicas", "availableReplicas"},
                                out);
    return out;
}

cells::CountCell statusCount(std::string_view member) {
    return [member](const json::Value& obj) { return cells::integer(obj, {"status", member}); };
}

}  // namespace

registry::KindInfo replicationControllerKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "ReplicationController";
    k.resource = "replicationcontrollers";
    k.singular = "replicationcontroller";
    k.shortNames = {"rc"};
    k.categories = {"all"};
    k.tracksGeneration = true;
    registry::ScalePaths scale;
    scale.selectorForm = registry::ScalePaths::SelectorForm::LabelMap;
    k.subresources = {registry::scaleSubresource(std::move(scale)), registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::countColumn("Desired", "integer", "The number of pods the controller wants.",
                           [](const json::Value& obj) {
                               return cells::integer(obj, {"spec", "replicas"}, 1);
                           }),
        cells::countColumn("Current", "integer", "The number of pods the controller has.",
                           statusCount("replicas")),
        cells::countColumn("Ready", "integer", "The number of its pods that are ready.",
                           statusCount("readyReplicas")),
        cells::ageColumn(),
        apps::containersColumn(),
        apps::imagesColumn(),
        cells::textColumn(
            "Selector", "string", "The labels of the pods the controller counts.",
            [](const json::Value& obj, const TableContext&) {
                std::string s = cells::formatLabels(json::at(obj, {"spec", "selector"}));
                return s;
            },
            1),
    };
    k.defaults = defaultReplicationController;
    k.prepareForCreate = prepareReplicationController;
    k.validate = validateReplicationController;
    k.validateStatusUpdate = validateReplicationControllerStatus;
    k.selectableFields = {{"metadata.name"}, {"metadata.namespace"}, {"status.replicas", "", "0"}};
    return k;
}

}  // namespace kube::apis::core
