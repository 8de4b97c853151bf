#include "registry/apply/path.hpp"

#include <algorithm>
#include <charconv>

#include "registry/patch/go_format.hpp"
#include "registry/validation.hpp"

namespace kube::registry::apply {

namespace json = util::json;

namespace {

template <class T>
int three(const T& a, const T& b) {
    return a < b ? -1 : (b < a ? 1 : 0);
}

bool isNumber(ItemValue::Type t) {
    return t == ItemValue::Type::Float || t == ItemValue::Type::Int;
}

// encoding/json's string: <, > and & escaped as Go writes them.
std::string goJsonString(std::string_view s) {
    return patch::goMarshal(json::Value(json::ref(s)));
}

double asDouble(const ItemValue& v) {
    return v.type == ItemValue::Type::Int ? static_cast<double>(v.integer) : v.real;
}

}  // namespace

ItemValue ItemValue::from(const json::Value& v) {
    ItemValue out;
    if (v.IsString()) {
        out.type = Type::String;
        out.text.assign(v.GetString(), v.GetStringLength());
    } else if (v.IsBool()) {
        out.type = Type::Bool;
        out.boolean = v.GetBool();
    } else if (v.IsInt64()) {
        out.type = Type::Int;
        out.integer = v.GetInt64();
    } else if (v.IsNumber()) {
        out.type = Type::Float;
        out.real = v.GetDouble();
    } else if (v.IsArray()) {
        out.type = Type::List;
        out.text = patch::goMarshal(v);
    } else if (v.IsObject()) {
        out.type = Type::Map;
        out.text = patch::goMarshal(v);
    }
    return out;
}

int ItemValue::compare(const ItemValue& o) const {
    if (isNumber(type) && isNumber(o.type)) {
        if (type == Type::Int && o.type == Type::Int) {
            return three(integer, o.integer);
        }
        return three(asDouble(*this), asDouble(o));
    }
    if (type != o.type) {
        return three(static_cast<int>(type), static_cast<int>(o.type));
    }
    switch (type) {
        case Type::Bool:
            return three(boolean, o.boolean);
        case Type::Null:
            return 0;
        default:
            return text.compare(o.text) < 0 ? -1 : (text == o.text ? 0 : 1);
    }
}

json::Value ItemValue::toJson(json::Allocator& a) const {
    switch (type) {
        case Type::Float:
            return json::Value(real);
        case Type::Int:
            return json::Value(static_cast<int64_t>(integer));
        case Type::String:
            return json::stringValue(text, a);
        case Type::Bool:
            return json::Value(boolean);
        case Type::List:
        case Type::Map: {
            json::Document d(&a);
            json::parse(text, d);
            return json::Value(d, a);
        }
        case Type::Null:
            break;
    }
    return json::Value();
}

std::string ItemValue::json() const {
    switch (type) {
        case Type::Int:
            return std::to_string(integer);
        case Type::Bool:
            return boolean ? "true" : "false";
        case Type::Null:
            return "null";
        case Type::List:
        case Type::Map:
            return text;
        default: {
            json::Document d;
            json::Value v = toJson(d.GetAllocator());
            return patch::goMarshal(v);
        }
    }
}

std::string ItemValue::toString() const {
    if (type == Type::String) {
        return validation::goQuote(text);
    }
    return json();
}

PathElement PathElement::field(std::string name) {
    PathElement pe;
    pe.kind = Kind::Field;
    pe.name = std::move(name);
    return pe;
}

PathElement PathElement::keyed(std::vector<KeyField> fields) {
    std::stable_sort(fields.begin(), fields.end(),
                     [](const KeyField& a, const KeyField& b) { return a.name < b.name; });
    PathElement pe;
    pe.kind = Kind::Key;
    pe.key = std::move(fields);
    return pe;
}

PathElement PathElement::ofValue(ItemValue v) {
    PathElement pe;
    pe.kind = Kind::Value;
    pe.value = std::move(v);
    return pe;
}

PathElement PathElement::ofIndex(int i) {
    PathElement pe;
    pe.kind = Kind::Index;
    pe.index = i;
    return pe;
}

int PathElement::compare(const PathElement& o) const {
    if (kind != o.kind) {
        return three(static_cast<int>(kind), static_cast<int>(o.kind));
    }
    switch (kind) {
        case Kind::Field:
            return name.compare(o.name) < 0 ? -1 : (name == o.name ? 0 : 1);
        case Kind::Key:
            // FieldList.Compare: field by field, a shorter list first.
            for (size_t i = 0;; ++i) {
                if (i >= key.size() || i >= o.key.size()) {
                    return three(key.size(), o.key.size());
                }
                if (int c = key[i].name.compare(o.key[i].name); c != 0) {
                    return c < 0 ? -1 : 1;
                }
                if (int c = key[i].value.compare(o.key[i].value); c != 0) {
                    return c;
                }
            }
        case Kind::Value:
            return value.compare(o.value);
        case Kind::Index:
            return three(index, o.index);
    }
    return 0;
}

std::string PathElement::toString() const {
    switch (kind) {
        case Kind::Field:
            return "." + name;
        case Kind::Key: {
            std::string out = "[";
            for (size_t i = 0; i < key.size(); ++i) {
                if (i > 0) {
                    out += ',';
                }
                out += key[i].name + "=" + key[i].value.toString();
            }
            return out + "]";
        }
        case Kind::Value:
            return "[=" + value.toString() + "]";
        case Kind::Index:
            return "[" + std::to_string(index) + "]";
    }
    return "{{invalid path element}}";
}

std::string PathElement::serialize() const {
    switch (kind) {
        case Kind::Field:
            return "f:" + name;
        case Kind::Key: {
            std::string out = "k:{";
            for (size_t i = 0; i < key.size(); ++i) {
                if (i > 0) {
                    out += ',';
                }
                out += goJsonString(key[i].name);
                out += ':';
                out += key[i].value.json();
            }
            return out + "}";
        }
        case Kind::Value:
            return "v:" + value.json();
        case Kind::Index:
            return "i:" + std::to_string(index);
    }
    return {};
}

std::optional<PathElement> PathElement::parse(std::string_view s, std::string* error,
                                              bool* unknownKind) {
    if (unknownKind) {
        *unknownKind = false;
    }
    if (s.size() < 2) {
        *error = "key must be 2 characters long:";
        return std::nullopt;
    }
    if (s[1] != ':') {
        *error = "missing colon: " + std::string(s);
        return std::nullopt;
    }
    std::string_view rest = s.substr(2);
    switch (s[0]) {
        case 'f':
            return field(std::string(rest));
        case 'v': {
            json::Document d;
            if (auto err = json::parse(rest, d)) {
                *error = *err;
                return std::nullopt;
            }
            return ofValue(ItemValue::from(d));
        }
        case 'k': {
            json::Document d;
            if (auto err = json::parse(rest, d)) {
                *error = *err;
                return std::nullopt;
            }
            if (!d.IsObject()) {
                *error = "ReadObjectCB: expect { or n, but found " + std::string(rest.substr(0, 1));
                return std::nullopt;
            }
            std::vector<KeyField> fields;
            fields.reserve(d.MemberCount());
            for (const auto& m : d.GetObject()) {
                fields.push_back({std::string(json::view(m.name)), ItemValue::from(m.value)});
            }
            return keyed(std::move(fields));
        }
        case 'i': {
            int i = 0;
            std::string_view digits = rest;
            if (!digits.empty() && digits[0] == '+') {
                digits.remove_prefix(1);
            }
            auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), i);
            if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
                *error = "strconv.Atoi: parsing " + validation::goQuote(rest) + ": invalid syntax";
                return std::nullopt;
            }
            return ofIndex(i);
        }
        default:
            if (unknownKind) {
                *unknownKind = true;
            }
            *error = "unknown path element type";
            return std::nullopt;
    }
}

std::string pathString(const Path& p) {
    std::string out;
    for (const PathElement& pe : p) {
        out += pe.toString();
    }
    return out;
}

}  // namespace kube::registry::apply
