#include <string>
#include <vector>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;

std::string hostPort(std::string_view ip, int64_t port) {
    bool v6 = ip.find(':') != std::string_view::npos;
    return (v6 ? "[" + std::string(ip) + "]" : std::string(ip)) + ":" + std::to_string(port);
}

// Mirrors the printer's formatEndpoints: up to three ip:port pairs, then
// " + N more...".
std::string formatEndpoints(const json::Value& obj) {
    const json::Value* subsets = json::member(obj, "subsets");
    if (!subsets || !subsets->IsArray() || subsets->Empty()) {
        return "<none>";
    }
    constexpr size_t max = 3;
    std::vector<std::string> list;
    bool more = false;
    size_t count = 0;
    for (const auto& ss : subsets->GetArray()) {
        const json::Value* addrs = json::member(ss, "addresses");
        const json::Value* ports = json::member(ss, "ports");
        size_t naddr = addrs && addrs->IsArray() ? addrs->Size() : 0;
        if (!ports || !ports->IsArray() || ports->Empty()) {
            count += naddr;  // headless services may have no ports
            for (size_t i = 0; i < naddr; i++) {
                if (list.size() == max) {
                    more = true;
                    break;
                }
                list.emplace_back(
                    json::stringMember((*addrs)[static_cast<rapidjson::SizeType>(i)], "ip"));
            }
            continue;
        }
        for (const auto& p : ports->GetArray()) {
            count += naddr;
            for (size_t i = 0; i < naddr; i++) {
                if (list.size() == max) {
                    more = true;
                    break;
                }
                list.push_back(hostPort(
                    json::stringMember((*addrs)[static_cast<rapidjson::SizeType>(i)], "ip"),
                    cells::integer(p, {"port"})));
            }
        }
    }
    std::string out;
    for (const auto& s : list) {
        out += out.empty() ? s : "," + s;
    }
    if (more) {
        out += " + " + std::to_string(count - max) + " more...";
    }
    return out;
}

void defaultEndpoints(json::Value& obj, json::Allocator& a) {
    defaulting::forEachElement(obj, "subsets", [&](json::Value& ss) {
        defaulting::forEachElement(
            ss, "ports", [&](json::Value& p) { defaulting::setString(p, "protocol", "TCP", a); });
    });
}

field::Causes validateEndpoints(const json::Value& obj) {
    field::Causes out;
    const json::Value* subsets = json::member(obj, "subsets");
    if (!subsets || !subsets->IsArray()) {
        return out;
    }
    for (size_t i = 0; i < subsets->Size(); i++) {
        const json::Value& ss = (*subsets)[static_cast<rapidjson::SizeType>(i)];
        std::string sp = field::index("subsets", i);
        const json::Value* ports = json::member(ss, "ports");
        if (!ports || !ports->IsArray()) {
            continue;
        }
        for (size_t j = 0; j < ports->Size(); j++) {
            const json::Value& p = (*ports)[static_cast<rapidjson::SizeType>(j)];
            std::string pp = field::index(field::child(sp, "ports"), j);
            const json::Value* port = json::member(p, "port");
            if (!port) {
                out.push_back(field::invalid(field::child(pp, "port"), 0,
                                             "must be between 1 and 65535, inclusive"));
            }
            field::validatePortNumber(port, field::child(pp, "port"), out);
            field::validateEnum(json::member(p, "protocol"), field::child(pp, "protocol"),
                                {"SCTP", "TCP", "UDP"}, out);
        }
    }
    return out;
}

}  // namespace

registry::KindInfo endpointsKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "Endpoints";
    k.resource = "endpoints";
    k.singular = "endpoints";
    k.shortNames = {"ep"};
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Endpoints", "string", "The addresses and ports of the endpoints.",
                          [](const json::Value& obj, const registry::TableContext&) {
                              return formatEndpoints(obj);
                          }),
        cells::ageColumn(),
    };
    k.defaults = defaultEndpoints;
    k.validate = validateEndpoints;
    return k;
}

}  // namespace kube::apis::core
