#include "apis/apps/workload.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "apis/core/pod_spec.hpp"
#include "registry/table_cells.hpp"
#include "registry/validation.hpp"

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
    if (!req.IsObject()) {
        return false;
    }
    std::string key(json::stringMember(req, "key"));
    std::string_view op = json::stringMember(req, "operator");
    const json::Value* label = labels && labels->IsObject() ? json::member(*labels, key) : nullptr;
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
    using registry::validation::goQuote;
    static const json::Value none;
    const json::Value& sel = selector && selector->IsObject() ? *selector : none;
    std::string out = "v1.LabelSelector{MatchLabels:map[string]string";
    if (const json::Value* ml = json::member(sel, "matchLabels"); ml && ml->IsObject()) {
        std::vector<std::pair<std::string_view, std::string_view>> kv;
        for (const auto& m : ml->GetObject()) {
            kv.emplace_back(json::view(m.name), json::view(m.value));
        }
        std::sort(kv.begin(), kv.end());
        out += "{";
        for (size_t i = 0; i < kv.size(); i++) {
            out += (i ? ", " : "") + goQuote(kv[i].first) + ":" + goQuote(kv[i].second);
        }
        out += "}";
    } else {
        out += "(nil)";
    }
    out += ", MatchExpressions:[]v1.LabelSelectorRequirement";
    if (const json::Value* me = json::member(sel, "matchExpressions"); me && me->IsArray()) {
        out += "{";
        bool first = true;
        for (const auto& r : me->GetArray()) {
            const json::Value& req = r.IsObject() ? r : none;
            out += std::string(first ? "" : ", ") +
                   "v1.LabelSelectorRequirement{Key:" + goQuote(json::stringMember(req, "key")) +
                   ", Operator:" + goQuote(json::stringMember(req, "operator")) +
                   ", Values:[]string";
            if (const json::Value* values = json::member(req, "values");
                values && values->IsArray()) {
                out += "{";
                for (rapidjson::SizeType i = 0; i < values->Size(); i++) {
                    out += (i ? ", " : "") + goQuote(json::view((*values)[i]));
                }
                out += "}}";
            } else {
                out += "(nil)}";
            }
            first = false;
        }
        out += "}";
    } else {
        out += "(nil)";
    }
    return out + "}";
}

bool selectorIsValid(const json::Value* selector) {
    field::Causes problems;
    field::validateLabelSelector(selector, "", false, problems);
    return problems.empty();
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
    if (!everything && selectorIsValid(selector) && !selectorMatches(selector, labels)) {
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
    } else {
        field::validateLabelSelector(selector, "spec.selector", false, out);
        if (cells::count(json::member(*selector, "matchLabels")) +
                cells::count(json::member(*selector, "matchExpressions")) ==
            0) {
            out.push_back(
                field::invalid("spec.selector", field::BadValue::raw(selectorGoString(selector)),
                               "empty selector is invalid for " + std::string(rules.kind)));
        }
    }
    // LabelSelectorAsSelector fails on what validation reported: then the
    // template is not matched against it.
    if (!selectorIsValid(selector) && rules.invalidSelectorDetail) {
        out.push_back(field::invalid("spec.selector",
                                     field::BadValue::raw(selectorGoString(selector)),
                                     rules.invalidSelectorDetail));
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
