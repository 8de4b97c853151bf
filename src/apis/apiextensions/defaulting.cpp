#include "apis/apiextensions/defaulting.hpp"

namespace kube::apis::apiextensions {

namespace json = util::json;

namespace {

// isNonNullableNull: a null the schema does not allow.
bool nonNullableNull(const json::Value& x, const StructuralNode* s) {
    return x.IsNull() && s && !s->nullable;
}

// Mirrors structuraldefaulting.Default; recursion per level of both the
// object and the schema (the caller gives it a stack for that).
void applyDefaults(json::Value& x, const StructuralNode* s, json::Allocator& a) {
    if (!s) {
        return;
    }
    if (x.IsObject()) {
        for (const auto& [name, prop] : s->properties) {
            if (!prop->defaultValue) {
                continue;
            }
            json::Value* v = json::member(x, name);
            if (!v) {
                x.AddMember(json::stringValue(name, a), json::Value(*prop->defaultValue, a), a);
            } else if (nonNullableNull(*v, prop)) {
                v->CopyFrom(*prop->defaultValue, a);
            }
        }
        for (auto& m : x.GetObject()) {
            std::string_view k = json::view(m.name);
            if (const StructuralNode* p = s->property(k)) {
                applyDefaults(m.value, p, a);
            } else if (s->hasAdditionalProperties) {
                const StructuralNode* ap = s->additionalProperties;
                if (nonNullableNull(m.value, ap) && ap->defaultValue) {
                    m.value.CopyFrom(*ap->defaultValue, a);
                }
                applyDefaults(m.value, ap, a);
            }
        }
    } else if (x.IsArray()) {
        const StructuralNode* items = s->items;
        for (json::Value& item : x.GetArray()) {
            if (nonNullableNull(item, items) && items->defaultValue) {
                item.CopyFrom(*items->defaultValue, a);
            }
            applyDefaults(item, items, a);
        }
    }
}

}  // namespace

void defaultCustomResource(const StructuralSchema& s, json::Value& obj, json::Allocator& a) {
    s.walk(obj, [&] { applyDefaults(obj, &s.root(), a); });
}

}  // namespace kube::apis::apiextensions
