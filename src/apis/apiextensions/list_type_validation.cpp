// Uniqueness of x-kubernetes-list-type set items and map keys; mirrors
// apiserver/schema/listtype.ValidateListSetsAndMaps.
#include <map>
#include <unordered_map>

#include "apis/apiextensions/structural_walks.hpp"
#include "registry/validation.hpp"

namespace kube::apis::apiextensions::structural {

namespace {

namespace field = core::field;

// A Go map key for an item: scalars compare as Go interface values (an
// int64 never equals a float64), compounds by their JSON.
std::string itemKey(const json::Value& v) {
    if (v.IsObject() || v.IsArray()) {
        return "c" + goMarshal(v);
    }
    if (v.IsNull()) {
        return "n";
    }
    if (v.IsBool()) {
        return v.GetBool() ? "bt" : "bf";
    }
    if (v.IsString()) {
        return "s" + std::string(json::view(v));
    }
    if (v.IsInt64()) {
        return "i" + std::to_string(v.GetInt64());
    }
    return "f" + goMarshal(v);
}

// validateListSet: the index of each item's second appearance.
std::vector<size_t> nonUnique(const std::vector<std::string>& keys) {
    std::vector<size_t> out;
    if (keys.size() <= 1) {
        return out;
    }
    std::unordered_map<std::string, int> seen;
    for (size_t i = 0; i < keys.size(); ++i) {
        int& times = seen[keys[i]];
        if (++times == 2) {
            out.push_back(i);
        }
    }
    return out;
}

void walk(const FieldPath& pth, const StructuralNode& s, const json::Value& obj,
          field::Causes& out);

void validateArray(const FieldPath& pth, const StructuralNode& s, const json::Value& arr,
                   field::Causes& out) {
    if (s.listType == "set") {
        std::vector<std::string> keys;
        keys.reserve(arr.Size());
        for (const json::Value& x : arr.GetArray()) {
            keys.push_back(itemKey(x));
        }
        for (size_t i : nonUnique(keys)) {
            out.push_back(field::duplicate(pth.index(i).str(), goValue(arr[i])));
        }
    } else if (s.listType == "map") {
        bool objects = true;
        for (rapidjson::SizeType i = 0; i < arr.Size() && objects; ++i) {
            if (!arr[i].IsNull() && !arr[i].IsObject()) {
                out.push_back(field::invalid(pth.index(i).str(), goValue(arr[i]),
                                             "must be an object for an array of list-type map"));
                objects = false;
            }
        }
        if (objects && arr.Size() > 1) {
            // The key of each item: the values of its key fields, as a map.
            std::vector<std::string> keys;
            std::vector<std::string> shown;
            for (const json::Value& x : arr.GetArray()) {
                std::string key;
                std::map<std::string_view, std::string> present;
                bool single = s.listMapKeys.size() == 1;
                for (const std::string& f : s.listMapKeys) {
                    const json::Value* v = x.IsObject() ? json::member(x, f) : nullptr;
                    if (!v) {
                        key += single ? "u" : "-";
                        continue;
                    }
                    std::string k = itemKey(*v);
                    key += std::to_string(k.size()) + ":" + k;
                    present[f] = goSharpV(*v);
                }
                std::string show;
                for (const auto& [f, v] : present) {
                    show += (show.empty() ? "" : ", ") + registry::validation::goQuote(f) + ":" + v;
                }
                keys.push_back(std::move(key));
                shown.push_back(std::move(show));
            }
            for (size_t i : nonUnique(keys)) {
                out.push_back(field::duplicate(
                    pth.index(i).str(),
                    core::field::BadValue::raw("map[string]interface {}{" + shown[i] + "}")));
            }
        }
    }
    if (s.items) {
        for (rapidjson::SizeType i = 0; i < arr.Size(); ++i) {
            const json::Value& x = arr[i];
            if (x.IsArray()) {
                validateArray(pth.index(i), *s.items, x, out);
            } else if (x.IsObject()) {
                walk(pth.index(i), *s.items, x, out);
            }
        }
    }
}

void walk(const FieldPath& pth, const StructuralNode& s, const json::Value& obj,
          field::Causes& out) {
    auto visit = [&](const FieldPath& p, const StructuralNode& sub, const json::Value& v) {
        if (v.IsArray()) {
            validateArray(p, sub, v, out);
        } else if (v.IsObject()) {
            walk(p, sub, v, out);
        }
    };
    if (s.additionalProperties) {
        for (const auto& m : obj.GetObject()) {
            visit(pth.key(json::view(m.name)), *s.additionalProperties, m.value);
        }
    }
    if (!s.properties.empty()) {
        for (const auto& m : obj.GetObject()) {
            if (const StructuralNode* sub = s.property(json::view(m.name))) {
                visit(pth.child(json::view(m.name)), *sub, m.value);
            }
        }
    }
}

}  // namespace

void validateListSetsAndMaps(const FieldPath& pth, const StructuralNode& s, const json::Value& obj,
                             field::Causes& out) {
    if (obj.IsObject()) {
        walk(pth, s, obj, out);
    }
}

}  // namespace kube::apis::apiextensions::structural
