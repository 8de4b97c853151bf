#include "registry/patch/merge_patch.hpp"

#include "registry/patch/member_index.hpp"
#include "registry/patch/patch_document.hpp"

namespace kube::registry::patch {

namespace json = util::json;

namespace {

// Patch objects this wide are looked up in one batch.
constexpr rapidjson::SizeType kNarrow = 16;

json::Value pruned(const json::Value& patch, json::Allocator& a) {
    return *copyValue(patch, a, {.nulls = true});
}

}  // namespace

void mergePatch(json::Value& doc, const json::Value& patch, json::Allocator& a) {
    // mergeDocs, one object of the document and of the patch per frame:
    // iterative, so a patch as deep as the parser allows needs no deep stack.
    struct Frame {
        Frame(json::Value* d, const json::Value* p) : doc(d), patch(p), members(*d) {
            // A wide patch's names are looked up together.
            if (patch->MemberCount() > kNarrow) {
                at = members.positions(*doc, *patch);
            }
        }

        json::Value* doc;
        const json::Value* patch;
        MemberIndex members;
        // Where each member of `patch` is in `doc` (-1: absent), when wide.
        std::vector<int> at;
        rapidjson::SizeType next = 0;
    };
    std::vector<Frame> stack;
    stack.emplace_back(&doc, &patch);
    while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.next == f.patch->MemberCount()) {
            f.members.compact(*f.doc);
            stack.pop_back();
            continue;
        }
        rapidjson::SizeType i = f.next++;
        const auto& m = *(f.patch->MemberBegin() + i);
        std::string_view key = json::view(m.name);
        json::Value* cur = nullptr;
        if (f.at.empty()) {
            cur = f.members.find(*f.doc, key);
        } else if (f.at[i] >= 0) {
            cur = &(f.doc->MemberBegin() + f.at[i])->value;
        }
        if (m.value.IsNull()) {
            if (cur) {
                f.at.empty() ? (void)f.members.erase(*f.doc, key) : f.members.eraseAt(f.at[i]);
            }
            continue;
        }
        if (!cur) {
            // The patch's names are distinct: nothing later finds this one.
            f.members.append(*f.doc, key, pruned(m.value, a), a);
            continue;
        }
        // merge(): a null, or a non-object on either side, is replaced by
        // the patch value (pruned of nulls only when the document side was
        // not an object).
        if (!cur->IsObject()) {
            *cur = pruned(m.value, a);
        } else if (!m.value.IsObject()) {
            *cur = *copyValue(m.value, a);
        } else {
            // The members of `cur` do not move while it is merged: only its
            // own members change.
            stack.emplace_back(cur, &m.value);
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
