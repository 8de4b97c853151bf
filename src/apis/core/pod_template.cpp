#include <string>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "apis/core/pod_spec.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;
using registry::TableContext;

const json::Value* templateContainers(const json::Value& obj) {
    return json::at(obj, {"template", "spec", "containers"});
}

// Mirrors ValidatePodTemplate (and ValidatePodTemplateUpdate, which checks
// the same template): the template's spec, as a controller's is checked.
field::Causes validatePodTemplateObject(const json::Value& obj) {
    field::Causes out;
    const json::Value* tmpl = json::member(obj, "template");
    static const json::Value empty(rapidjson::kObjectType);
    validatePodTemplate(tmpl && tmpl->IsObject() ? tmpl : &empty, "template", out);
    return out;
}

}  // namespace

// mirrors pkg/registry/core/podtemplate: generation counts template changes
// (podTemplateStrategy.PrepareForUpdate), printPodTemplate's columns.
registry::KindInfo podTemplateKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "PodTemplate";
    k.resource = "podtemplates";
    k.singular = "podtemplate";
    k.tracksGeneration = true;
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Containers", "string", "Names of each container in the template.",
                          [](const json::Value& obj, const TableContext&) {
                              return cells::containerNames(templateContainers(obj));
                          }),
        cells::textColumn("Images", "string",
                          "Images referenced by each container in the template.",
                          [](const json::Value& obj, const TableContext&) {
                              return cells::containerImages(templateContainers(obj));
                          }),
        cells::textColumn(
            "Pod Labels", "string", "The labels for the pod template.",
            [](const json::Value& obj, const TableContext&) {
                return cells::formatLabels(json::at(obj, {"template", "metadata", "labels"}));
            }),
    };
    k.defaults = [](json::Value& obj, json::Allocator& a) { defaultPodTemplate(obj, a); };
    k.validate = validatePodTemplateObject;
    return k;
}

}  // namespace kube::apis::core
