#include "registry/patch/merge_patch.hpp"

#include "registry/patch/member_index.hpp"
#include "registry/patch/patch_document.hpp"

namespace kube::registry::patch {

namespace json = util::json;

namespace {

json::Value pruned(const json::Value& patch, json::Allocator& a) {
    return *copyValue(patch, a, {.nulls = true});
}

}  // namespace

void mergePatch(json::Value& doc, const json::Value& patch, json::Allocator& a) {
    // mergeDocs, one object of the document and of the patch per frame:
    // iterative, so a patch as deep as the parser allows needs no deep stack.
    struct Frame {
        json::Value* doc;
        const json::Value* patch;
        MemberIndex members;
        rapidjson::SizeType next;
    };
    std::vector<Frame> stack;
    stack.push_back({&doc, &patch, MemberIndex(doc), 0});
    while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.next == f.patch->MemberCount()) {
            f.members.compact(*f.doc);
            stack.pop_back();
            continue;
        }
        const auto& m = *(f.patch->MemberBegin() + f.next++);
        std::string_view key = json::view(m.name);
        if (m.value.IsNull()) {
            f.members.erase(*f.doc, key);
            continue;
        }
        json::Value* cur = f.members.find(*f.doc, key);
        if (!cur || cur->IsNull()) {
            f.members.set(*f.doc, key, pruned(m.value, a), a);
            continue;
        }
        // merge(): a non-object on either side is replaced by the patch
        // value (pruned of nulls only when the document side was not an
        // object).
        if (!cur->IsObject()) {
            *cur = pruned(m.value, a);
        } else if (!m.value.IsObject()) {
            *cur = *copyValue(m.value, a);
        } else {
            // The members of `cur` do not move while it is merged: only its
            // own members change.
            stack.push_back({cur, &m.value, MemberIndex(*cur), 0});
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
        json::Value replaced = pruned(patch, doc.GetAllocator());
        static_cast<json::Value&>(doc) = replaced.Move();
        return std::nullopt;
    }
    if (!patch.IsObject()) {
        return invalid;
    }
    mergePatch(doc, patch, doc.GetAllocator());
    return std::nullopt;
}

}  // namespace kube::registry::patch
