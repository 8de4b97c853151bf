#include "cel/type.hpp"

#include <optional>

#include "cel/escaping.hpp"

namespace kube::cel {

namespace {

TypePtr simple(TypeKind kind) {
    auto t = std::make_shared<Type>();
    t->kind = kind;
    return t;
}

}  // namespace

#define KUBE_CEL_SIMPLE_TYPE(fn, kind)         \
    TypePtr Type::fn() {                       \
        static const TypePtr t = simple(kind); \
        return t;                              \
    }
KUBE_CEL_SIMPLE_TYPE(dyn, TypeKind::Dyn)
KUBE_CEL_SIMPLE_TYPE(null, TypeKind::Null)
KUBE_CEL_SIMPLE_TYPE(boolean, TypeKind::Bool)
KUBE_CEL_SIMPLE_TYPE(integer, TypeKind::Int)
KUBE_CEL_SIMPLE_TYPE(uinteger, TypeKind::Uint)
KUBE_CEL_SIMPLE_TYPE(dbl, TypeKind::Double)
KUBE_CEL_SIMPLE_TYPE(string, TypeKind::String)
KUBE_CEL_SIMPLE_TYPE(bytes, TypeKind::Bytes)
KUBE_CEL_SIMPLE_TYPE(duration, TypeKind::Duration)
KUBE_CEL_SIMPLE_TYPE(timestamp, TypeKind::Timestamp)
KUBE_CEL_SIMPLE_TYPE(type, TypeKind::Type)
KUBE_CEL_SIMPLE_TYPE(url, TypeKind::Url)
KUBE_CEL_SIMPLE_TYPE(error, TypeKind::Error)
#undef KUBE_CEL_SIMPLE_TYPE

TypePtr Type::param(std::string name) {
    auto t = std::make_shared<Type>();
    t->kind = TypeKind::Param;
    t->name = std::move(name);
    return t;
}

TypePtr Type::typeOf(TypePtr of) {
    auto t = std::make_shared<Type>();
    t->kind = TypeKind::Type;
    t->elem = std::move(of);
    return t;
}

TypePtr Type::list(TypePtr elem) {
    auto t = std::make_shared<Type>();
    t->kind = TypeKind::List;
    t->elem = std::move(elem);
    return t;
}

TypePtr Type::map(TypePtr key, TypePtr elem) {
    auto t = std::make_shared<Type>();
    t->kind = TypeKind::Map;
    t->key = std::move(key);
    t->elem = std::move(elem);
    return t;
}

std::string Type::toString() const {
    switch (kind) {
        case TypeKind::Dyn:
            return "dyn";
        case TypeKind::Null:
            return "null";
        case TypeKind::Bool:
            return "bool";
        case TypeKind::Int:
            return "int";
        case TypeKind::Uint:
            return "uint";
        case TypeKind::Double:
            return "double";
        case TypeKind::String:
            return "string";
        case TypeKind::Bytes:
            return "bytes";
        case TypeKind::Duration:
            return "duration";
        case TypeKind::Timestamp:
            return "timestamp";
        case TypeKind::List:
            return "list(" + elem->toString() + ")";
        case TypeKind::Map:
            return "map(" + key->toString() + ", " + elem->toString() + ")";
        case TypeKind::Object:
        case TypeKind::Param:
            return name;
        case TypeKind::Type:
            return elem ? "type(" + elem->toString() + ")" : "type";
        case TypeKind::Url:
            return "kubernetes.URL";
        case TypeKind::Error:
            return "*error*";
    }
    return "dyn";
}

namespace {

namespace json = util::json;

// kube's maxRequestSizeBytes: what bounds a list or string with no declared
// bound (3 MiB).
constexpr int64_t kMaxRequestSizeBytes = 3 * 1024 * 1024;
// The longest and shortest JSON forms of a duration and a date-time, with
// their quotes (kube's cel limits).
constexpr int64_t kMaxDurationSizeJSON = 32;
constexpr int64_t kMinDurationSizeJSON = 3;
constexpr int64_t kMaxDatetimeSizeJSON = 32;
constexpr int64_t kMinDatetimeSizeJSON = 21;

bool isRequired(const json::Value* required, std::string_view field) {
    if (required == nullptr || !required->IsArray()) {
        return false;
    }
    for (const json::Value& r : required->GetArray()) {
        if (r.IsString() && json::view(r) == field) {
            return true;
        }
    }
    return false;
}

int64_t bound(const json::Value& schema, std::string_view field) {
    const json::Value* v = json::member(schema, field);
    return v != nullptr && v->IsInt64() ? v->GetInt64() : -1;
}

bool flag(const json::Value& schema, std::string_view field) {
    const json::Value* v = json::member(schema, field);
    return v != nullptr && v->IsBool() && v->GetBool();
}

std::shared_ptr<Type> copyOf(const TypePtr& t) {
    return std::make_shared<Type>(*t);
}

TypePtr metadataType(const std::string& name) {
    auto meta = std::make_shared<Type>();
    meta->kind = TypeKind::Object;
    meta->name = name + ".metadata";
    meta->fields["name"] = Type::string();
    meta->fields["generateName"] = Type::string();
    meta->minSerializedSize = 2;
    return meta;
}

}  // namespace

namespace {

// Schemas nest at most this deep in the types (deeper is dyn), so building
// a type recurses boundedly and the object names stay short.
constexpr int kMaxSchemaDepth = 1000;
constexpr size_t kMaxTypeNameLength = 256;

std::string childName(const std::string& parent, std::string_view child) {
    if (parent.size() >= kMaxTypeNameLength) {
        return parent;
    }
    return parent + "." + std::string(child);
}

TypePtr typeOfSchema(const json::Value& schema, bool isResourceRoot, const std::string& name,
                     int depth);

}  // namespace

TypePtr Type::fromSchema(const json::Value& schema, bool isResourceRoot, const std::string& name) {
    return typeOfSchema(schema, isResourceRoot, name, 0);
}

namespace {

TypePtr typeOfSchema(const json::Value& schema, bool isResourceRoot, const std::string& name,
                     int depth) {
    if (depth > kMaxSchemaDepth) {
        return Type::dyn();
    }
    using T = Type;
    std::string_view type = json::stringMember(schema, "type");
    if (flag(schema, "x-kubernetes-int-or-string")) {
        // Bounded as the longest string (kube's SchemaDeclType); "0" at least.
        auto t = copyOf(T::dyn());
        t->maxElements = kMaxRequestSizeBytes - 2;
        t->minSerializedSize = 1;
        return t;
    }
    if (type == "array") {
        const json::Value* items = json::member(schema, "items");
        auto t = std::make_shared<Type>();
        t->kind = TypeKind::List;
        t->elem = items != nullptr ? typeOfSchema(*items, false, childName(name, "@idx"), depth + 1)
                                   : T::dyn();
        t->listType = std::string(json::stringMember(schema, "x-kubernetes-list-type"));
        if (const json::Value* keys = json::member(schema, "x-kubernetes-list-map-keys");
            keys != nullptr && keys->IsArray()) {
            for (const auto& k : keys->GetArray()) {
                if (k.IsString()) {
                    t->listMapKeys.emplace_back(k.GetString(), k.GetStringLength());
                }
            }
        }
        t->maxElements = bound(schema, "maxItems");
        if (t->maxElements < 0) {
            t->maxElements = (kMaxRequestSizeBytes - 2) / (t->elem->minSerializedSize + 1);
        }
        t->minSerializedSize = 2;
        return t;
    }
    if (type == "object") {
        const json::Value* props = json::member(schema, "properties");
        const json::Value* additional = json::member(schema, "additionalProperties");
        bool embedded = flag(schema, "x-kubernetes-embedded-resource");
        if ((props == nullptr || !props->IsObject() || props->MemberCount() == 0) &&
            additional != nullptr && additional->IsObject() && !isResourceRoot && !embedded) {
            auto t = std::make_shared<Type>();
            t->kind = TypeKind::Map;
            // kube's key type carries no bound, which its estimator reads as
            // a size of 0.
            auto key = copyOf(T::string());
            key->maxElements = 0;
            t->key = key;
            t->elem = typeOfSchema(*additional, false, childName(name, "@idx"), depth + 1);
            t->maxElements = bound(schema, "maxProperties");
            if (t->maxElements < 0) {
                // Each entry at least "k":v, a comma (and, as kube counts, a key of
                // two characters).
                t->maxElements = (kMaxRequestSizeBytes - 2) / (t->elem->minSerializedSize + 6);
            }
            t->minSerializedSize = 2;
            return t;
        }
        auto t = std::make_shared<Type>();
        t->kind = TypeKind::Object;
        t->name = name;
        t->minSerializedSize = 2;
        if (props != nullptr && props->IsObject()) {
            const json::Value* required = json::member(schema, "required");
            for (auto it = props->MemberBegin(); it != props->MemberEnd(); ++it) {
                std::string_view field = json::view(it->name);
                std::optional<std::string> escaped = escapePropertyName(field);
                TypePtr type = typeOfSchema(
                    it->value, false, childName(name, escaped ? std::string_view(*escaped) : field),
                    depth + 1);
                if (escaped) {
                    t->fields[*escaped] = type;
                }
                // kube's minimum size counts the required fields the server
                // does not default: "name":value and a comma.
                if (isRequired(required, field) && json::member(it->value, "default") == nullptr) {
                    t->minSerializedSize +=
                        static_cast<int64_t>(field.size()) + type->minSerializedSize + 4;
                }
            }
        }
        if (isResourceRoot || embedded) {
            t->fields.emplace("apiVersion", T::string());
            t->fields.emplace("kind", T::string());
            t->fields["metadata"] = metadataType(name);
        }
        t->maxElements = bound(schema, "maxProperties");
        return t;
    }
    if (type == "string") {
        std::string_view format = json::stringMember(schema, "format");
        // Sizes as kube's SchemaDeclType gives them: maxLength counts
        // characters, up to 4 bytes each; durations and date-times have a
        // longest form whatever maxLength says.
        int64_t maxLength = bound(schema, "maxLength");
        std::shared_ptr<Type> t;
        if (format == "byte") {
            t = copyOf(T::bytes());
            t->maxElements = maxLength;
            t->minSerializedSize = 2;
        } else if (format == "duration") {
            t = copyOf(T::duration());
            t->maxElements = kMaxDurationSizeJSON;
            t->minSerializedSize = kMinDurationSizeJSON;
        } else if (format == "date-time") {
            t = copyOf(T::timestamp());
            t->maxElements = kMaxDatetimeSizeJSON;
            t->minSerializedSize = kMinDatetimeSizeJSON;
        } else {
            t = copyOf(T::string());
            t->maxElements = maxLength >= 0 ? maxLength * 4 : -1;
            t->minSerializedSize = 2;
        }
        if (t->maxElements < 0) {
            t->maxElements = kMaxRequestSizeBytes - 2;
        }
        return t;
    }
    if (type == "integer") {
        return T::integer();
    }
    if (type == "number") {
        return T::dbl();
    }
    if (type == "boolean") {
        auto t = copyOf(T::boolean());
        t->minSerializedSize = 4;
        return t;
    }
    return T::dyn();
}

}  // namespace

}  // namespace kube::cel
