#include <arpa/inet.h>

#include <set>
#include <string>
#include <vector>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/discovery/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::discovery {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
namespace field = core::field;
namespace json = util::json;
using registry::TableContext;

constexpr size_t kMaxEndpoints = 1000;
constexpr size_t kMaxPorts = 100;
constexpr size_t kMaxAddresses = 100;

// listWithMoreString: three values, then " + N more...", "<unset>" for none.
std::string listWithMore(const std::vector<std::string>& all) {
    constexpr size_t max = 3;
    std::string out;
    for (size_t i = 0; i < all.size() && i < max; i++) {
        out += (i ? "," : "") + all[i];
    }
    if (all.size() > max) {
        return out + " + " + std::to_string(all.size() - max) + " more...";
    }
    return out.empty() ? "<unset>" : out;
}

// formatDiscoveryPorts: the port numbers (the name when unset, else "*").
std::string formatPorts(const json::Value& obj) {
    std::vector<std::string> list;
    const json::Value* ports = json::member(obj, "ports");
    if (ports && ports->IsArray()) {
        for (const json::Value& p : ports->GetArray()) {
            const json::Value* port = json::member(p, "port");
            std::string_view name = json::stringMember(p, "name");
            list.push_back(port && port->IsInt64() ? std::to_string(port->GetInt64())
                           : json::member(p, "name") ? std::string(name)
                                                    : "*");
        }
    }
    return listWithMore(list);
}

// formatDiscoveryEndpoints: every endpoint's addresses.
std::string formatEndpoints(const json::Value& obj) {
    std::vector<std::string> list;
    const json::Value* endpoints = json::member(obj, "endpoints");
    if (endpoints && endpoints->IsArray()) {
        for (const json::Value& e : endpoints->GetArray()) {
            const json::Value* addresses = json::member(e, "addresses");
            if (addresses && addresses->IsArray()) {
                for (const json::Value& a : addresses->GetArray()) {
                    list.emplace_back(json::view(a));
                }
            }
        }
    }
    return listWithMore(list);
}

// Mirrors SetDefaults_EndpointPort: a port without a name or protocol gets
// "" and TCP.
void defaultEndpointSlice(json::Value& obj, json::Allocator& a) {
    defaulting::forEachElement(obj, "ports", [&](json::Value& p) {
        defaulting::setString(p, "name", "", a);
        defaulting::setString(p, "protocol", "TCP", a);
    });
}

bool isIP(std::string_view text, int family) {
    unsigned char buf[16];
    std::string s(text);
    return inet_pton(family, s.c_str(), buf) == 1;
}

// Mirrors validateEndpoints' address checks for the slice's address type.
void validateAddress(std::string_view type, std::string_view address, const std::string& path,
                     field::Causes& out) {
    if (type == "IPv4" || type == "IPv6") {
        bool v4 = type == "IPv4";
        if (!isIP(address, v4 ? AF_INET : AF_INET6)) {
            out.push_back(field::invalid(path, address,
                                         v4 ? "must be a valid IPv4 address"
                                            : "must be a valid IPv6 address"));
        }
        if (!isIP(address, AF_INET) && !isIP(address, AF_INET6)) {
            out.push_back(field::invalid(path, address, "must be a valid IP address"));
        }
    } else if (type == "FQDN") {
        for (const std::string& msg : registry::validation::isDNS1123Subdomain(address)) {
            out.push_back(field::invalid(path, address, msg));
        }
    }
}

// Mirrors ValidateEndpointSlice minus the metadata checks the store does.
field::Causes validateEndpointSlice(const json::Value& obj) {
    field::Causes out;
    const json::Value* typep = json::member(obj, "addressType");
    std::string_view type = json::stringMember(obj, "addressType");
    if (!typep || type.empty()) {
        out.push_back(field::required("addressType"));
    } else {
        field::validateEnum(typep, "addressType", {"FQDN", "IPv4", "IPv6"}, out);
    }
    const json::Value* endpoints = json::member(obj, "endpoints");
    size_t nendpoints = endpoints && endpoints->IsArray() ? endpoints->Size() : 0;
    if (nendpoints > kMaxEndpoints) {
        out.push_back(registry::validation::field::tooMany(
            "endpoints", static_cast<int64_t>(nendpoints), kMaxEndpoints));
    }
    for (size_t i = 0; i < nendpoints && i < kMaxEndpoints; i++) {
        const json::Value& e = (*endpoints)[static_cast<rapidjson::SizeType>(i)];
        std::string path = field::index("endpoints", i);
        const json::Value* addresses = json::member(e, "addresses");
        size_t n = addresses && addresses->IsArray() ? addresses->Size() : 0;
        std::string addressesPath = field::child(path, "addresses");
        if (n == 0) {
            out.push_back(field::required(addressesPath, "must contain at least 1 address"));
        } else if (n > kMaxAddresses) {
            out.push_back(registry::validation::field::tooMany(
                addressesPath, static_cast<int64_t>(n), kMaxAddresses));
        }
        for (size_t j = 0; j < n && j < kMaxAddresses; j++) {
            validateAddress(type, json::view((*addresses)[static_cast<rapidjson::SizeType>(j)]),
                            field::index(addressesPath, j), out);
        }
        if (const json::Value* host = json::member(e, "hostname"); host && host->IsString()) {
            for (const std::string& msg : registry::validation::isDNS1123Label(json::view(*host))) {
                out.push_back(field::invalid(field::child(path, "hostname"), json::view(*host), msg));
            }
        }
        if (const json::Value* node = json::member(e, "nodeName"); node && node->IsString()) {
            for (const std::string& msg :
                 registry::validation::isDNS1123Subdomain(json::view(*node))) {
                out.push_back(
                    field::invalid(field::child(path, "nodeName"), json::view(*node), msg));
            }
        }
    }
    const json::Value* ports = json::member(obj, "ports");
    size_t nports = ports && ports->IsArray() ? ports->Size() : 0;
    if (nports > kMaxPorts) {
        out.push_back(registry::validation::field::tooMany("ports", static_cast<int64_t>(nports),
                                                           kMaxPorts));
    }
    std::set<std::string> names;
    for (size_t i = 0; i < nports && i < kMaxPorts; i++) {
        const json::Value& p = (*ports)[static_cast<rapidjson::SizeType>(i)];
        std::string path = field::index("ports", i);
        std::string_view name = json::stringMember(p, "name");
        if (!name.empty()) {
            for (const std::string& msg : registry::validation::isDNS1123Label(name)) {
                out.push_back(field::invalid(field::child(path, "name"), name, msg));
            }
        }
        if (!names.insert(std::string(name)).second) {
            out.push_back(field::duplicate(field::child(path, "name"), name));
        }
        const json::Value* protocol = json::member(p, "protocol");
        if (!protocol || json::view(*protocol).empty()) {
            out.push_back(field::required(field::child(path, "protocol")));
        } else {
            field::validateEnum(protocol, field::child(path, "protocol"), {"SCTP", "TCP", "UDP"},
                                out);
        }
    }
    return out;
}

// Mirrors ValidateEndpointSliceUpdate: the address type stays.
field::Causes validateEndpointSliceUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out = validateEndpointSlice(obj);
    if (json::stringMember(obj, "addressType") != json::stringMember(old, "addressType")) {
        out.push_back(field::invalid("addressType", json::stringMember(obj, "addressType"),
                                     "field is immutable"));
    }
    return out;
}

}  // namespace

registry::KindInfo endpointSliceKind() {
    registry::KindInfo k;
    k.group = "discovery.k8s.io";
    k.version = "v1";
    k.kind = "EndpointSlice";
    k.resource = "endpointslices";
    k.singular = "endpointslice";
    k.tracksGeneration = true;
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("AddressType", "string",
                          "addressType specifies the type of address carried by this "
                          "EndpointSlice. All addresses in this slice must be the same type. This "
                          "field is immutable after creation. The following address types are "
                          "currently supported: * IPv4: Represents an IPv4 Address. * IPv6: "
                          "Represents an IPv6 Address. * FQDN: Represents a Fully Qualified "
                          "Domain Name.",
                          [](const json::Value& obj, const TableContext&) {
                              return std::string(json::stringMember(obj, "addressType"));
                          }),
        cells::textColumn("Ports", "string",
                          "ports specifies the list of network ports exposed by each endpoint in "
                          "this slice. Each port must have a unique name. When ports is empty, it "
                          "indicates that there are no defined ports. When a port is defined with "
                          "a nil port value, it indicates \"all ports\". Each slice may include a "
                          "maximum of 100 ports.",
                          [](const json::Value& obj, const TableContext&) {
                              return formatPorts(obj);
                          }),
        cells::textColumn("Endpoints", "string",
                          "endpoints is a list of unique endpoints in this slice. Each slice may "
                          "include a maximum of 1000 endpoints.",
                          [](const json::Value& obj, const TableContext&) {
                              return formatEndpoints(obj);
                          }),
        cells::ageColumn(),
    };
    k.defaults = defaultEndpointSlice;
    k.validate = validateEndpointSlice;
    k.validateUpdate = validateEndpointSliceUpdate;
    return k;
}

}  // namespace kube::apis::discovery
