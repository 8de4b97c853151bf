#include "apis/core/defaulting.hpp"

namespace kube::apis::core::defaulting {

bool isUnset(const json::Value& obj, std::string_view name) {
    const json::Value* v = json::member(obj, name);
    return !v || v->IsNull();
}

json::Value& setDefault(json::Value& obj, std::string_view name, json::Value value,
                        json::Allocator& a) {
    if (!obj.IsObject()) {
        // Malformed input (a string where an object belongs): leave it to
        // validation, and hand back a null the caller's next steps ignore.
        thread_local json::Value sink;
        sink.SetNull();
        return sink;
    }
    if (isUnset(obj, name)) {
        json::setMember(obj, name, std::move(value), a);
    }
    return *json::member(obj, name);
}

json::Value& setString(json::Value& obj, std::string_view name, std::string_view value,
                       json::Allocator& a) {
    if (const json::Value* v = json::member(obj, name);
        v && v->IsString() && v->GetStringLength() == 0) {
        json::removeMember(obj, name);
    }
    return setDefault(obj, name, json::stringValue(value, a), a);
}

json::Value& setInt(json::Value& obj, std::string_view name, int64_t value, json::Allocator& a) {
    return setDefault(obj, name, json::Value(value), a);
}

json::Value& setBool(json::Value& obj, std::string_view name, bool value, json::Allocator& a) {
    return setDefault(obj, name, json::Value(value), a);
}

json::Value& ensureObject(json::Value& obj, std::string_view name, json::Allocator& a) {
    json::Value& v = setDefault(obj, name, json::Value(rapidjson::kObjectType), a);
    return v;
}

}  // namespace kube::apis::core::defaulting
