#include "registry/patch/merge_patch.hpp"

#include "registry/patch/patch_document.hpp"

namespace kube::registry::patch {

namespace json = util::json;

namespace {

json::Value pruned(const json::Value& patch, json::Allocator& a) {
    json::Value v(patch, a);
    discardNulls(v);
    return v;
}

}  // namespace

void mergePatch(json::Value& doc, const json::Value& patch, json::Allocator& a) {
    for (const auto& m : patch.GetObject()) {
        std::string_view key = json::view(m.name);
        auto it = doc.FindMember(m.name);
        if (m.value.IsNull()) {
            if (it != doc.MemberEnd()) {
                doc.EraseMember(it);
            }
            continue;
        }
        if (it == doc.MemberEnd() || it->value.IsNull()) {
            json::setMember(doc, key, pruned(m.value, a), a);
            continue;
        }
        // merge(): a non-object on either side is replaced by the patch
        // value (pruned of nulls only when the document side was not an
        // object).
        if (!it->value.IsObject()) {
            it->value = pruned(m.value, a);
        } else if (!m.value.IsObject()) {
            it->value = json::Value(m.value, a);
        } else {
            mergePatch(it->value, m.value, a);
        }
    }
}

std::optional<Error> applyMergePatch(json::Document& doc, std::string_view body, bool strict,
                                     std::vector<std::string>* strictErrors) {
    const Error invalid{Error::Kind::BadRequest, "Invalid JSON Patch"};
    json::Document patch;
    if (strict) {
        if (auto err = decodePatchMap(body, patch, strictErrors)) {
            return Error{Error::Kind::BadRequest, "error decoding patch: " + *err};
        }
    } else if (json::parse(body, patch)) {
        return invalid;
    } else {
        dropDuplicateFields(patch, "", nullptr);
    }
    if (patch.IsArray()) {
        json::Value replaced(patch, doc.GetAllocator());
        discardNulls(replaced);
        static_cast<json::Value&>(doc) = std::move(replaced);
        return std::nullopt;
    }
    if (!patch.IsObject()) {
        return invalid;
    }
    mergePatch(doc, patch, doc.GetAllocator());
    return std::nullopt;
}

}  // namespace kube::registry::patch
