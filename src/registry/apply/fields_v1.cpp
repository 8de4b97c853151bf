#include "registry/apply/fields_v1.hpp"

namespace kube::registry::apply {

namespace json = util::json;

namespace {

json::Value keyOf(const PathElement& pe, json::Allocator& a) {
    return json::stringValue(pe.serialize(), a);
}

void emit(const FieldSet& s, bool includeSelf, json::Value& out, json::Allocator& a) {
    if (includeSelf && !s.empty()) {
        out.AddMember(json::Value(".", a), json::Value(rapidjson::kObjectType), a);
    }
    const auto& members = s.members();
    const auto& children = s.children();
    size_t mi = 0;
    size_t ci = 0;
    while (mi < members.size() || ci < children.size()) {
        int c = mi == members.size()    ? 1
                : ci == children.size() ? -1
                                        : members[mi].compare(children[ci].element);
        json::Value node(rapidjson::kObjectType);
        if (c < 0) {
            out.AddMember(keyOf(members[mi++], a), node, a);
            continue;
        }
        emit(children[ci].set, c == 0, node, a);
        out.AddMember(keyOf(children[ci].element, a), node, a);
        ++ci;
        if (c == 0) {
            ++mi;
        }
    }
}

// readIterV1: the set below `v` (empty when none) and whether the path to
// `v` is itself a member.
bool read(const json::Value& v, FieldSet& children, bool& isMember, std::string* error,
          int depth = 0) {
    if (depth > kMaxFieldsDepth) {
        *error = "fieldsV1 nested more than " + std::to_string(kMaxFieldsDepth) + " levels";
        return false;
    }
    if (!v.IsObject()) {
        *error = "ReadMapCB: expect { or n, but found " + std::string(json::typeName(v));
        return false;
    }
    isMember = false;
    for (const auto& m : v.GetObject()) {
        std::string_view key = json::view(m.name);
        if (key == ".") {
            isMember = true;
            continue;
        }
        bool unknown = false;
        auto pe = PathElement::parse(key, error, &unknown);
        if (!pe) {
            if (unknown) {
                continue;
            }
            *error = "parsing key as path element: " + *error;
            return false;
        }
        FieldSet grandchildren;
        bool childIsMember = false;
        if (!read(m.value, grandchildren, childIsMember, error, depth + 1)) {
            return false;
        }
        if (childIsMember) {
            children.appendMember(*pe);
        }
        if (!grandchildren.empty()) {
            // a key repeated in the object: its paths join, and normalize()
            // merges them
            FieldSet& into = children.appendChild(*pe);
            if (into.empty()) {
                into = std::move(grandchildren);
            } else {
                grandchildren.iterate([&into](const Path& p) { into.appendPath(p); });
            }
        }
    }
    if (children.empty()) {
        isMember = true;
    }
    return true;
}

}  // namespace

json::Value toFieldsV1(const FieldSet& s, json::Allocator& a) {
    json::Value out(rapidjson::kObjectType);
    emit(s, false, out, a);
    return out;
}

std::string toFieldsV1Json(const FieldSet& s) {
    json::Document d;
    json::Value v = toFieldsV1(s, d.GetAllocator());
    return json::serialize(v);
}

std::optional<FieldSet> fromFieldsV1(const json::Value& v, std::string* error) {
    FieldSet out;
    bool isMember = false;
    if (!read(v, out, isMember, error)) {
        return std::nullopt;
    }
    out.normalize();
    return out;
}

}  // namespace kube::registry::apply
