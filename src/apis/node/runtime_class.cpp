#include <map>
#include <set>
#include <string>
#include <tuple>

#include "apis/core/field_errors.hpp"
#include "apis/core/resource_names.hpp"
#include "apis/node/kinds.hpp"
#include "registry/table_cells.hpp"
#include "util/quantity.hpp"

namespace kube::apis::node {

namespace {

namespace cells = registry::cells;
namespace field = core::field;
namespace json = util::json;
using registry::TableContext;
using registry::validation::goQuote;

// Go's %#v of a core.Toleration, as a field error shows it (a set
// tolerationSeconds is a pointer: Go prints its address).
field::BadValue goToleration(const json::Value& t) {
    const json::Value* seconds = json::member(t, "tolerationSeconds");
    return field::BadValue::raw("core.Toleration{Key:" + goQuote(cells::text(t, {"key"})) +
                                ", Operator:" + goQuote(cells::text(t, {"operator"})) +
                                ", Value:" + goQuote(cells::text(t, {"value"})) +
                                ", Effect:" + goQuote(cells::text(t, {"effect"})) +
                                ", TolerationSeconds:(*int64)(" +
                                (seconds && !seconds->IsNull() ? "0xc000000000" : "nil") + ")}");
}

// Mirrors corevalidation.ValidateTolerations for one toleration.
void validateToleration(const json::Value& t, const std::string& path, field::Causes& out) {
    std::string_view key = cells::text(t, {"key"});
    std::string_view op = cells::text(t, {"operator"});
    std::string_view value = cells::text(t, {"value"});
    std::string_view effect = cells::text(t, {"effect"});
    if (!key.empty()) {
        for (const std::string& msg : registry::validation::isQualifiedName(key)) {
            out.push_back(field::invalid(field::child(path, "key"), key, msg));
        }
    }
    if (key.empty() && op != "Exists") {
        out.push_back(field::invalid(field::child(path, "operator"), op,
                                     "operator must be Exists when `key` is empty, which means "
                                     "\"match all values and all keys\""));
    }
    const json::Value* seconds = json::member(t, "tolerationSeconds");
    if (seconds && !seconds->IsNull() && effect != "NoExecute") {
        out.push_back(field::invalid(field::child(path, "effect"), effect,
                                     "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (op == "Equal" || op.empty()) {
        std::vector<std::string> errs = registry::validation::isValidLabelValue(value);
        if (!errs.empty()) {
            std::string joined;
            for (const std::string& e : errs) {
                joined += (joined.empty() ? "" : ";") + e;
            }
            out.push_back(field::invalid(field::child(path, "operator"), value, joined));
        }
    } else if (op == "Exists") {
        if (!value.empty()) {
            out.push_back(field::invalid(field::child(path, "operator"), goToleration(t),
                                         "value must be empty when `operator` is 'Exists'"));
        }
    } else {
        out.push_back(field::notSupported(field::child(path, "operator"), op, {"Equal", "Exists"}));
    }
    if (!effect.empty()) {
        field::validateEnum(json::member(t, "effect"), field::child(path, "effect"),
                            {"NoSchedule", "PreferNoSchedule", "NoExecute"}, out);
    }
}

// Mirrors validateScheduling: the node selector's labels, then the
// tolerations (kube names them under scheduling.tolerations.tolerations)
// and no toleration twice.
void validateScheduling(const json::Value& obj, field::Causes& out) {
    const json::Value* scheduling = json::member(obj, "scheduling");
    if (!scheduling || !scheduling->IsObject()) {
        return;
    }
    if (const json::Value* selector = json::member(*scheduling, "nodeSelector");
        selector && selector->IsObject()) {
        for (const auto& m : selector->GetObject()) {
            std::string_view k = json::view(m.name);
            for (const std::string& msg : registry::validation::isQualifiedName(k)) {
                out.push_back(field::invalid("scheduling.nodeSelector", k, msg));
            }
            std::string_view v = m.value.IsString() ? json::view(m.value) : "";
            for (const std::string& msg : registry::validation::isValidLabelValue(v)) {
                out.push_back(field::invalid("scheduling.nodeSelector", v, msg));
            }
        }
    }
    const json::Value* tolerations = json::member(*scheduling, "tolerations");
    if (!tolerations || !tolerations->IsArray()) {
        return;
    }
    for (size_t i = 0; i < tolerations->Size(); i++) {
        const json::Value& t = (*tolerations)[static_cast<rapidjson::SizeType>(i)];
        validateToleration(t, field::index("scheduling.tolerations.tolerations", i), out);
    }
    using Key = std::tuple<std::string, std::string, std::string, std::string>;
    std::set<Key> seen;
    for (size_t i = 0; i < tolerations->Size(); i++) {
        const json::Value& t = (*tolerations)[static_cast<rapidjson::SizeType>(i)];
        Key key{std::string(cells::text(t, {"key"})), std::string(cells::text(t, {"operator"})),
                std::string(cells::text(t, {"value"})), std::string(cells::text(t, {"effect"}))};
        if (!seen.insert(key).second) {
            out.push_back(
                field::duplicate(field::index("scheduling.tolerations", i), goToleration(t)));
        }
    }
}

// Mirrors validateOverhead: the fixed overhead checked as a container's
// limits (names a container may request, amounts not negative, whole
// numbers where the resource counts, huge pages only beside cpu or memory),
// reported under overhead.limits. Resources in name order (Go's map order
// is random).
void validateOverhead(const json::Value& obj, field::Causes& out) {
    const json::Value* podFixed = json::at(obj, {"overhead", "podFixed"});
    if (!podFixed || !podFixed->IsObject()) {
        return;
    }
    std::map<std::string, const json::Value*> resources;
    for (const auto& m : podFixed->GetObject()) {
        resources.emplace(std::string(json::view(m.name)), &m.value);
    }
    bool hugePages = false;
    bool cpuOrMemory = false;
    for (const auto& [name, value] : resources) {
        std::string path = field::key("overhead.limits", name);
        core::validateContainerResourceName(name, path, out);
        auto q = value->IsString() ? util::Quantity::parse(json::view(*value)) : std::nullopt;
        if (q) {
            if (q->compare(util::Quantity()) < 0) {
                out.push_back(
                    field::invalid(path, q->string(), "must be greater than or equal to 0"));
            }
            if (core::isIntegerResourceName(name) && q->milliValue() % 1000 != 0) {
                out.push_back(field::invalid(path, field::BadValue::raw(q->goString()),
                                             "must be an integer"));
            }
        }
        hugePages = hugePages || core::isHugePageResourceName(name);
        cpuOrMemory = cpuOrMemory || name == "cpu" || name == "memory";
    }
    if (hugePages && !cpuOrMemory) {
        out.push_back(field::forbidden("overhead", "HugePages require cpu or memory"));
    }
}

// Mirrors ValidateRuntimeClass (the metadata checks are the store's).
field::Causes validateRuntimeClass(const json::Value& obj) {
    field::Causes out;
    std::string_view handler = cells::text(obj, {"handler"});
    for (const std::string& msg : registry::validation::isDNS1123Label(handler)) {
        out.push_back(field::invalid("handler", handler, msg));
    }
    validateOverhead(obj, out);
    validateScheduling(obj, out);
    return out;
}

// Mirrors the strategy's ValidateUpdate: the object's checks, then
// ValidateRuntimeClassUpdate's immutable handler.
field::Causes validateRuntimeClassUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out = validateRuntimeClass(obj);
    std::string_view handler = cells::text(obj, {"handler"});
    if (handler != cells::text(old, {"handler"})) {
        out.push_back(field::invalid("handler", handler, "field is immutable"));
    }
    return out;
}

}  // namespace

registry::KindInfo runtimeClassKind() {
    registry::KindInfo k;
    k.group = "node.k8s.io";
    k.version = "v1";
    k.kind = "RuntimeClass";
    k.resource = "runtimeclasses";
    k.singular = "runtimeclass";
    k.namespaced = false;
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Handler", "string", "",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"handler"}));
                          }),
        cells::ageColumn(),
    };
    k.validate = validateRuntimeClass;
    k.validateUpdate = validateRuntimeClassUpdate;
    return k;
}

}  // namespace kube::apis::node
