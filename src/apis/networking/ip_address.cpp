#include <cctype>
#include <string>

#include "apis/core/field_errors.hpp"
#include "apis/networking/kinds.hpp"
#include "registry/ip_validation.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::networking {

namespace {

namespace cells = registry::cells;
namespace field = core::field;
namespace json = util::json;
namespace validation = registry::validation;
using registry::TableContext;

const json::Value* parentRefOf(const json::Value& obj) {
    const json::Value* ref = json::at(obj, {"spec", "parentRef"});
    return ref && ref->IsObject() ? ref : nullptr;
}

// Go's %#v of the internal *ParentReference, the bad value of an
// immutability error.
field::BadValue parentRefValue(const json::Value* ref) {
    if (!ref) {
        return field::BadValue::raw("(*networking.ParentReference)(nil)");
    }
    std::string out = "&networking.ParentReference{";
    const char* sep = "";
    for (auto [member, goName] : {std::pair{"group", "Group"}, {"resource", "Resource"},
                                  {"namespace", "Namespace"}, {"name", "Name"}}) {
        out += sep;
        out += goName;
        out += ":" + validation::goQuote(cells::text(*ref, {member}));
        sep = ", ";
    }
    return field::BadValue::raw(out + "}");
}

void validatePathSegment(const json::Value& ref, std::string_view member, const std::string& path,
                         bool required, field::Causes& out) {
    std::string_view v = cells::text(ref, {member});
    std::string p = field::child(path, member);
    if (v.empty()) {
        if (required) {
            out.push_back(field::required(p));
        }
        return;
    }
    for (const std::string& msg : validation::isValidPathSegmentName(v)) {
        out.push_back(field::invalid(p, v, msg));
    }
}


// Mirrors ValidateIPAddress with ValidateIPAddressName and
// validateIPAddressParentReference (the other metadata checks are the
// store's).
std::vector<meta::StatusCause> validateIPAddress(const json::Value& obj) {
    field::Causes out;
    std::string_view name = cells::text(obj, {"metadata", "name"});
    for (const std::string& msg : validation::isValidCanonicalIP(name)) {
        out.push_back(field::invalid("metadata.name", name, msg));
    }
    const json::Value* ref = parentRefOf(obj);
    if (!ref) {
        out.push_back(field::required("spec.parentRef"));
        return out;
    }
    const std::string path = "spec.parentRef";
    // group may be empty: the core group of Services
    if (std::string_view group = cells::text(*ref, {"group"}); !group.empty()) {
        for (const std::string& msg : validation::isDNS1123Subdomain(group)) {
            out.push_back(field::invalid(path + ".group", group, msg));
        }
    }
    validatePathSegment(*ref, "resource", path, true, out);
    validatePathSegment(*ref, "name", path, true, out);
    validatePathSegment(*ref, "namespace", path, false, out);
    return out;
}

// Mirrors the strategy's ValidateUpdate: the object's checks, then that the
// parentRef stays.
std::vector<meta::StatusCause> validateIPAddressUpdate(const json::Value& obj,
                                                       const json::Value& old) {
    field::Causes out = validateIPAddress(obj);
    const json::Value* now = parentRefOf(obj);
    const json::Value* was = parentRefOf(old);
    bool same = !now ? !was : was && *now == *was;
    if (!same) {
        out.push_back(field::invalid("spec.parentRef", parentRefValue(now), "field is immutable"));
    }
    return out;
}

}  // namespace

// One allocated IP address, named by the address. With the bitmap allocator
// (kube's MultiCIDRServiceAllocator off) the server makes none; they are
// stored and shown as written.
registry::KindInfo ipAddressKind() {
    registry::KindInfo k;
    k.group = "networking.k8s.io";
    k.version = "v1";
    k.kind = "IPAddress";
    k.resource = "ipaddresses";
    k.singular = "ipaddress";
    k.namespaced = false;
    k.shortNames = {"ip"};
    // a path segment for the store; the address checks are validate's
    k.nameRule = registry::NameRule::PathSegment;
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("ParentRef", "string",
                          "ParentRef references the resource that an IPAddress is attached to. An "
                          "IPAddress must reference a parent object.",
                          [](const json::Value& obj, const TableContext&) -> std::string {
                              // printIPAddress: <resource>[.<group>][/<namespace>]/<name>
                              const json::Value* ref = parentRefOf(obj);
                              if (!ref) {
                                  return "<none>";
                              }
                              std::string out(cells::text(*ref, {"resource"}));
                              if (std::string_view g = cells::text(*ref, {"group"}); !g.empty()) {
                                  out += "." + std::string(g);
                              }
                              for (char& c : out) {
                                  c = char(std::tolower(static_cast<unsigned char>(c)));
                              }
                              if (std::string_view ns = cells::text(*ref, {"namespace"});
                                  !ns.empty()) {
                                  out += "/" + std::string(ns);
                              }
                              return out + "/" + std::string(cells::text(*ref, {"name"}));
                          }),
        cells::ageColumn(),
    };
    k.validate = validateIPAddress;
    k.validateUpdate = validateIPAddressUpdate;
    return k;
}

}  // namespace kube::apis::networking
