#pragma once

#include <string_view>

#include "util/json.hpp"

// Members of a decoded CustomResourceDefinition, read as Go reads its typed
// fields: an absent member, a null and a member of the wrong JSON type are
// all the zero value (the decoder has already refused wrong types).
namespace kube::apis::apiextensions {

// Member `name` of an object; null when `v` is no object or the member is
// absent or null (a nil Go pointer).
inline const util::json::Value* member(const util::json::Value* v, std::string_view name) {
    if (!v || !v->IsObject()) {
        return nullptr;
    }
    const util::json::Value* m = util::json::member(*v, name);
    return m && !m->IsNull() ? m : nullptr;
}

inline const util::json::Value* member(const util::json::Value& v, std::string_view name) {
    return member(&v, name);
}

// A string member; "" otherwise.
inline std::string_view text(const util::json::Value* v, std::string_view name) {
    const util::json::Value* m = member(v, name);
    return m && m->IsString() ? util::json::view(*m) : std::string_view();
}

inline std::string_view text(const util::json::Value& v, std::string_view name) {
    return text(&v, name);
}

// A boolean member that is true.
inline bool isTrue(const util::json::Value* v, std::string_view name) {
    const util::json::Value* m = member(v, name);
    return m && m->IsBool() && m->GetBool();
}

inline bool isTrue(const util::json::Value& v, std::string_view name) {
    return isTrue(&v, name);
}

// An object member; null otherwise.
inline const util::json::Value* objectAt(const util::json::Value* v, std::string_view name) {
    const util::json::Value* m = member(v, name);
    return m && m->IsObject() ? m : nullptr;
}

inline const util::json::Value* objectAt(const util::json::Value& v, std::string_view name) {
    return objectAt(&v, name);
}

// An array member; null otherwise.
inline const util::json::Value* arrayAt(const util::json::Value* v, std::string_view name) {
    const util::json::Value* m = member(v, name);
    return m && m->IsArray() ? m : nullptr;
}

inline const util::json::Value* arrayAt(const util::json::Value& v, std::string_view name) {
    return arrayAt(&v, name);
}

}  // namespace kube::apis::apiextensions
