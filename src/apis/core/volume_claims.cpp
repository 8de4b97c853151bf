#include "apis/core/volume_claims.hpp"

#include "apis/core/defaulting.hpp"
#include "registry/table_cells.hpp"

namespace kube::apis::core {

namespace cells = registry::cells;

void defaultClaimSpecAndStatus(json::Value& claim, json::Allocator& a) {
    json::Value& spec = defaulting::ensureObject(claim, "spec", a);
    defaulting::setString(spec, "volumeMode", "Filesystem", a);
    json::Value& status = defaulting::ensureObject(claim, "status", a);
    defaulting::setString(status, "phase", "Pending", a);
}

void validateAccessModes(const json::Value* modes, const std::string& path, field::Causes& out) {
    if (!modes || !modes->IsArray()) {
        return;
    }
    for (const auto& m : modes->GetArray()) {
        field::validateEnum(
            &m, path, {"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}, out);
    }
}

void validateClaimSpec(const json::Value* spec, const std::string& path, field::Causes& out) {
    static const json::Value empty(rapidjson::kObjectType);
    const json::Value& s = spec && spec->IsObject() ? *spec : empty;
    const json::Value* modes = json::member(s, "accessModes");
    if (cells::count(modes) == 0) {
        out.push_back(field::required(field::child(path, "accessModes"),
                                      "at least 1 access mode is required"));
    }
    validateAccessModes(modes, field::child(path, "accessModes"), out);
    if (!json::at(s, {"resources", "requests", "storage"})) {
        out.push_back(field::required(field::key(field::child(path, "resources"), "storage")));
    }
}

std::string accessModes(const json::Value* modes) {
    auto has = [&](std::string_view mode) {
        if (modes && modes->IsArray()) {
            for (const auto& m : modes->GetArray()) {
                if (json::view(m) == mode) {
                    return true;
                }
            }
        }
        return false;
    };
    std::string out;
    for (auto [mode, abbrev] :
         {std::pair<std::string_view, std::string_view>{"ReadWriteOnce", "RWO"},
          {"ReadOnlyMany", "ROX"},
          {"ReadWriteMany", "RWX"},
          {"ReadWriteOncePod", "RWOP"}}) {
        if (has(mode)) {
            out += out.empty() ? std::string(abbrev) : "," + std::string(abbrev);
        }
    }
    return out;
}

std::string storageClass(const json::Value& obj) {
    const json::Value* ann =
        json::at(obj, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"});
    if (ann && ann->IsString()) {
        return std::string(json::view(*ann));
    }
    return std::string(cells::text(obj, {"spec", "storageClassName"}));
}

std::string textOrUnset(const json::Value& obj, std::initializer_list<std::string_view> path) {
    const json::Value* v = json::at(obj, path);
    return v && v->IsString() ? std::string(json::view(*v)) : "<unset>";
}

registry::TableColumn volumeModeColumn() {
    return cells::textColumn(
        "VolumeMode", "string", "Whether the volume is a filesystem or a block device.",
        [](const json::Value& obj, const registry::TableContext&) {
            return textOrUnset(obj, {"spec", "volumeMode"});
        },
        1);
}

}  // namespace kube::apis::core
