#include "registry/patch/patch_document.hpp"

#include <unordered_map>

namespace kube::registry::patch {

namespace json = util::json;

void discardNulls(json::Value& v) {
    if (v.IsObject()) {
        auto it = v.MemberBegin();
        while (it != v.MemberEnd()) {
            if (it->value.IsNull()) {
                it = v.EraseMember(it);
            } else {
                discardNulls(it->value);
                ++it;
            }
        }
    } else if (v.IsArray()) {
        for (auto& item : v.GetArray()) {
            discardNulls(item);
        }
    }
}

std::string childPath(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

void dropDuplicateFields(json::Value& v, const std::string& path,
                         std::vector<std::string>* errors) {
    if (v.IsArray()) {
        for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
            dropDuplicateFields(v[i], path + "[" + std::to_string(i) + "]", errors);
        }
        return;
    }
    if (!v.IsObject()) {
        return;
    }
    // Go decodes members in order: a repeated key is reported when it is met
    // again, after the members of its first value, and its value replaces the
    // earlier one.
    std::unordered_map<std::string_view, rapidjson::SizeType> first;
    auto it = v.MemberBegin();
    while (it != v.MemberEnd()) {
        std::string_view name = json::view(it->name);
        std::string here = childPath(path, name);
        auto seen = first.find(name);
        if (seen == first.end()) {
            dropDuplicateFields(it->value, here, errors);
            first.emplace(name, static_cast<rapidjson::SizeType>(it - v.MemberBegin()));
            ++it;
            continue;
        }
        if (errors) {
            errors->push_back("duplicate field \"" + here + "\"");
        }
        dropDuplicateFields(it->value, here, errors);
        (v.MemberBegin() + seen->second)->value = std::move(it->value);
        it = v.EraseMember(it);
    }
}

std::optional<std::string> decodePatchMap(std::string_view body, json::Document& out,
                                          std::vector<std::string>* strictErrors) {
    if (auto err = json::parse(body, out)) {
        return err;
    }
    if (!out.IsObject() && !out.IsNull()) {
        return "json: cannot unmarshal " + std::string(json::typeName(out)) +
               " into Go value of type map[string]interface {}";
    }
    dropDuplicateFields(out, "", strictErrors);
    return std::nullopt;
}

}  // namespace kube::registry::patch
