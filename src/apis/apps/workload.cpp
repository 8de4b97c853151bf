#include "apis/apps/workload.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "apis/core/pod_spec.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::apps {

namespace cells = registry::cells;

namespace {

bool hasValue(const json::Value* values, std::string_view v) {
    if (values && values->IsArray()) {
        for (const auto& e : values->GetArray()) {
            if (json::view(e) == v) {
                return true;
            }
        }
    }
    return false;
}

bool requirementMatches(const json::Value& req, const json::Value* labels) {
    std::string_view key = json::stringMember(req, "key");
    std::string_view op = json::stringMember(req, "operator");
    const json::Value* label = labels ? json::member(*labels, key) : nullptr;
    const json::Value* values = json::member(req, "values");
    if (op == "In") {
        return label && hasValue(values, json::view(*label));
    }
    if (op == "NotIn") {
        return !label || !hasValue(values, json::view(*label));
    }
    if (op == "Exists") {
        return label != nullptr;
    }
    if (op == "DoesNotExist") {
        return label == nullptr;
    }
    return false;
}

const json::Value* selectorOf(const json::Value& obj) {
    if (const json::Value* s = json::at(obj, {"spec", "selector"})) {
        return s;
    }
    return json::at(obj, {"spec", "jobTemplate", "spec", "selector"});
}

}  // namespace

std::string selectorGoString(const json::Value* selector) {
    std::string labels = "map[string]string{";
    const json::Value* ml = selector ? json::member(*selector, "matchLabels") : nullptr;
    if (ml && ml->IsObject()) {
        std::vector<std::pair<std::string_view, std::string_view>> kv;
        for (const auto& m : ml->GetObject()) {
            kv.emplace_back(json::view(m.name), json::view(m.value));
        }
        std::sort(kv.begin(), kv.end());
        for (const auto& [k, v] : kv) {
            labels.append(k).append(": ").append(v).append(",");
        }
    }
    labels += "}";
    std::string exprs = "[]LabelSelectorRequirement{";
    const json::Value* me = selector ? json::member(*selector, "matchExpressions") : nullptr;
    if (me && me->IsArray()) {
        for (const auto& r : me->GetArray()) {
            exprs += "LabelSelectorRequirement{Key:" + std::string(json::stringMember(r, "key")) +
                     ",Operator:" + std::string(json::stringMember(r, "operator")) + ",Values:[" +
                     cells::join(json::member(r, "values"), " ") + "],},";
        }
    }
    exprs += "}";
    return "&LabelSelector{MatchLabels:" + labels + ",MatchExpressions:" + exprs + ",}";
}

bool selectorMatches(const json::Value* selector, const json::Value* labels) {
    if (!selector || !selector->IsObject()) {
        return false;
    }
    if (const json::Value* ml = json::member(*selector, "matchLabels"); ml && ml->IsObject()) {
        for (const auto& m : ml->GetObject()) {
            const json::Value* v = labels ? json::member(*labels, json::view(m.name)) : nullptr;
            if (!v || json::view(*v) != json::view(m.value)) {
                return false;
            }
        }
    }
    if (const json::Value* me = json::member(*selector, "matchExpressions"); me && me->IsArray()) {
        for (const auto& r : me->GetArray()) {
            if (!requirementMatches(r, labels)) {
                return false;
            }
        }
    }
    return true;
}

void validateSelectorMatchesTemplate(const json::Value& spec, field::Causes& out) {
    const json::Value* selector = json::member(spec, "selector");
    bool everything = selector && selector->IsObject() &&
                      cells::count(json::member(*selector, "matchLabels")) +
                              cells::count(json::member(*selector, "matchExpressions")) ==
                          0;
    const json::Value* labels = json::at(spec, {"template", "metadata", "labels"});
    if (!everything && !selectorMatches(selector, labels)) {
        out.push_back(field::invalid("spec.template.metadata.labels", field::goStringMap(labels),
                                     "`selector` does not match template `labels`"));
    }
}

void validateWorkloadSpec(const json::Value& obj, const WorkloadRules& rules, field::Causes& out) {
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* specp = json::member(obj, "spec");
    const json::Value& spec = specp && specp->IsObject() ? *specp : empty;
    if (rules.hasReplicas) {
        field::validateNonnegative(json::member(spec, "replicas"), "spec.replicas", out);
    }
    field::validateNonnegative(json::member(spec, "minReadySeconds"), "spec.minReadySeconds", out);
    const json::Value* selector = json::member(spec, "selector");
    if (!selector || !selector->IsObject()) {
        out.push_back(field::required("spec.selector"));
    } else if (cells::count(json::member(*selector, "matchLabels")) +
                   cells::count(json::member(*selector, "matchExpressions")) ==
               0) {
        out.push_back(field::invalid("spec.selector",
                                     field::BadValue::raw(selectorGoString(selector)),
                                     "empty selector is invalid for " + std::string(rules.kind)));
    }
    validateSelectorMatchesTemplate(spec, out);
    const json::Value* tmpl = json::member(spec, "template");
    core::validatePodTemplate(tmpl, "spec.template", out);
    if (!tmpl || !tmpl->IsObject()) {
        return;
    }
    std::string_view restart = cells::text(*tmpl, {"spec", "restartPolicy"});
    if (restart != "Always" && !restart.empty()) {
        out.push_back(field::notSupported("spec.template.spec.restartPolicy", restart, {"Always"}));
    }
    if (const json::Value* d = json::at(*tmpl, {"spec", "activeDeadlineSeconds"});
        d && !d->IsNull()) {
        out.push_back(field::forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            "activeDeadlineSeconds in " + std::string(rules.deadlineKind) + " is not Supported"));
    }
}

const json::Value* podSpecOf(const json::Value& obj) {
    if (const json::Value* s = json::at(obj, {"spec", "template", "spec"})) {
        return s;
    }
    return json::at(obj, {"spec", "jobTemplate", "spec", "template", "spec"});
}

registry::TableColumn readyReplicasColumn() {
    return cells::textColumn(
        "Ready", "string", "Number of the pod with ready state",
        [](const json::Value& obj, const registry::TableContext&) {
            return std::to_string(cells::integer(obj, {"status", "readyReplicas"})) + "/" +
                   std::to_string(cells::integer(obj, {"spec", "replicas"}, 1));
        });
}

registry::TableColumn containersColumn() {
    return cells::textColumn(
        "Containers", "string", "Names of each container in the template.",
        [](const json::Value& obj, const registry::TableContext&) {
            const json::Value* spec = podSpecOf(obj);
            return cells::containerNames(spec ? json::member(*spec, "containers") : nullptr);
        },
        1);
}

void validateReplicaCounts(const json::Value& obj, std::initializer_list<std::string_view> counts,
                           std::initializer_list<std::string_view> bounded, field::Causes& out) {
    for (std::string_view c : counts) {
        field::validateNonnegative(json::at(obj, {"status", c}), field::child("status", c), out);
    }
    int64_t replicas = cells::integer(obj, {"status", "replicas"});
    for (std::string_view b : bounded) {
        int64_t n = cells::integer(obj, {"status", b});
        if (n > replicas) {
            out.push_back(field::invalid(field::child("status", b), n,
                                         "cannot be greater than status.replicas"));
        }
    }
    int64_t available = cells::integer(obj, {"status", "availableReplicas"});
    if (available > cells::integer(obj, {"status", "readyReplicas"})) {
        out.push_back(field::invalid("status.availableReplicas", available,
                                     "cannot be greater than readyReplicas"));
    }
}

registry::TableColumn imagesColumn() {
    return cells::textColumn(
        "Images", "string", "Images referenced by each container in the template.",
        [](const json::Value& obj, const registry::TableContext&) {
            const json::Value* spec = podSpecOf(obj);
            return cells::containerImages(spec ? json::member(*spec, "containers") : nullptr);
        },
        1);
}

registry::TableColumn selectorColumn(bool bare) {
    return cells::textColumn(
        "Selector", "string", "The label query over the pods the controller manages.",
        [bare](const json::Value& obj, const registry::TableContext&) {
            const json::Value* s = selectorOf(obj);
            return bare ? cells::labelSelectorString(s) : cells::formatLabelSelector(s);
        },
        1);
}

}  // namespace kube::apis::apps
