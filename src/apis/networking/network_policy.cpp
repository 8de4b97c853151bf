#include <arpa/inet.h>

#include <array>
#include <optional>
#include <string>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/networking/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::networking {

namespace {

namespace cells = registry::cells;
namespace defaulting = core::defaulting;
namespace field = core::field;
namespace json = util::json;
using registry::TableContext;

// A parsed CIDR: the network address (masked) and the prefix length.
struct Cidr {
    bool v4 = true;
    std::array<uint8_t, 16> ip{};
    int bits = 0;

    // Mirrors net.IPNet.Contains for the network address of `o`.
    bool contains(const Cidr& o) const {
        if (o.v4 != v4) {
            return false;
        }
        for (int i = 0; i < bits; i++) {
            int byte = i / 8;
            int mask = 0x80 >> (i % 8);
            if ((ip[byte] & mask) != (o.ip[byte] & mask)) {
                return false;
            }
        }
        return true;
    }
};

// Go's dtoi as the sloppy IP parser uses it: decimal digits, at least one,
// below 0xFFFFFF. Returns the digits read, 0 on failure.
size_t decimal(std::string_view s, int* n) {
    size_t i = 0;
    *n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        *n = *n * 10 + (s[i] - '0');
        i++;
        if (*n >= 0xFFFFFF) {
            return 0;
        }
    }
    return i;
}

// netutils.ParseIPSloppy for IPv4: four dotted parts, leading zeros allowed.
bool parseIPv4(std::string_view s, std::array<uint8_t, 16>& out) {
    for (int part = 0; part < 4; part++) {
        if (part > 0) {
            if (s.empty() || s[0] != '.') {
                return false;
            }
            s.remove_prefix(1);
        }
        int n = 0;
        size_t used = decimal(s, &n);
        if (used == 0 || n > 0xFF) {
            return false;
        }
        out[static_cast<size_t>(part)] = static_cast<uint8_t>(n);
        s.remove_prefix(used);
    }
    return s.empty();
}

// Mirrors netutils.ParseCIDRSloppy.
std::optional<Cidr> parseCidr(std::string_view s) {
    size_t slash = s.find('/');
    if (slash == std::string_view::npos) {
        return std::nullopt;
    }
    Cidr c;
    std::string_view addr = s.substr(0, slash);
    std::string_view mask = s.substr(slash + 1);
    if (!parseIPv4(addr, c.ip)) {
        c.v4 = false;
        std::string text(addr);
        if (inet_pton(AF_INET6, text.c_str(), c.ip.data()) != 1) {
            return std::nullopt;
        }
    }
    int n = 0;
    size_t used = decimal(mask, &n);
    int maxBits = c.v4 ? 32 : 128;
    if (used == 0 || used != mask.size() || n > maxBits) {
        return std::nullopt;
    }
    c.bits = n;
    for (int i = n; i < maxBits; i++) {
        c.ip[static_cast<size_t>(i / 8)] &= static_cast<uint8_t>(~(0x80 >> (i % 8)));
    }
    return c;
}

// Mirrors SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort: a
// policy naming no types governs ingress, and egress too when it has egress
// rules; ports without a protocol are TCP. The pod selector is a Go struct,
// so it is always there.
void defaultNetworkPolicy(json::Value& obj, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(obj, "spec", a);
    if (!spec.IsObject()) {
        return;
    }
    defaulting::ensureObject(spec, "podSelector", a);
    const json::Value* types = json::member(spec, "policyTypes");
    if (cells::count(types) == 0) {
        json::Value list(rapidjson::kArrayType);
        list.PushBack("Ingress", a);
        if (cells::count(json::member(spec, "egress")) > 0) {
            list.PushBack("Egress", a);
        }
        json::setMember(spec, "policyTypes", std::move(list), a);
    }
    for (const char* direction : {"ingress", "egress"}) {
        defaulting::forEachElement(spec, direction, [&a](json::Value& rule) {
            defaulting::forEachElement(rule, "ports", [&a](json::Value& port) {
                defaulting::setString(port, "protocol", "TCP", a);
            });
        });
    }
}

// "must be between 1 and 65535, inclusive" (IsValidPortNum) for a number.
void validatePortNumber(int64_t n, const std::string& path, field::Causes& out) {
    if (n < 1 || n > 65535) {
        out.push_back(field::invalid(path, n, "must be between 1 and 65535, inclusive"));
    }
}

// Mirrors ValidateNetworkPolicyPort.
void validatePort(const json::Value& port, const std::string& path, field::Causes& out) {
    field::validateEnum(json::member(port, "protocol"), field::child(path, "protocol"),
                        {"TCP", "UDP", "SCTP"}, out);
    const json::Value* number = json::member(port, "port");
    const json::Value* end = json::member(port, "endPort");
    bool hasEnd = end && end->IsInt64();
    std::string portPath = field::child(path, "port");
    std::string endPath = field::child(path, "endPort");
    if (!number || number->IsNull()) {
        if (hasEnd) {
            out.push_back(field::invalid(endPath, end->GetInt64(),
                                         "may not be specified when `port` is not specified"));
        }
        return;
    }
    if (number->IsString()) {
        if (hasEnd) {
            out.push_back(field::invalid(endPath, end->GetInt64(),
                                         "may not be specified when `port` is non-numeric"));
        }
        for (const std::string& msg : field::isValidPortName(json::view(*number))) {
            out.push_back(field::invalid(portPath, json::view(*number), msg));
        }
        return;
    }
    int64_t first = number->IsInt64() ? number->GetInt64() : 0;
    validatePortNumber(first, portPath, out);
    if (hasEnd) {
        if (end->GetInt64() < first) {
            out.push_back(field::invalid(endPath, end->GetInt64(),
                                         "must be greater than or equal to `port`"));
        }
        validatePortNumber(end->GetInt64(), endPath, out);
    }
}

constexpr const char* kBadCidr = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

// Mirrors ValidateIPBlock.
void validateIPBlock(const json::Value& block, const std::string& path, field::Causes& out) {
    std::string_view cidrText = json::stringMember(block, "cidr");
    std::string cidrPath = field::child(path, "cidr");
    if (cidrText.empty()) {
        out.push_back(field::required(cidrPath));
        return;
    }
    std::optional<Cidr> cidr = parseCidr(cidrText);
    if (!cidr) {
        out.push_back(field::invalid(cidrPath, cidrText, kBadCidr));
        return;
    }
    const json::Value* except = json::member(block, "except");
    for (rapidjson::SizeType i = 0; except && except->IsArray() && i < except->Size(); i++) {
        std::string_view text = json::view((*except)[i]);
        std::string exceptPath = field::index(field::child(path, "except"), i);
        std::optional<Cidr> sub = parseCidr(text);
        if (!sub) {
            out.push_back(field::invalid(exceptPath, text, kBadCidr));
            continue;
        }
        if (!cidr->contains(*sub) || cidr->bits >= sub->bits) {
            out.push_back(field::invalid(exceptPath, text, "must be a strict subset of `cidr`"));
        }
    }
}

// Mirrors ValidateNetworkPolicyPeer.
void validatePeer(const json::Value& peer, const std::string& path, bool allowInvalidLabelValues,
                  field::Causes& out) {
    int peers = 0;
    for (const char* selector : {"podSelector", "namespaceSelector"}) {
        const json::Value* s = json::member(peer, selector);
        if (s && !s->IsNull()) {
            peers++;
            field::validateLabelSelector(s, field::child(path, selector), allowInvalidLabelValues,
                                         out);
        }
    }
    const json::Value* block = json::member(peer, "ipBlock");
    bool hasBlock = block && block->IsObject();
    if (hasBlock) {
        peers++;
        validateIPBlock(*block, field::child(path, "ipBlock"), out);
    }
    if (peers == 0) {
        out.push_back(field::required(path, "must specify a peer"));
    } else if (peers > 1 && hasBlock) {
        out.push_back(field::forbidden(path, "may not specify both ipBlock and another peer"));
    }
}

// Go's %#v of the policy types, the bad value when there are too many.
field::BadValue policyTypesGoString(const json::Value& types) {
    std::string out = "[]networking.PolicyType{";
    for (rapidjson::SizeType i = 0; i < types.Size(); i++) {
        out += (i ? ", " : "") + registry::validation::goQuote(json::view(types[i]));
    }
    return field::BadValue::raw(out + "}");
}

// Mirrors ValidateNetworkPolicySpec.
field::Causes validateSpec(const json::Value& obj, bool allowInvalidLabelValues) {
    field::Causes out;
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value* specp = json::member(obj, "spec");
    const json::Value& spec = specp && specp->IsObject() ? *specp : empty;
    field::validateLabelSelector(json::member(spec, "podSelector"), "spec.podSelector",
                                 allowInvalidLabelValues, out);
    for (auto [direction, peers] : {std::pair{"ingress", "from"}, std::pair{"egress", "to"}}) {
        const json::Value* rules = json::member(spec, direction);
        for (rapidjson::SizeType i = 0; rules && rules->IsArray() && i < rules->Size(); i++) {
            const json::Value& rule = (*rules)[i];
            std::string rulePath = field::index(field::child("spec", direction), i);
            const json::Value* ports = json::member(rule, "ports");
            for (rapidjson::SizeType j = 0; ports && ports->IsArray() && j < ports->Size(); j++) {
                validatePort((*ports)[j], field::index(field::child(rulePath, "ports"), j), out);
            }
            const json::Value* list = json::member(rule, peers);
            for (rapidjson::SizeType j = 0; list && list->IsArray() && j < list->Size(); j++) {
                validatePeer((*list)[j], field::index(field::child(rulePath, peers), j),
                             allowInvalidLabelValues, out);
            }
        }
    }
    const json::Value* types = json::member(spec, "policyTypes");
    if (types && types->IsArray()) {
        if (types->Size() > 2) {
            out.push_back(field::invalid("spec.policyTypes", policyTypesGoString(*types),
                                         "may not specify more than two policyTypes"));
            return out;
        }
        for (rapidjson::SizeType i = 0; i < types->Size(); i++) {
            field::validateEnum(&(*types)[i], field::index("spec.policyTypes", i),
                                {"Ingress", "Egress"}, out);
        }
    }
    return out;
}

// Mirrors ValidateNetworkPolicy (the metadata checks are the store's).
field::Causes validateNetworkPolicy(const json::Value& obj) {
    return validateSpec(obj, false);
}

// Mirrors ValidateNetworkPolicyUpdate with ValidationOptionsForNetworking:
// when the stored pod selector already had invalid label values, no
// selector of the policy is held to them.
field::Causes validateNetworkPolicyUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes oldErrors;
    field::validateLabelSelector(json::at(old, {"spec", "podSelector"}), "spec.podSelector", false,
                                 oldErrors);
    return validateSpec(obj, !oldErrors.empty());
}

}  // namespace

registry::KindInfo networkPolicyKind() {
    registry::KindInfo k;
    k.group = "networking.k8s.io";
    k.version = "v1";
    k.kind = "NetworkPolicy";
    k.resource = "networkpolicies";
    k.singular = "networkpolicy";
    k.shortNames = {"netpol"};
    // networkPolicyStrategy starts the generation at 1 and bumps it on
    // spec changes.
    k.tracksGeneration = true;
    k.columns = {
        cells::nameColumn(),
        cells::textColumn(
            "Pod-Selector", "string", "The pods of the namespace the policy applies to.",
            [](const json::Value& obj, const TableContext&) {
                return cells::formatLabelSelector(json::at(obj, {"spec", "podSelector"}));
            }),
        cells::ageColumn(),
    };
    k.defaults = defaultNetworkPolicy;
    k.validate = validateNetworkPolicy;
    k.validateUpdate = validateNetworkPolicyUpdate;
    return k;
}

}  // namespace kube::apis::networking
