#include <string>

#include "apis/core/field_errors.hpp"
#include "apis/networking/kinds.hpp"
#include "registry/ip_validation.hpp"
#include "registry/status_strategy.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::networking {

namespace {

namespace cells = registry::cells;
namespace field = core::field;
namespace json = util::json;
namespace validation = registry::validation;
using registry::TableContext;

const json::Value* cidrsOf(const json::Value& obj) {
    const json::Value* cidrs = json::at(obj, {"spec", "cidrs"});
    return cidrs && cidrs->IsArray() ? cidrs : nullptr;
}

// Go's %#v of the internal ServiceCIDRSpec, the bad value kube reports for
// the list as a whole.
field::BadValue specValue(const json::Value* cidrs) {
    std::string list = field::goStringList(cidrs).text();
    return field::BadValue::raw("networking.ServiceCIDRSpec{CIDRs:" + list + "}");
}


// Mirrors ValidateServiceCIDR (the metadata checks are the store's).
std::vector<meta::StatusCause> validateServiceCIDR(const json::Value& obj) {
    field::Causes out;
    const std::string path = "spec.cidrs";
    const json::Value* cidrs = cidrsOf(obj);
    if (!cidrs || cidrs->Empty()) {
        out.push_back(field::required(path, "at least one CIDR required"));
        return out;
    }
    if (cidrs->Size() > 2) {
        out.push_back(field::invalid(path, specValue(cidrs), "may only hold up to 2 values"));
        return out;
    }
    if (cidrs->Size() == 2) {
        int first = (*cidrs)[0].IsString() ? validation::cidrFamily(json::view((*cidrs)[0])) : 0;
        int second = (*cidrs)[1].IsString() ? validation::cidrFamily(json::view((*cidrs)[1])) : 0;
        if (first == 0 || second == 0 || first == second) {
            out.push_back(field::invalid(path, specValue(cidrs),
                                         "may specify no more than one IP for each IP family, i.e "
                                         "192.168.0.0/24 and 2001:db8::/64"));
            return out;
        }
    }
    for (rapidjson::SizeType i = 0; i < cidrs->Size(); i++) {
        std::string_view cidr = (*cidrs)[i].IsString() ? json::view((*cidrs)[i]) : "";
        for (const std::string& msg : validation::isValidCanonicalCIDR(cidr)) {
            out.push_back(field::invalid(field::index(path, i), cidr, msg));
        }
    }
    return out;
}

// Mirrors ValidateServiceCIDRUpdate: only that the cidrs stay.
std::vector<meta::StatusCause> validateServiceCIDRUpdate(const json::Value& obj,
                                                         const json::Value& old) {
    field::Causes out;
    const json::Value* now = cidrsOf(obj);
    const json::Value* was = cidrsOf(old);
    bool same = (!now || now->Empty()) ? (!was || was->Empty()) : (was && *now == *was);
    if (!same) {
        out.push_back(field::invalid("spec.cidrs", field::goStringList(now), "field is immutable"));
    }
    return out;
}

}  // namespace

// The range a Service's ClusterIP may come from. With the bitmap allocator
// (kube's MultiCIDRServiceAllocator off) these are stored and shown but
// ClusterIPs still come from kube_service_cluster_ip_range; the `kubernetes`
// one names that range (controller/controlplane).
registry::KindInfo serviceCIDRKind() {
    registry::KindInfo k;
    k.group = "networking.k8s.io";
    k.version = "v1";
    k.kind = "ServiceCIDR";
    k.resource = "servicecidrs";
    k.singular = "servicecidr";
    k.namespaced = false;
    k.subresources = {registry::statusSubresource()};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("CIDRs", "string",
                          "CIDRs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" "
                          "or \"2001:db8::/64\") from which to assign service cluster IPs. Max of "
                          "two CIDRs is allowed, one of each IP family. This field is immutable.",
                          [](const json::Value& obj, const TableContext&) {
                              std::string out;
                              if (const json::Value* cidrs = cidrsOf(obj)) {
                                  for (const json::Value& c : cidrs->GetArray()) {
                                      if (!out.empty()) {
                                          out += ",";
                                      }
                                      out += c.IsString() ? json::view(c) : "";
                                  }
                              }
                              return out;
                          }),
        cells::ageColumn(),
    };
    k.validate = validateServiceCIDR;
    k.validateUpdate = validateServiceCIDRUpdate;
    return k;
}

}  // namespace kube::apis::networking
