#include <string>

#include "apis/core/defaulting.hpp"
#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;

std::string base64(std::string_view in) {
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
        for (int shift : {18, 12, 6, 0}) {
            out += alphabet[(n >> shift) & 63];
        }
    }
    if (i < in.size()) {
        uint32_t n = uint8_t(in[i]) << 16;
        if (i + 1 < in.size()) {
            n |= uint8_t(in[i + 1]) << 8;
        }
        out += alphabet[(n >> 18) & 63];
        out += alphabet[(n >> 12) & 63];
        out += i + 1 < in.size() ? alphabet[(n >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

// SetDefaults_Secret, plus what v1 conversion does with stringData: its
// entries are written into data (base64), overriding keys present in both.
void defaultSecret(json::Value& obj, json::Allocator& a) {
    defaulting::setString(obj, "type", "Opaque", a);
    const json::Value* given = json::member(obj, "stringData");
    if (!given) {
        return;
    }
    if (given->IsObject() && given->MemberCount() > 0) {
        defaulting::ensureObject(obj, "data", a);
        // Looked up after adding "data", which may move obj's members.
        json::Value& data = obj["data"];
        const json::Value& stringData = obj["stringData"];
        for (const auto& m : stringData.GetObject()) {
            if (!data.IsObject()) {
                break;
            }
            json::setMember(data, json::view(m.name),
                            json::stringValue(base64(json::view(m.value)), a), a);
        }
    }
    json::removeMember(obj, "stringData");
}

void requireKeys(const json::Value* data, std::initializer_list<std::string_view> keys,
                 field::Causes& out) {
    for (std::string_view k : keys) {
        if (!data || !json::member(*data, k)) {
            out.push_back(field::required(field::key("data", k)));
        }
    }
}

// Mirrors ValidateSecret: valid keys, 1 MiB total, the keys each type needs.
field::Causes validateSecret(const json::Value& obj) {
    field::Causes out;
    const json::Value* data = json::member(obj, "data");
    size_t total = 0;
    if (data && data->IsObject()) {
        for (const auto& m : data->GetObject()) {
            std::string_view k = json::view(m.name);
            for (const std::string& msg : registry::validation::isConfigMapKey(k)) {
                out.push_back(field::invalid(field::key("data", k), k, msg));
            }
            total += json::view(m.value).size() / 4 * 3;
        }
    }
    if (total > 1024 * 1024) {
        out.push_back(field::tooLong("data", 1024 * 1024));
    }
    std::string_view type = json::stringMember(obj, "type");
    if (type == "kubernetes.io/service-account-token") {
        if (cells::text(obj, {"metadata", "annotations", "kubernetes.io/service-account.name"})
                .empty()) {
            out.push_back(field::required(
                field::key("metadata.annotations", "kubernetes.io/service-account.name")));
        }
    } else if (type == "kubernetes.io/dockercfg") {
        requireKeys(data, {".dockercfg"}, out);
    } else if (type == "kubernetes.io/dockerconfigjson") {
        requireKeys(data, {".dockerconfigjson"}, out);
    } else if (type == "kubernetes.io/basic-auth") {
        if (!data || (!json::member(*data, "username") && !json::member(*data, "password"))) {
            requireKeys(nullptr, {"username", "password"}, out);
        }
    } else if (type == "kubernetes.io/ssh-auth") {
        if (cells::text(obj, {"data", "ssh-privatekey"}).empty()) {
            requireKeys(nullptr, {"ssh-privatekey"}, out);
        }
    } else if (type == "kubernetes.io/tls") {
        requireKeys(data, {"tls.crt", "tls.key"}, out);
    }
    return out;
}

// Mirrors ValidateSecretUpdate: the type never changes, an immutable
// Secret's data stays (stringData is already merged into data).
field::Causes validateSecretUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out;
    if (!field::sameMember(obj, old, "type")) {
        out.push_back(field::invalid("type", json::stringMember(obj, "type"), "field is immutable"));
    }
    field::validateImmutableWhenSet(obj, old, {"data"}, out);
    for (meta::StatusCause& c : validateSecret(obj)) {
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace

registry::KindInfo secretKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "Secret";
    k.resource = "secrets";
    k.singular = "secret";
    k.columns = {
        cells::nameColumn(),
        cells::textColumn("Type", "string",
                          "Used to facilitate programmatic handling of secret data.",
                          [](const json::Value& obj, const registry::TableContext&) {
                              return std::string(json::stringMember(obj, "type"));
                          }),
        cells::countColumn(
            "Data", "string", "The number of keys in data.",
            [](const json::Value& obj) { return cells::count(json::member(obj, "data")); }),
        cells::ageColumn(),
    };
    k.defaults = defaultSecret;
    k.validate = validateSecret;
    k.validateUpdate = validateSecretUpdate;
    k.selectableFields = {{"metadata.name"}, {"metadata.namespace"}, {"type"}};
    return k;
}

}  // namespace kube::apis::core
