#pragma once

#include <string_view>

#include "util/json.hpp"

// Building blocks for the kinds' SetDefaults_* functions on decoded JSON. A
// member counts as unset when absent or null, as a nil pointer or zero
// value does after Go decoding.
namespace kube::apis::core::defaulting {

namespace json = util::json;

bool isUnset(const json::Value& obj, std::string_view name);

// Set `name` to `value` when unset; return the member either way. For
// string fields "" is unset too (Go's zero value). When `obj` is not an
// object nothing is set and a null Value is returned.
json::Value& setDefault(json::Value& obj, std::string_view name, json::Value value,
                        json::Allocator& a);
json::Value& setString(json::Value& obj, std::string_view name, std::string_view value,
                       json::Allocator& a);
json::Value& setInt(json::Value& obj, std::string_view name, int64_t value, json::Allocator& a);
json::Value& setBool(json::Value& obj, std::string_view name, bool value, json::Allocator& a);

// The object member `name`, created as {} when unset (a non-pointer Go
// struct is always there to default). A member of another type is returned
// as it is; callers check IsObject() before descending.
json::Value& ensureObject(json::Value& obj, std::string_view name, json::Allocator& a);

// Applies `fn` to every object element of the array member `name`.
template <class Fn>
void forEachElement(json::Value& obj, std::string_view name, Fn fn) {
    json::Value* arr = json::member(obj, name);
    if (!arr || !arr->IsArray()) {
        return;
    }
    for (auto& e : arr->GetArray()) {
        if (e.IsObject()) {
            fn(e);
        }
    }
}

}  // namespace kube::apis::core::defaulting
