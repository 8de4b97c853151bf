#include "openapi/custom_resource_schema.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "util/deep_stack.hpp"

namespace kube::openapi {

namespace json = util::json;

namespace {

// The keywords a structural schema keeps besides properties, items,
// additionalProperties and the junctors; value validations with a false
// or empty zero value are dropped as Go's omitempty drops them.
constexpr std::string_view kValidations[] = {
    "maximum",  "minimum",    "maxLength",     "minLength",     "pattern", "maxItems",
    "minItems", "multipleOf", "maxProperties", "minProperties", "enum"};
constexpr std::string_view kFlags[] = {"exclusiveMaximum", "exclusiveMinimum", "uniqueItems"};
constexpr std::string_view kExtensions[] = {"x-kubernetes-preserve-unknown-fields",
                                            "x-kubernetes-embedded-resource",
                                            "x-kubernetes-int-or-string",
                                            "x-kubernetes-list-map-keys",
                                            "x-kubernetes-list-type",
                                            "x-kubernetes-map-type",
                                            "x-kubernetes-validations"};
constexpr std::string_view kJunctors[] = {"allOf", "anyOf", "oneOf"};

bool isTrue(const json::Value& s, std::string_view key) {
    const json::Value* v = json::member(s, key);
    return v && v->IsBool() && v->GetBool();
}

bool isEmptyList(const json::Value& v) {
    return v.IsArray() && v.Empty();
}

json::Value typeOnly(const char* type, json::Allocator& a) {
    json::Value v(rapidjson::kObjectType);
    v.AddMember("type", rapidjson::StringRef(type), a);
    return v;
}

// [{"type": "integer"}, {"type": "string"}]
json::Value intOrStringAnyOf(json::Allocator& a) {
    json::Value l(rapidjson::kArrayType);
    l.PushBack(typeOnly("integer", a), a);
    l.PushBack(typeOnly("string", a), a);
    return l;
}

bool isIntOrStringAnyOf(const json::Value* anyOf) {
    if (!anyOf || !anyOf->IsArray() || anyOf->Size() != 2) {
        return false;
    }
    auto only = [](const json::Value& s, std::string_view type) {
        return s.IsObject() && s.MemberCount() == 1 && json::stringMember(s, "type") == type;
    };
    return only((*anyOf)[0], "integer") && only((*anyOf)[1], "string");
}

class Converter {
  public:
    Converter(const CustomSchemaParts& parts, json::Allocator& a)
        : parts_(parts), v2_(parts.flavor == Flavor::V2), a_(a) {}

    // A schema node: its properties, items and additionalProperties are
    // schema nodes too. One pass over its members (a 1 MiB schema has tens
    // of thousands of nodes).
    json::Value structural(const json::Value& s) {
        json::Value out(rapidjson::kObjectType);
        if (!s.IsObject()) {
            return out;
        }
        bool nullable = isTrue(s, "nullable");
        bool preserve = isTrue(s, "x-kubernetes-preserve-unknown-fields");
        // v2: a nullable value or one that keeps unknown fields loses its
        // items and properties (kubectl's v2 validation chokes on them), a
        // nullable one its type too.
        bool bare = v2_ && (nullable || preserve);
        for (const auto& m : s.GetObject()) {
            std::string_view key = json::view(m.name);
            const json::Value& v = m.value;
            switch (keyword(key)) {
                case Keyword::Generic:
                case Keyword::Validation:
                    add(key, json::Value(v, a_), out);
                    break;
                case Keyword::Type:
                    if (!(v2_ && nullable)) {
                        add(key, json::Value(v, a_), out);
                    }
                    break;
                case Keyword::Default:
                    if (!v2_) {
                        add(key, json::Value(v, a_), out);
                    }
                    break;
                case Keyword::Nullable:
                    if (!v2_ && nullable) {
                        add(key, json::Value(true), out);
                    }
                    break;
                case Keyword::Flag:
                case Keyword::Extension:
                    if (kept(v)) {
                        add(key, json::Value(v, a_), out);
                    }
                    break;
                case Keyword::Properties:
                    if (v.IsObject() && !bare) {
                        add(key, properties(v), out);
                    }
                    break;
                case Keyword::Items:
                    if (v.IsObject() && !bare) {
                        add(key, structural(v), out);
                    }
                    break;
                case Keyword::AdditionalProperties:
                    if (v.IsBool()) {
                        add(key, json::Value(v.GetBool()), out);
                    } else if (v.IsObject()) {
                        add(key, structural(v), out);
                    }
                    break;
                case Keyword::Required:
                    if (v.IsArray() && !v.Empty()) {
                        if (json::Value r = requiredOf(s, v); !r.Empty()) {
                            add(key, std::move(r), out);
                        }
                    }
                    break;
                case Keyword::Junctor:
                    if (!v2_) {
                        junctor(key, v, out);
                    }
                    break;
                case Keyword::Dropped:
                    break;
            }
        }
        if (v2_) {
            // An array left without items, an object that keeps unknown
            // fields: no type either.
            std::string_view type = json::stringMember(out, "type");
            if ((type == "array" && !json::member(out, "items")) ||
                (type == "object" && preserve)) {
                json::removeMember(out, "type");
            }
        } else {
            unfoldIntOrString(out);
        }
        if (isTrue(s, "x-kubernetes-embedded-resource") && !(v2_ && preserve)) {
            embed(out);
        }
        return out;
    }

    // The root: the kind's own apiVersion, kind and metadata added.
    json::Value root(const json::Value& s) {
        json::Value out = structural(s);
        json::Value* props = json::member(out, "properties");
        if (!props) {
            out.AddMember("properties", json::Value(rapidjson::kObjectType), a_);
            props = json::member(out, "properties");
        }
        json::setMember(*props, "apiVersion", parts_.apiVersion(), a_);
        json::setMember(*props, "kind", parts_.kind(), a_);
        json::setMember(*props, "metadata", parts_.objectMeta(), a_);
        sorted(*props);
        return out;
    }

  private:
    enum class Keyword {
        Generic,  // description, title, format
        Type,
        Default,
        Nullable,
        Validation,  // value validations kept as they are
        Flag,        // value validations kept when true
        Extension,   // x-kubernetes-*, kept unless false or empty
        Properties,
        Items,
        AdditionalProperties,
        Required,
        Junctor,  // allOf, anyOf, oneOf, not
        Dropped,  // example, externalDocs, and what structural schemas forbid
    };

    static Keyword keyword(std::string_view key) {
        static const std::map<std::string_view, Keyword> keywords = [] {
            std::map<std::string_view, Keyword> m = {
                {"description", Keyword::Generic},
                {"title", Keyword::Generic},
                {"format", Keyword::Generic},
                {"type", Keyword::Type},
                {"default", Keyword::Default},
                {"nullable", Keyword::Nullable},
                {"properties", Keyword::Properties},
                {"items", Keyword::Items},
                {"additionalProperties", Keyword::AdditionalProperties},
                {"required", Keyword::Required},
                {"not", Keyword::Junctor},
            };
            for (std::string_view k : kValidations) {
                m.emplace(k, Keyword::Validation);
            }
            for (std::string_view k : kFlags) {
                m.emplace(k, Keyword::Flag);
            }
            for (std::string_view k : kExtensions) {
                m.emplace(k, Keyword::Extension);
            }
            for (std::string_view k : kJunctors) {
                m.emplace(k, Keyword::Junctor);
            }
            return m;
        }();
        auto it = keywords.find(key);
        return it == keywords.end() ? Keyword::Dropped : it->second;
    }

    // Go's omitempty: false, empty lists and null are not written.
    static bool kept(const json::Value& v) {
        return !(v.IsBool() && !v.GetBool()) && !isEmptyList(v) && !v.IsNull();
    }

    void add(std::string_view key, json::Value v, json::Value& out) {
        out.AddMember(json::stringValue(key, a_), v, a_);
    }

    // allOf, anyOf, oneOf (non-empty lists) and not: nested value validations.
    void junctor(std::string_view key, const json::Value& v, json::Value& out) {
        if (key == "not") {
            if (v.IsObject()) {
                add(key, nested(v), out);
            }
            return;
        }
        if (!v.IsArray() || v.Empty()) {
            return;
        }
        json::Value l(rapidjson::kArrayType);
        for (const json::Value& e : v.GetArray()) {
            l.PushBack(nested(e), a_);
        }
        add(key, std::move(l), out);
    }

    json::Value properties(const json::Value& props) {
        json::Value out(rapidjson::kObjectType);
        for (const auto& m : props.GetObject()) {
            out.AddMember(json::Value(m.name, a_), structural(m.value), a_);
        }
        sorted(out);
        return out;
    }

    // v2 drops the nullable properties from required (kubectl would demand
    // a value that may be null), and all of it when additional properties
    // are nullable.
    json::Value requiredOf(const json::Value& s, const json::Value& required) {
        json::Value out(rapidjson::kArrayType);
        if (v2_) {
            const json::Value* ap = json::member(s, "additionalProperties");
            if (ap && ap->IsObject() && isTrue(*ap, "nullable")) {
                return out;
            }
        }
        const json::Value* props = json::member(s, "properties");
        for (const json::Value& name : required.GetArray()) {
            const json::Value* p =
                props && name.IsString() ? json::member(*props, json::view(name)) : nullptr;
            if (v2_ && p && isTrue(*p, "nullable")) {
                continue;
            }
            out.PushBack(json::Value(name, a_), a_);
        }
        return out;
    }

    // A schema inside allOf, anyOf, oneOf or not: value validations only
    // (kube's NestedValueValidation), with properties and items of its own.
    json::Value nested(const json::Value& s) {
        json::Value out(rapidjson::kObjectType);
        if (!s.IsObject()) {
            return out;
        }
        for (const auto& m : s.GetObject()) {
            std::string_view key = json::view(m.name);
            const json::Value& v = m.value;
            switch (keyword(key)) {
                case Keyword::Generic:  // only the unfolded int-or-string has these
                case Keyword::Type:
                case Keyword::Validation:
                case Keyword::Required:
                    add(key, json::Value(v, a_), out);
                    break;
                case Keyword::Flag:
                case Keyword::Extension:
                    if (kept(v)) {
                        add(key, json::Value(v, a_), out);
                    }
                    break;
                case Keyword::Junctor:
                    junctor(key, v, out);
                    break;
                case Keyword::Items:
                    if (v.IsObject()) {
                        add(key, nested(v), out);
                    }
                    break;
                case Keyword::Properties:
                    if (v.IsObject()) {
                        json::Value p(rapidjson::kObjectType);
                        for (const auto& pm : v.GetObject()) {
                            p.AddMember(json::Value(pm.name, a_), nested(pm.value), a_);
                        }
                        sorted(p);
                        add(key, std::move(p), out);
                    }
                    break;
                default:
                    break;
            }
        }
        return out;
    }

    // Structural.Unfold: x-kubernetes-int-or-string also says so in anyOf.
    void unfoldIntOrString(json::Value& out) {
        if (!isTrue(out, "x-kubernetes-int-or-string")) {
            return;
        }
        json::Value* anyOf = json::member(out, "anyOf");
        json::Value* allOf = json::member(out, "allOf");
        if (isIntOrStringAnyOf(anyOf) || (allOf && allOf->IsArray() && !allOf->Empty() &&
                                          isIntOrStringAnyOf(json::member((*allOf)[0], "anyOf")))) {
            return;
        }
        if (!anyOf) {
            out.AddMember("anyOf", intOrStringAnyOf(a_), a_);
            return;
        }
        json::Value wrapped(rapidjson::kObjectType);
        wrapped.AddMember("anyOf", intOrStringAnyOf(a_), a_);
        json::Value l(rapidjson::kArrayType);
        l.PushBack(wrapped, a_);
        if (allOf) {
            for (auto& e : allOf->GetArray()) {
                l.PushBack(e, a_);
            }
            *allOf = std::move(l);
        } else {
            out.AddMember("allOf", l, a_);
        }
    }

    // addEmbeddedProperties: an embedded object has apiVersion, kind and
    // metadata, and requires kind and apiVersion.
    void embed(json::Value& out) {
        json::Value* props = json::member(out, "properties");
        if (!props) {
            out.AddMember("properties", json::Value(rapidjson::kObjectType), a_);
            props = json::member(out, "properties");
        }
        json::Value apiVersion(rapidjson::kObjectType);
        apiVersion.AddMember("description",
                             "The schema version of the embedded object: group/version, or only "
                             "the version for the core group.",
                             a_);
        apiVersion.AddMember("type", "string", a_);
        json::Value kind(rapidjson::kObjectType);
        kind.AddMember("description", "The kind of the embedded object, in CamelCase.", a_);
        kind.AddMember("type", "string", a_);
        json::setMember(*props, "apiVersion", std::move(apiVersion), a_);
        json::setMember(*props, "kind", std::move(kind), a_);
        json::setMember(*props, "metadata", parts_.objectMeta(), a_);
        sorted(*props);
        json::Value* required = json::member(out, "required");
        if (!required) {
            out.AddMember("required", json::Value(rapidjson::kArrayType), a_);
            required = json::member(out, "required");
        }
        for (const char* name : {"kind", "apiVersion"}) {
            bool has = false;
            for (const json::Value& r : required->GetArray()) {
                has = has || json::view(r) == name;
            }
            if (!has) {
                required->PushBack(rapidjson::StringRef(name), a_);
            }
        }
    }

    // Puts an object's members in name order.
    void sorted(json::Value& obj) {
        std::vector<json::Value::Member*> order;
        for (auto& m : obj.GetObject()) {
            order.push_back(&m);
        }
        if (std::is_sorted(order.begin(), order.end(), [](auto* x, auto* y) {
                return json::view(x->name) < json::view(y->name);
            })) {
            return;
        }
        std::stable_sort(order.begin(), order.end(), [](auto* x, auto* y) {
            return json::view(x->name) < json::view(y->name);
        });
        json::Value out(rapidjson::kObjectType);
        for (json::Value::Member* m : order) {
            out.AddMember(m->name, m->value, a_);
        }
        obj = std::move(out);
    }

    const CustomSchemaParts& parts_;
    bool v2_;
    json::Allocator& a_;
};

}  // namespace

std::string customDefinitionName(std::string_view group, std::string_view version,
                                 std::string_view kind) {
    std::string reversed;
    while (!group.empty()) {
        size_t dot = group.rfind('.');
        std::string_view label = dot == std::string_view::npos ? group : group.substr(dot + 1);
        reversed += (reversed.empty() ? "" : ".") + std::string(label);
        group = dot == std::string_view::npos ? std::string_view() : group.substr(0, dot);
    }
    return reversed + "." + std::string(version) + "." + std::string(kind);
}

json::Value customResourceSchema(const json::Value* schema, const CustomSchemaParts& parts,
                                 json::Allocator& a) {
    if (!schema || !schema->IsObject() ||
        (parts.flavor == Flavor::V2 && isTrue(*schema, "x-kubernetes-preserve-unknown-fields"))) {
        json::Value out(rapidjson::kObjectType);
        out.AddMember("type", "object", a);
        return out;
    }
    json::Value out;
    util::runWithStackFor(*schema, [&] { out = Converter(parts, a).root(*schema); });
    return out;
}

}  // namespace kube::openapi
