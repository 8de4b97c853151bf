#include <algorithm>

#include "apis/core/field_errors.hpp"
#include "apis/core/kinds.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace {

namespace cells = registry::cells;
namespace json = util::json;

// The maximum total size of a ConfigMap's or Secret's values (core.MaxSecretSize).
constexpr size_t maxDataBytes = 1024 * 1024;

// The byte count of a base64 value (binaryData is counted decoded).
size_t decodedSize(std::string_view b64) {
    size_t pad = 0;
    while (pad < 2 && pad < b64.size() && b64[b64.size() - 1 - pad] == '=') {
        pad++;
    }
    return b64.size() / 4 * 3 - std::min(pad, b64.size() / 4 * 3);
}

// Mirrors ValidateConfigMap: valid keys, no key in both maps, 1 MiB total.
field::Causes validateConfigMap(const json::Value& obj) {
    field::Causes out;
    const json::Value* data = json::member(obj, "data");
    const json::Value* binary = json::member(obj, "binaryData");
    size_t total = 0;
    auto check = [&](const json::Value* bag, const json::Value* other, const char* path,
                     const char* otherName) {
        if (!bag || !bag->IsObject()) {
            return;
        }
        for (const auto& m : bag->GetObject()) {
            std::string_view k = json::view(m.name);
            std::string p = field::key(path, k);
            for (const std::string& msg : registry::validation::isConfigMapKey(k)) {
                out.push_back(field::invalid(p, k, msg));
            }
            if (other && json::member(*other, k)) {
                out.push_back(
                    field::invalid(p, k, std::string("duplicate of key present in ") + otherName));
            }
            total += bag == binary ? decodedSize(json::view(m.value)) : json::view(m.value).size();
        }
    };
    check(data, binary, "data", "binaryData");
    check(binary, data, "binaryData", "data");
    if (total > maxDataBytes) {
        // The path is empty: the error is about the whole object.
        out.push_back(field::tooLong("", maxDataBytes));
    }
    return out;
}

// Mirrors ValidateConfigMapUpdate: an immutable ConfigMap's data stays.
field::Causes validateConfigMapUpdate(const json::Value& obj, const json::Value& old) {
    field::Causes out;
    field::validateImmutableWhenSet(obj, old, {"data", "binaryData"}, out);
    for (meta::StatusCause& c : validateConfigMap(obj)) {
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace

registry::KindInfo configMapKind() {
    registry::KindInfo k;
    k.version = "v1";
    k.kind = "ConfigMap";
    k.resource = "configmaps";
    k.singular = "configmap";
    k.shortNames = {"cm"};
    k.columns = {
        cells::nameColumn(),
        cells::countColumn("Data", "string", "The number of keys in data and binaryData.",
                           [](const json::Value& obj) {
                               return cells::count(json::member(obj, "data")) +
                                      cells::count(json::member(obj, "binaryData"));
                           }),
        cells::ageColumn(),
    };
    k.validate = validateConfigMap;
    k.validateUpdate = validateConfigMapUpdate;
    return k;
}

}  // namespace kube::apis::core
