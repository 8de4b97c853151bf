#include <set>
#include <string>

#include "apis/core/defaulting.hpp"
#include "apis/core/kinds.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;
using registry::TableContext;

// Ready / NotReady / Unknown, plus SchedulingDisabled when cordoned.
std::string nodeStatus(const json::Value& node) {
    std::string status = "Unknown";
    const json::Value* conds = json::at(node, {"status", "conditions"});
    if (conds && conds->IsArray()) {
        for (const auto& c : conds->GetArray()) {
            if (json::stringMember(c, "type") == "Ready") {
                status = json::stringMember(c, "status") == "True" ? "Ready" : "NotReady";
            }
        }
    }
    if (cells::isTrue(node, {"spec", "unschedulable"})) {
        status += ",SchedulingDisabled";
    }
    return status;
}

// findNodeRoles: node-role.kubernetes.io/<role> labels and kubernetes.io/role.
std::string nodeRoles(const json::Value& node) {
    static constexpr std::string_view prefix = "node-role.kubernetes.io/";
    std::set<std::string> roles;
    const json::Value* labels = json::at(node, {"metadata", "labels"});
    if (labels && labels->IsObject()) {
        for (const auto& m : labels->GetObject()) {
            std::string_view k = json::view(m.name);
            if (k.substr(0, prefix.size()) == prefix && k.size() > prefix.size()) {
                roles.emplace(k.substr(prefix.size()));
            } else if (k == "kubernetes.io/role" && !json::view(m.value).empty()) {
                roles.emplace(json::view(m.value));
            }
        }
    }
    std::string out;
    for (const auto& r : roles) {
        out += out.empty() ? r : "," + r;
    }
    return out.empty() ? "<none>" : out;
}

std::string address(const json::Value& node, std::string_view type) {
    const json::Value* addrs = json::at(node, {"status", "addresses"});
    if (addrs && addrs->IsArray()) {
        for (const auto& a : addrs->GetArray()) {
            if (json::stringMember(a, "type") == type) {
                return std::string(json::stringMember(a, "address"));
            }
        }
    }
    return "<none>";
}

cells::TextCell nodeInfo(std::string_view member) {
    return [member](const json::Value& obj, const TableContext&) {
        std::string_view v = cells::text(obj, {"status", "nodeInfo", member});
        return v.empty() ? std::string("<unknown>") : std::string(v);
    };
}

// SetDefaults_NodeStatus: allocatable defaults to capacity.
void defaultNode(json::Value& obj, json::Allocator& a) {
    json::Value* status = json::member(obj, "status");
    if (!status || !status->IsObject()) {
        return;
    }
    const json::Value* capacity = json::member(*status, "capacity");
    if (capacity && capacity->IsObject() && defaulting::isUnset(*status, "allocatable")) {
        json::Value copy(*capacity, a);
        json::setMember(*status, "allocatable", std::move(copy), a);
    }
}

}  // namespace

registry::KindInfo nodeKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "Node";
    k.resource = "nodes";
    k.singular = "node";
    k.namespaced = false;
    k.shortNames = {"no"};
    k.subresources = {
        {"proxy",
         "",
         "",
         "NodeProxyOptions",
         {"create", "delete", "get", "patch", "update"},
         registry::SubresourceStorage::Connect},
        registry::statusSubresource(),
    };
    k.columns = {
        cells::nameColumn(),
        cells::textColumn(
            "Status", "string", "The status of the node",
            [](const json::Value& obj, const TableContext&) { return nodeStatus(obj); }),
        cells::textColumn(
            "Roles", "string", "The roles of the node",
            [](const json::Value& obj, const TableContext&) { return nodeRoles(obj); }),
        cells::ageColumn(),
        cells::textColumn(
            "Version", "string", "The kubelet version the node reports.",
            [](const json::Value& obj, const TableContext&) {
                return std::string(cells::text(obj, {"status", "nodeInfo", "kubeletVersion"}));
            }),
        cells::textColumn(
            "Internal-IP", "string", "The node's first internal IP address.",
            [](const json::Value& obj, const TableContext&) { return address(obj, "InternalIP"); },
            1),
        cells::textColumn(
            "External-IP", "string", "The node's first external IP address.",
            [](const json::Value& obj, const TableContext&) { return address(obj, "ExternalIP"); },
            1),
        cells::textColumn("OS-Image", "string", "The operating system image the node reports.",
                          nodeInfo("osImage"), 1),
        cells::textColumn("Kernel-Version", "string", "The kernel version the node reports.",
                          nodeInfo("kernelVersion"), 1),
        cells::textColumn("Container-Runtime", "string", "The container runtime and its version.",
                          nodeInfo("containerRuntimeVersion"), 1),
    };
    k.defaults = defaultNode;
    k.selectableFields = {{"metadata.name"}, {"spec.unschedulable", "", "false"}};
    return k;
}

}  // namespace kube::apis::core
