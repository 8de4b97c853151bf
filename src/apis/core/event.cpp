#include <cctype>
#include <string>

#include "apis/core/event_validation.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "registry/table_cells.hpp"
#include "util/time.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;
using registry::TableContext;

std::string since(const json::Value& obj, std::initializer_list<std::string_view> path,
                  const TableContext& ctx) {
    return util::time::humanSince(cells::text(obj, path), ctx.now);
}

// firstTimestamp, or eventTime for events written through the new API.
std::string firstSeen(const json::Value& obj, const TableContext& ctx) {
    if (!cells::text(obj, {"firstTimestamp"}).empty()) {
        return since(obj, {"firstTimestamp"}, ctx);
    }
    return since(obj, {"eventTime"}, ctx);
}

std::string lastSeen(const json::Value& obj, const TableContext& ctx) {
    if (const json::Value* s = json::member(obj, "series"); s && s->IsObject()) {
        return since(obj, {"series", "lastObservedTime"}, ctx);
    }
    if (cells::text(obj, {"lastTimestamp"}).empty()) {
        return firstSeen(obj, ctx);
    }
    return since(obj, {"lastTimestamp"}, ctx);
}

int64_t eventCount(const json::Value& obj) {
    if (const json::Value* s = json::member(obj, "series"); s && s->IsObject()) {
        return cells::integer(*s, {"count"});
    }
    int64_t n = cells::integer(obj, {"count"});
    return n == 0 ? 1 : n;  // singleton events carry no count in the new API
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

std::string target(const json::Value& obj) {
    std::string kind = lower(cells::text(obj, {"involvedObject", "kind"}));
    std::string_view name = cells::text(obj, {"involvedObject", "name"});
    return name.empty() ? kind : kind + "/" + std::string(name);
}

// formatEventSource: component (or reportingComponent), then ", host" (or
// reportingInstance) when there is one.
std::string source(const json::Value& obj) {
    std::string_view component = cells::text(obj, {"source", "component"});
    if (component.empty()) {
        component = json::stringMember(obj, "reportingComponent");
    }
    std::string_view host = cells::text(obj, {"source", "host"});
    if (host.empty()) {
        host = json::stringMember(obj, "reportingInstance");
    }
    return host.empty() ? std::string(component)
                        : std::string(component) + ", " + std::string(host);
}

std::string trimSpace(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) {
        b++;
    }
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) {
        e--;
    }
    return std::string(s.substr(b, e - b));
}

}  // namespace

field::Causes legacyValidateEvent(const json::Value& obj,
                                  std::string_view reportingControllerPath) {
    field::Causes out;
    std::string_view ns = cells::text(obj, {"metadata", "namespace"});
    std::string_view involvedNs = cells::text(obj, {"involvedObject", "namespace"});
    std::string involvedPath = "involvedObject.namespace";
    // Events without an eventTime are the old API's.
    if (cells::text(obj, {"eventTime"}).empty()) {
        bool ok = involvedNs.empty() ? (ns.empty() || ns == "default") : ns == involvedNs;
        if (!ok) {
            out.push_back(
                field::invalid(involvedPath, involvedNs, "does not match event.namespace"));
        }
    } else {
        if (involvedNs.empty() && ns != "default" && ns != "kube-system") {
            out.push_back(
                field::invalid(involvedPath, involvedNs, "does not match event.namespace"));
        }
        std::string controllerPath(reportingControllerPath);
        std::string_view controller = json::stringMember(obj, "reportingComponent");
        if (controller.empty()) {
            out.push_back(field::required(controllerPath));
        }
        for (const std::string& msg : registry::validation::isQualifiedName(controller)) {
            out.push_back(field::invalid(controllerPath, controller, msg));
        }
        auto requiredAtMost = [&](std::string_view member, std::string_view path, size_t limit,
                                  bool required) {
            std::string_view v = json::stringMember(obj, member);
            if (required && v.empty()) {
                out.push_back(field::required(std::string(path)));
            }
            if (v.size() > limit) {
                out.push_back(field::invalid(std::string(path), "",
                                             "can have at most " + std::to_string(limit) +
                                                 " characters"));
            }
        };
        requiredAtMost("reportingInstance", "reportingInstance", 128, true);
        requiredAtMost("action", "action", 128, true);
        requiredAtMost("reason", "reason", 128, true);
        requiredAtMost("message", "message", 1024, false);
    }
    if (!ns.empty()) {
        for (const std::string& msg : registry::validation::isDNS1123Subdomain(ns)) {
            out.push_back(field::invalid("namespace", ns, msg));
        }
    }
    return out;
}

registry::KindInfo eventKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "Event";
    k.resource = "events";
    k.singular = "event";
    k.shortNames = {"ev"};
    auto textOf = [](std::string_view member) {
        return [member](const json::Value& obj, const TableContext&) {
            return std::string(json::stringMember(obj, member));
        };
    };
    // kube's event printer leads with Last Seen; Name comes last, -o wide only.
    k.columns = {
        cells::textColumn("Last Seen", "string",
                          "The time at which the most recent occurrence was recorded.", lastSeen),
        cells::textColumn("Type", "string", "Type of this event (Normal, Warning).",
                          textOf("type")),
        cells::textColumn("Reason", "string",
                          "A short, machine understandable reason for the event.",
                          textOf("reason")),
        cells::textColumn("Object", "string", "The object this event is about.",
                          [](const json::Value& obj, const TableContext&) { return target(obj); }),
        cells::textColumn(
            "Subobject", "string", "The part of the object this event is about.",
            [](const json::Value& obj, const TableContext&) {
                return std::string(cells::text(obj, {"involvedObject", "fieldPath"}));
            },
            1),
        cells::textColumn(
            "Source", "string", "The component reporting this event.",
            [](const json::Value& obj, const TableContext&) { return source(obj); }, 1),
        cells::textColumn("Message", "string", "A human-readable description of the event.",
                          [](const json::Value& obj, const TableContext&) {
                              return trimSpace(json::stringMember(obj, "message"));
                          }),
        cells::textColumn("First Seen", "string", "The time at which the event was first recorded.",
                          firstSeen, 1),
        cells::countColumn("Count", "string", "The number of times this event has occurred.",
                           eventCount, 1),
        cells::nameColumn(1),
    };
    k.validate = [](const json::Value& obj) {
        return legacyValidateEvent(obj, "reportingComponent");
    };
    k.selectableFields = {
        {"metadata.name"},        {"metadata.namespace"},       {"involvedObject.kind"},
        {"involvedObject.namespace"}, {"involvedObject.name"},  {"involvedObject.uid"},
        {"involvedObject.apiVersion"}, {"involvedObject.resourceVersion"},
        {"involvedObject.fieldPath"}, {"reason"},               {"reportingComponent"},
        {"source", "source.component"}, {"type"}};
    return k;
}

}  // namespace kube::apis::core
