#include "cel/object_value.hpp"

#include <optional>
#include <string>
#include <vector>

#include "cel/escaping.hpp"
#include "cel/functions.hpp"
#include "util/base64.hpp"

namespace kube::cel {

namespace {

namespace json = util::json;

// A JSON container still being converted: its items so far.
struct Pending {
    Pending(const json::Value* j, const Type* t) : json(j), type(t) {}
    const json::Value* json;
    const Type* type;
    size_t next = 0;
    List items;
    MapData members;
};

// The key a member is stored under: an object's fields under the names the
// rule's type gives them (escaped: "namespace" is __namespace__), a map's
// keys as they are.
std::string memberKey(const Type* type, const json::Value& name) {
    std::string_view raw = json::view(name);
    if (type != nullptr && type->kind == TypeKind::Object) {
        if (std::optional<std::string> escaped = escapePropertyName(raw)) {
            return std::move(*escaped);
        }
    }
    return std::string(raw);
}

const Type* childType(const Type* parent, const json::Value& container, size_t index) {
    if (parent == nullptr) {
        return nullptr;
    }
    switch (parent->kind) {
        case TypeKind::List:
        case TypeKind::Map:
            return parent->elem.get();
        case TypeKind::Object: {
            auto it =
                parent->fields.find(memberKey(parent, (container.MemberBegin() + index)->name));
            return it == parent->fields.end() ? nullptr : it->second.get();
        }
        default:
            return nullptr;
    }
}

Value scalar(const json::Value& v, const Type* type) {
    TypeKind want = type == nullptr ? TypeKind::Dyn : type->kind;
    if (v.IsNull()) {
        return Value::null();
    }
    if (v.IsBool()) {
        return Value::boolean(v.GetBool());
    }
    if (v.IsInt64() && want != TypeKind::Double) {
        return Value::integer(v.GetInt64());
    }
    if (v.IsNumber()) {
        return Value::dbl(v.GetDouble());
    }
    std::string text(v.GetString(), v.GetStringLength());
    Value s = Value::string(text);
    switch (want) {
        case TypeKind::Timestamp: {
            Impl parse = FunctionRegistry::instance().impl("timestamp", false, 1);
            return parse(std::span<const Value>(&s, 1));
        }
        case TypeKind::Duration: {
            Impl parse = FunctionRegistry::instance().impl("duration", false, 1);
            return parse(std::span<const Value>(&s, 1));
        }
        case TypeKind::Bytes: {
            std::optional<std::string> decoded = util::decodeBase64(text);
            if (!decoded) {
                return Value::error("illegal base64 data");
            }
            return Value::bytes(std::move(*decoded));
        }
        default:
            return s;
    }
}

}  // namespace

Value objectValue(const json::Value& root, const Type* rootType) {
    if (!root.IsArray() && !root.IsObject()) {
        return scalar(root, rootType);
    }
    std::vector<Pending> stack;
    stack.emplace_back(&root, rootType);
    Value done;
    while (!stack.empty()) {
        Pending& top = stack.back();
        const json::Value& j = *top.json;
        size_t size = j.IsArray() ? j.Size() : j.MemberCount();
        if (top.next == size) {
            done = j.IsArray() ? Value::list(std::move(top.items))
                               : Value::map(std::move(top.members));
            done.markFromObject(top.type);
            stack.pop_back();
            if (stack.empty()) {
                break;
            }
            Pending& parent = stack.back();
            if (parent.json->IsArray()) {
                parent.items.push_back(std::move(done));
            } else {
                const auto& name = (parent.json->MemberBegin() + parent.next)->name;
                parent.members.insert(Value::string(memberKey(parent.type, name)), std::move(done));
            }
            parent.next++;
            continue;
        }
        const json::Value& child = j.IsArray() ? j[static_cast<rapidjson::SizeType>(top.next)]
                                               : (j.MemberBegin() + top.next)->value;
        const Type* type = childType(top.type, j, top.next);
        if (child.IsArray() || child.IsObject()) {
            stack.emplace_back(&child, type);
            continue;
        }
        if (j.IsArray()) {
            top.items.push_back(scalar(child, type));
        } else {
            const auto& name = (j.MemberBegin() + top.next)->name;
            top.members.insert(Value::string(memberKey(top.type, name)), scalar(child, type));
        }
        top.next++;
    }
    return done;
}

}  // namespace kube::cel
