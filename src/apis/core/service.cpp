#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "apis/core/pod_spec.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;
using registry::TableContext;

// getServiceExternalIP.
std::string externalIP(const json::Value& svc) {
    std::string_view type = cells::text(svc, {"spec", "type"});
    std::string external = cells::join(json::at(svc, {"spec", "externalIPs"}), ",");
    if (type == "ClusterIP" || type == "NodePort") {
        return external.empty() ? "<none>" : external;
    }
    if (type == "LoadBalancer") {
        std::string lb = cells::loadBalancerIngress(svc);
        if (!external.empty()) {
            return lb.empty() ? external : lb + "," + external;
        }
        return lb.empty() ? "<pending>" : lb;
    }
    if (type == "ExternalName") {
        return std::string(cells::text(svc, {"spec", "externalName"}));
    }
    return "<unknown>";
}

// makePortString: "80/TCP,443:30443/TCP".
std::string ports(const json::Value& svc) {
    std::string out;
    const json::Value* ps = json::at(svc, {"spec", "ports"});
    if (ps && ps->IsArray()) {
        for (const auto& p : ps->GetArray()) {
            std::string piece = std::to_string(cells::integer(p, {"port"}));
            if (int64_t node = cells::integer(p, {"nodePort"}); node > 0) {
                piece += ":" + std::to_string(node);
            }
            piece += "/" + std::string(json::stringMember(p, "protocol"));
            out += out.empty() ? piece : "," + piece;
        }
    }
    return out.empty() ? "<none>" : out;
}

std::string clusterIP(const json::Value& svc) {
    const json::Value* ips = json::at(svc, {"spec", "clusterIPs"});
    if (ips && ips->IsArray() && !ips->Empty()) {
        return std::string(json::view((*ips)[0]));
    }
    std::string_view ip = cells::text(svc, {"spec", "clusterIP"});
    return ip.empty() ? "<none>" : std::string(ip);
}

// Mirrors SetDefaults_Service.
void defaultService(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    defaulting::setString(spec, "sessionAffinity", "None", a);
    std::string affinity(json::stringMember(spec, "sessionAffinity"));
    if (affinity == "None") {
        json::removeMember(spec, "sessionAffinityConfig");
    } else if (affinity == "ClientIP" &&
               !cells::integer(spec, {"sessionAffinityConfig", "clientIP", "timeoutSeconds"})) {
        json::Value& config = defaulting::ensureObject(spec, "sessionAffinityConfig", a);
        json::Value& clientIP = defaulting::ensureObject(config, "clientIP", a);
        defaulting::setInt(clientIP, "timeoutSeconds", 10800, a);
    }
    defaulting::setString(spec, "type", "ClusterIP", a);
    std::string type(json::stringMember(spec, "type"));
    defaulting::forEachElement(spec, "ports", [&](json::Value& p) {
        defaulting::setString(p, "protocol", "TCP", a);
        const json::Value* target = json::member(p, "targetPort");
        bool unset = !target || target->IsNull() ||
                     (target->IsInt64() && target->GetInt64() == 0) ||
                     (target->IsString() && target->GetStringLength() == 0);
        if (unset && json::member(p, "port")) {
            json::setMember(p, "targetPort", json::Value(p["port"], a), a);
        }
    });
    if (type == "NodePort" || type == "LoadBalancer") {
        defaulting::setString(spec, "externalTrafficPolicy", "Cluster", a);
    }
    if (type == "NodePort" || type == "LoadBalancer" || type == "ClusterIP") {
        defaulting::setString(spec, "internalTrafficPolicy", "Cluster", a);
    }
    if (type == "LoadBalancer") {
        defaulting::setBool(spec, "allocateLoadBalancerNodePorts", true, a);
    }
}

// Mirrors serviceStrategy.PrepareForCreate: status starts empty (the Go
// struct always serializes its loadBalancer member).
void prepareService(json::Value& obj, json::Allocator& a) {
    json::Value status(rapidjson::kObjectType);
    status.AddMember("loadBalancer", json::Value(rapidjson::kObjectType), a);
    json::setMember(obj, "status", std::move(status), a);
    // NormalizeClusterIPs: a requested clusterIP is the first of clusterIPs.
    json::Value* spec = json::member(obj, "spec");
    std::string_view ip = spec && spec->IsObject() ? json::stringMember(*spec, "clusterIP") : "";
    const json::Value* ips = spec && spec->IsObject() ? json::member(*spec, "clusterIPs") : nullptr;
    if (!ip.empty() && (!ips || !ips->IsArray() || ips->Empty())) {
        json::Value list(rapidjson::kArrayType);
        list.PushBack(json::stringValue(ip, a), a);
        json::setMember(*spec, "clusterIPs", std::move(list), a);
    }
}

void validatePort(const json::Value& p, const std::string& path, bool requireName,
                  std::set<std::string>& names, field::Causes& out) {
    std::string_view name = json::stringMember(p, "name");
    std::string namePath = field::child(path, "name");
    if (requireName && name.empty()) {
        out.push_back(field::required(namePath));
    } else if (!name.empty()) {
        for (const std::string& msg : registry::validation::isDNS1123Label(name)) {
            out.push_back(field::invalid(namePath, name, msg));
        }
        if (!names.insert(std::string(name)).second) {
            out.push_back(field::duplicate(namePath, name));
        }
    }
    int64_t port = cells::integer(p, {"port"});
    if (port < 1 || port > 65535) {
        out.push_back(field::invalid(field::child(path, "port"), port,
                                     "must be between 1 and 65535, inclusive"));
    }
    const json::Value* protocol = json::member(p, "protocol");
    if (!protocol || json::view(*protocol).empty()) {
        out.push_back(field::required(field::child(path, "protocol")));
    } else {
        field::validateEnum(protocol, field::child(path, "protocol"), {"SCTP", "TCP", "UDP"}, out);
    }
    const json::Value* target = json::member(p, "targetPort");
    if (target && target->IsInt64() && target->GetInt64() != 0) {
        field::validatePortNumber(target, field::child(path, "targetPort"), out);
    }
}

// Mirrors the essentials of ValidateService.
field::Causes validateService(const json::Value& obj) {
    field::Causes out;
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* specp = json::member(obj, "spec");
    const json::Value& spec = specp && specp->IsObject() ? *specp : empty;
    std::string_view type = json::stringMember(spec, "type");
    bool headless = json::stringMember(spec, "clusterIP") == "None";
    const json::Value* ps = json::member(spec, "ports");
    size_t nports = ps && ps->IsArray() ? ps->Size() : 0;
    if (nports == 0 && !headless && type != "ExternalName") {
        out.push_back(field::required("spec.ports"));
    }
    if (type == "ExternalName") {
        std::string_view cname = json::stringMember(spec, "externalName");
        if (!cname.empty() && cname.back() == '.') {
            cname.remove_suffix(1);
        }
        if (cname.empty()) {
            out.push_back(field::required("spec.externalName"));
        }
    }
    std::set<std::string> names;
    for (size_t i = 0; i < nports; i++) {
        const json::Value& p = (*ps)[static_cast<rapidjson::SizeType>(i)];
        validatePort(p, field::index("spec.ports", i), nports > 1, names, out);
        if (type == "ClusterIP" && cells::integer(p, {"nodePort"}) != 0) {
            out.push_back(field::forbidden(field::child(field::index("spec.ports", i), "nodePort"),
                                           "may not be used when `type` is 'ClusterIP'"));
        }
    }
    field::validateEnum(json::member(spec, "sessionAffinity"), "spec.sessionAffinity",
                        {"ClientIP", "None"}, out);
    field::validateEnum(json::member(spec, "type"), "spec.type",
                        {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}, out);
    return out;
}

// The clusterIPs of a service as a Go []string's %#v.
std::string goStrings(const json::Value* list) {
    if (!list || !list->IsArray()) {
        return "[]string(nil)";
    }
    std::string out = "[]string{";
    for (rapidjson::SizeType i = 0; i < list->Size(); i++) {
        out += (i ? ", " : "") + registry::validation::goQuote(json::view((*list)[i]));
    }
    return out + "}";
}

bool needsClusterIP(const json::Value& svc) {
    return json::stringMember(svc["spec"], "type") != "ExternalName";
}

bool needsNodePort(const json::Value& spec) {
    std::string_view type = json::stringMember(spec, "type");
    return type == "NodePort" || type == "LoadBalancer";
}

bool needsHealthCheckNodePort(const json::Value& spec) {
    return json::stringMember(spec, "type") == "LoadBalancer" &&
           json::stringMember(spec, "externalTrafficPolicy") == "Local";
}

// The nodePort of every port, in order.
std::vector<int64_t> nodePorts(const json::Value& spec) {
    std::vector<int64_t> out;
    const json::Value* ps = json::member(spec, "ports");
    if (ps && ps->IsArray()) {
        for (const auto& p : ps->GetArray()) {
            out.push_back(cells::integer(p, {"nodePort"}));
        }
    }
    return out;
}

// Mirrors dropTypeDependentFields: a service changing to a type that no
// longer needs what was allocated for it loses it, unless the request
// changed it (the allocators then release it).
void dropTypeDependentFields(json::Value& spec, const json::Value& oldSpec, json::Allocator& a) {
    auto same = [&](std::string_view name) { return field::sameMember(spec, oldSpec, name); };
    bool oldNeedsIP = json::stringMember(oldSpec, "type") != "ExternalName";
    bool needsIP = json::stringMember(spec, "type") != "ExternalName";
    if (oldNeedsIP && !needsIP) {
        if (same("clusterIP") && same("clusterIPs")) {
            json::removeMember(spec, "clusterIP");
            json::removeMember(spec, "clusterIPs");
        }
        if (same("ipFamilies")) {
            json::removeMember(spec, "ipFamilies");
        }
        if (same("ipFamilyPolicy")) {
            json::removeMember(spec, "ipFamilyPolicy");
        }
    }
    if (needsNodePort(oldSpec) && !needsNodePort(spec) && nodePorts(spec) == nodePorts(oldSpec)) {
        defaulting::forEachElement(spec, "ports",
                                   [](json::Value& p) { json::removeMember(p, "nodePort"); });
    }
    if (needsHealthCheckNodePort(oldSpec) && !needsHealthCheckNodePort(spec) &&
        same("healthCheckNodePort")) {
        json::removeMember(spec, "healthCheckNodePort");
    }
    if (json::stringMember(oldSpec, "type") == "LoadBalancer" &&
        json::stringMember(spec, "type") != "LoadBalancer" &&
        json::member(spec, "allocateLoadBalancerNodePorts") &&
        same("allocateLoadBalancerNodePorts")) {
        json::removeMember(spec, "allocateLoadBalancerNodePorts");
    }
    if (needsNodePort(oldSpec) && !needsNodePort(spec) && same("externalTrafficPolicy")) {
        json::removeMember(spec, "externalTrafficPolicy");
    }
    (void)a;
}

// Mirrors the service REST's update preparation (patchAllocatedValues and
// NormalizeClusterIPs): a request without clusterIP(s) keeps the allocated
// ones, and a changed clusterIP alone carries into clusterIPs[0].
void prepareServiceUpdate(json::Value& obj, const json::Value& old, json::Allocator& a) {
    json::Value* spec = json::member(obj, "spec");
    const json::Value* oldSpec = json::member(old, "spec");
    if (!spec || !spec->IsObject() || !oldSpec || !oldSpec->IsObject()) {
        return;
    }
    dropTypeDependentFields(*spec, *oldSpec, a);
    if (!needsClusterIP(obj) || !needsClusterIP(old)) {
        return;
    }
    if (json::stringMember(*spec, "clusterIP").empty() &&
        !json::stringMember(*oldSpec, "clusterIP").empty()) {
        json::setMember(*spec, "clusterIP", json::Value((*oldSpec)["clusterIP"], a), a);
    }
    const json::Value* ips = json::member(*spec, "clusterIPs");
    const json::Value* oldIps = json::member(*oldSpec, "clusterIPs");
    bool noIps = !ips || !ips->IsArray() || ips->Empty();
    if (noIps && oldIps && oldIps->IsArray() && !oldIps->Empty()) {
        json::setMember(*spec, "clusterIPs", json::Value(*oldIps, a), a);
    }
    std::string_view ip = json::stringMember(*spec, "clusterIP");
    ips = json::member(*spec, "clusterIPs");
    if (ip.empty()) {
        return;
    }
    if (!ips || !ips->IsArray() || ips->Empty()) {
        json::Value list(rapidjson::kArrayType);
        list.PushBack(json::stringValue(ip, a), a);
        json::setMember(*spec, "clusterIPs", std::move(list), a);
        return;
    }
    if (ip != json::stringMember(*oldSpec, "clusterIP") && oldIps && *ips == *oldIps &&
        (*ips)[0].IsString()) {
        (*spec)["clusterIPs"][0].SetString(ip.data(), static_cast<rapidjson::SizeType>(ip.size()),
                                           a);
    }
}

// Mirrors ValidateServiceUpdate's immutable clusterIPs: once allocated, the
// primary and secondary IPs stay (unless the service is or becomes an
// ExternalName one).
field::Causes validateServiceUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out;
    const json::Value* ips = json::at(obj, {"spec", "clusterIPs"});
    const json::Value* oldIps = json::at(old, {"spec", "clusterIPs"});
    if (json::member(obj, "spec") && json::member(old, "spec") && needsClusterIP(obj) &&
        needsClusterIP(old) && oldIps && oldIps->IsArray() && ips && ips->IsArray()) {
        for (rapidjson::SizeType i = 0; i < std::min(ips->Size(), oldIps->Size()); i++) {
            if ((*ips)[i] != (*oldIps)[i]) {
                out.push_back(field::invalid(field::index("spec.clusterIPs", i),
                                             field::BadValue::raw(goStrings(ips)),
                                             "may not change once set"));
            }
        }
    }
    for (meta::StatusCause& c : validateService(obj)) {
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace

registry::KindInfo serviceKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "Service";
    k.resource = "services";
    k.singular = "service";
    k.shortNames = {"svc"};
    k.categories = {"all"};
    k.nameRule = registry::NameRule::DNS1035Label;
    k.subresources = {
        {"proxy",
         "",
         "",
         "ServiceProxyOptions",
         {"create", "delete", "get", "patch", "update"},
         registry::SubresourceStorage::Connect},
        registry::statusSubresource(),
    };
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Type", "string",
                          "How the service is exposed (ClusterIP, NodePort, ...).",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(cells::text(obj, {"spec", "type"}));
                          }),
        cells::textColumn(
            "Cluster-IP", "string", "The IP address of the service in the cluster.",
            [](const json::Value& obj, const TableContext&) { return clusterIP(obj); }),
        cells::textColumn(
            "External-IP", "string", "The addresses the service is reachable at from outside.",
            [](const json::Value& obj, const TableContext&) { return externalIP(obj); }),
        cells::textColumn("Port(s)", "string", "The ports the service exposes.",
                          [](const json::Value& obj, const TableContext&) { return ports(obj); }),
        cells::ageColumn(),
        cells::textColumn(
            "Selector", "string", "The labels of the pods the service routes to.",
            [](const json::Value& obj, const TableContext&) {
                return cells::formatLabels(json::at(obj, {"spec", "selector"}));
            },
            1),
    };
    k.defaults = defaultService;
    k.prepareForCreate = prepareService;
    k.validate = validateService;
    k.prepareForUpdate = prepareServiceUpdate;
    k.validateUpdate = validateServiceUpdate;
    k.selectableFields = {
        {"metadata.name"}, {"metadata.namespace"}, {"spec.clusterIP"}, {"spec.type"}};
    return k;
}

}  // namespace kube::apis::core
