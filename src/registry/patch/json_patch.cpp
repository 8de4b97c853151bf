#include "registry/patch/json_patch.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <memory>
#include <unordered_map>

#include "registry/patch/flat_index.hpp"
#include "registry/patch/go_format.hpp"
#include "registry/patch/member_index.hpp"
#include "registry/patch/patch_document.hpp"
#include "registry/validation.hpp"

namespace kube::registry::patch {

namespace json = util::json;

namespace {

using Result = std::optional<std::string>;

const std::string kMissing = "missing value";
const std::string kInvalidIndex = "invalid index referenced";

// strconv.Atoi: an optional sign and decimal digits, nothing else.
std::optional<long long> atoi(std::string_view s, std::string* error) {
    std::string_view digits = s;
    bool negative = false;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
        negative = digits[0] == '-';
        digits.remove_prefix(1);
    }
    bool syntax = !digits.empty();
    for (char c : digits) {
        syntax = syntax && c >= '0' && c <= '9';
    }
    if (!syntax) {
        *error = "strconv.Atoi: parsing " + validation::goQuote(s) + ": invalid syntax";
        return std::nullopt;
    }
    unsigned long long magnitude = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    auto limit = static_cast<unsigned long long>(std::numeric_limits<long long>::max());
    if (ec != std::errc() || magnitude > limit + (negative ? 1 : 0)) {
        *error = "strconv.Atoi: parsing " + validation::goQuote(s) + ": value out of range";
        return std::nullopt;
    }
    if (negative) {
        return magnitude == limit + 1 ? std::numeric_limits<long long>::min()
                                      : -static_cast<long long>(magnitude);
    }
    return static_cast<long long>(magnitude);
}

std::string invalidIndex(long long idx) {
    return "Unable to access invalid index: " + std::to_string(idx) + ": " + kInvalidIndex;
}

// RFC 6901 unescaping of one reference token, in one pass.
std::string decodeKey(std::string_view k) {
    std::string out;
    for (size_t i = 0; i < k.size(); ++i) {
        if (k[i] == '~' && i + 1 < k.size() && (k[i + 1] == '0' || k[i + 1] == '1')) {
            out += k[i + 1] == '1' ? '/' : '~';
            ++i;
        } else {
            out += k[i];
        }
    }
    return out;
}

// The member indexes of the document's wide objects, kept from one
// operation to the next (Go's maps find a key at once; RapidJSON scans).
// An index is keyed by its object's member array, which moves with the
// object and is never reused by the document's pool allocator. Removed
// members stay in their object until settle() drops them, before anything
// reads the object whole.
class Indexes {
  public:
    // The index of `obj` (built on first use); `scratch` serves a narrow
    // object, which is scanned and loses a removed member at once.
    MemberIndex& of(json::Value& obj, std::optional<MemberIndex>& scratch) {
        if (obj.MemberCount() <= kNarrow) {
            if (auto it = byMembers_.find(key(obj)); it != byMembers_.end()) {
                return it->second;
            }
            scratch.emplace(obj);
            return *scratch;
        }
        auto [it, added] = byMembers_.try_emplace(key(obj), obj);
        if (!added && it->second.size() != obj.MemberCount()) {
            it->second = MemberIndex(obj);
        }
        return it->second;
    }

    // `obj`'s index after `before` (its member array then) gained a member.
    void grown(const json::Value& obj, const void* before, std::optional<MemberIndex>& scratch) {
        if (key(obj) == before) {
            return;
        }
        if (auto it = byMembers_.find(before); it != byMembers_.end()) {
            auto node = byMembers_.extract(it);
            node.key() = key(obj);
            byMembers_.insert(std::move(node));
        } else if (scratch && obj.MemberCount() > kNarrow) {
            byMembers_.insert_or_assign(key(obj), std::move(*scratch));
        }
    }

    // A member of `obj` was removed through its index.
    void removed() { ++pending_; }

    // Drops the removed members of every object in `v`.
    void settle(json::Value& v) {
        if (pending_ == 0) {
            return;
        }
        std::vector<json::Value*> stack{&v};
        while (!stack.empty()) {
            json::Value* cur = stack.back();
            stack.pop_back();
            if (cur->IsObject()) {
                if (auto it = byMembers_.find(key(*cur)); it != byMembers_.end()) {
                    if (it->second.pending()) {
                        it->second.compact(*cur);
                    }
                }
                for (auto& m : cur->GetObject()) {
                    stack.push_back(&m.value);
                }
            } else if (cur->IsArray()) {
                for (auto& item : cur->GetArray()) {
                    stack.push_back(&item);
                }
            }
        }
    }

  private:
    static const void* key(const json::Value& obj) {
        return obj.MemberCount() ? &*obj.MemberBegin() : nullptr;
    }

    static constexpr rapidjson::SizeType kNarrow = 16;

    std::unordered_map<const void*, MemberIndex> byMembers_;
    size_t pending_ = 0;
};

// One object or array of the document being patched, with the operations
// evanphx/json-patch's partialDoc and partialArray offer.
class Container {
  public:
    Container(json::Value& v, json::Allocator& a, Indexes& indexes)
        : v_(v), a_(a), indexes_(indexes) {}

    // The value at `key`; nullptr (and no error) for a missing object key.
    json::Value* get(const std::string& key, std::string* error) {
        if (v_.IsObject()) {
            std::optional<MemberIndex> scratch;
            return indexes_.of(v_, scratch).find(v_, key);
        }
        auto i = itemIndex(key, error);
        return i ? &v_[*i] : nullptr;
    }

    // Replaces an existing array item (get() checked it) or sets an object key.
    Result set(const std::string& key, json::Value val) {
        if (v_.IsObject()) {
            setMember(key, std::move(val));
            return std::nullopt;
        }
        std::string err;
        auto i = itemIndex(key, &err);
        if (!i) {
            return err;
        }
        v_[*i] = std::move(val);
        return std::nullopt;
    }

    Result add(const std::string& key, json::Value val) {
        if (v_.IsObject()) {
            setMember(key, std::move(val));
            return std::nullopt;
        }
        if (key == "-") {
            v_.PushBack(std::move(val), a_);
            return std::nullopt;
        }
        std::string err;
        auto idx = atoi(key, &err);
        if (!idx) {
            return "value was not a proper array index: '" + key + "': " + err;
        }
        long long size = static_cast<long long>(v_.Size()) + 1;
        if (*idx >= size) {
            return invalidIndex(*idx);
        }
        if (*idx < 0) {
            if (*idx < -size) {
                return invalidIndex(*idx);
            }
            *idx += size;
        }
        // Append, then rotate the new item down to its place (an O(n) shift,
        // as Go's slice copy).
        v_.PushBack(std::move(val), a_);
        std::rotate(v_.Begin() + *idx, v_.End() - 1, v_.End());
        return std::nullopt;
    }

    Result remove(const std::string& key) {
        if (v_.IsObject()) {
            std::optional<MemberIndex> scratch;
            MemberIndex& index = indexes_.of(v_, scratch);
            if (!index.erase(v_, key)) {
                return "Unable to remove nonexistent key: " + key + ": " + kMissing;
            }
            if (index.pending()) {
                indexes_.removed();
            }
            return std::nullopt;
        }
        std::string err;
        auto i = itemIndex(key, &err);
        if (!i) {
            return err;
        }
        v_.Erase(v_.Begin() + *i);
        return std::nullopt;
    }

  private:
    void setMember(const std::string& key, json::Value val) {
        std::optional<MemberIndex> scratch;
        const void* before = v_.MemberCount() ? &*v_.MemberBegin() : nullptr;
        indexes_.of(v_, scratch).set(v_, key, std::move(val), a_);
        indexes_.grown(v_, before, scratch);
    }

    // The array item `key` names (negative counts from the end), or why
    // none: not a number, or outside the array.
    std::optional<rapidjson::SizeType> itemIndex(const std::string& key, std::string* error) const {
        auto idx = atoi(key, error);
        if (!idx) {
            return std::nullopt;
        }
        long long n = v_.Size();
        if (*idx < 0) {
            if (*idx < -n) {
                *error = invalidIndex(*idx);
                return std::nullopt;
            }
            *idx += n;
        }
        if (*idx >= n) {
            *error = invalidIndex(*idx);
            return std::nullopt;
        }
        return static_cast<rapidjson::SizeType>(*idx);
    }

    json::Value& v_;
    json::Allocator& a_;
    Indexes& indexes_;
};

// Mirrors findObject: the container of the path's last token and that token,
// or nothing when a step is missing, null or not a container.
std::optional<std::pair<Container, std::string>> findObject(json::Value& doc, json::Allocator& a,
                                                            Indexes& indexes,
                                                            std::string_view path) {
    std::vector<std::string_view> split;
    size_t start = 0;
    while (true) {
        size_t slash = path.find('/', start);
        split.push_back(
            path.substr(start, slash == std::string_view::npos ? slash : slash - start));
        if (slash == std::string_view::npos) {
            break;
        }
        start = slash + 1;
    }
    if (split.size() < 2) {
        return std::nullopt;
    }
    json::Value* cur = &doc;
    for (size_t i = 1; i + 1 < split.size(); ++i) {
        std::string ignored;
        json::Value* next = Container(*cur, a, indexes).get(decodeKey(split[i]), &ignored);
        if (!next || !(next->IsObject() || next->IsArray())) {
            return std::nullopt;
        }
        cur = next;
    }
    return std::make_pair(Container(*cur, a, indexes), decodeKey(split.back()));
}

// One operation's members, as evanphx/json-patch's Operation reads them.
struct Op {
    const json::Value& m;

    // Kind(): the "op" string, or "unknown".
    std::string kind() const {
        const json::Value* v = json::member(m, "op");
        return v && v->IsString() ? std::string(json::view(*v)) : "unknown";
    }

    // Path() / From(): the string, or why not (missing, or not a string).
    std::optional<std::string> pointer(std::string_view name, std::string* error) const {
        const json::Value* v = json::member(m, name);
        if (!v || v->IsNull()) {
            *error = name == "path" ? "operation missing path field: " + kMissing
                                    : "operation, missing from field: " + kMissing;
            return std::nullopt;
        }
        if (!v->IsString()) {
            *error = "json: cannot unmarshal " + std::string(json::typeName(*v)) +
                     " into Go value of type string";
            return std::nullopt;
        }
        return std::string(json::view(*v));
    }

    // The value member, absent (nullptr) or present (possibly null).
    const json::Value* value() const { return json::member(m, "value"); }
};

json::Value valueOf(const Op& op, json::Allocator& a) {
    const json::Value* v = op.value();
    return v ? *copyValue(*v, a) : json::Value();
}

// RapidJSON's ==, in time linear in the values (its own scans the other
// object for each member) and on a small stack at any depth.
bool jsonEqual(const json::Value& x, const json::Value& y) {
    std::vector<std::pair<const json::Value*, const json::Value*>> stack{{&x, &y}};
    while (!stack.empty()) {
        auto [a, b] = stack.back();
        stack.pop_back();
        if (a->IsObject()) {
            if (!b->IsObject() || a->MemberCount() != b->MemberCount()) {
                return false;
            }
            FlatIndex names;
            bool wide = b->MemberCount() > 16;
            auto begin = b->MemberBegin();
            if (wide) {
                indexNames(*b, names);
            }
            for (const auto& m : a->GetObject()) {
                std::string_view n = json::view(m.name);
                const json::Value* other = nullptr;
                if (wide) {
                    int i = names.find(hashName(n),
                                       [&](int j) { return json::view((begin + j)->name) == n; });
                    other = i < 0 ? nullptr : &(begin + i)->value;
                } else {
                    other = json::member(*b, n);
                }
                if (!other) {
                    return false;
                }
                stack.emplace_back(&m.value, other);
            }
        } else if (a->IsArray()) {
            if (!b->IsArray() || a->Size() != b->Size()) {
                return false;
            }
            for (rapidjson::SizeType i = 0; i < a->Size(); ++i) {
                stack.emplace_back(&(*a)[i], &(*b)[i]);
            }
        } else if (b->IsObject() || b->IsArray() || !(*a == *b)) {
            return false;
        }
    }
    return true;
}

Result addOp(json::Value& doc, json::Allocator& a, Indexes& ix, const Op& op) {
    std::string err;
    auto path = op.pointer("path", &err);
    if (!path) {
        return "add operation failed to decode path: " + kMissing;
    }
    auto found = findObject(doc, a, ix, *path);
    if (!found) {
        return "add operation does not apply: doc is missing path: \"" + *path + "\": " + kMissing;
    }
    if (auto e = found->first.add(found->second, valueOf(op, a))) {
        return "error in add for path: '" + *path + "': " + *e;
    }
    return std::nullopt;
}

Result removeOp(json::Value& doc, json::Allocator& a, Indexes& ix, const Op& op) {
    std::string err;
    auto path = op.pointer("path", &err);
    if (!path) {
        return "remove operation failed to decode path: " + kMissing;
    }
    auto found = findObject(doc, a, ix, *path);
    if (!found) {
        return "remove operation does not apply: doc is missing path: \"" + *path +
               "\": " + kMissing;
    }
    if (auto e = found->first.remove(found->second)) {
        return "error in remove for path: '" + *path + "': " + *e;
    }
    return std::nullopt;
}

Result replaceOp(json::Value& doc, json::Allocator& a, Indexes& ix, const Op& op) {
    std::string err;
    auto path = op.pointer("path", &err);
    if (!path) {
        return "replace operation failed to decode path: " + err;
    }
    if (path->empty()) {
        const json::Value* v = op.value();
        if (!v || !(v->IsObject() || v->IsArray())) {
            // The library wraps a nil error here.
            return std::string("replace operation value must be object or array: %!w(<nil>)");
        }
        doc = *copyValue(*v, a);
        return std::nullopt;
    }
    auto found = findObject(doc, a, ix, *path);
    if (!found) {
        return "replace operation does not apply: doc is missing path: " + *path + ": " + kMissing;
    }
    std::string getError;
    if (!found->first.get(found->second, &getError) && !getError.empty()) {
        return "replace operation does not apply: doc is missing key: " + *path + ": " + kMissing;
    }
    if (auto e = found->first.set(found->second, valueOf(op, a))) {
        return "error in remove for path: '" + *path + "': " + *e;
    }
    return std::nullopt;
}

Result moveOp(json::Value& doc, json::Allocator& a, Indexes& ix, const Op& op) {
    std::string err;
    auto from = op.pointer("from", &err);
    if (!from) {
        return "move operation failed to decode from: " + err;
    }
    auto source = findObject(doc, a, ix, *from);
    if (!source) {
        return "move operation does not apply: doc is missing from path: " + *from + ": " +
               kMissing;
    }
    const std::string& key = source->second;
    json::Value* v = source->first.get(key, &err);
    if (!v && !err.empty()) {
        return "error in move for path: '" + key + "': " + err;
    }
    // The value itself moves, as the library moves its node.
    json::Value moved;
    if (v) {
        moved.Swap(*v);
    }
    if (auto e = source->first.remove(key)) {
        return "error in move for path: '" + key + "': " + *e;
    }
    auto path = op.pointer("path", &err);
    if (!path) {
        return "move operation failed to decode path: " + err;
    }
    auto target = findObject(doc, a, ix, *path);
    if (!target) {
        return "move operation does not apply: doc is missing destination path: " + *path + ": " +
               kMissing;
    }
    if (auto e = target->first.add(target->second, std::move(moved))) {
        return "error in move for path: '" + *path + "': " + *e;
    }
    return std::nullopt;
}

Result testOp(json::Value& doc, json::Allocator& a, Indexes& ix, const Op& op) {
    std::string err;
    auto path = op.pointer("path", &err);
    if (!path) {
        return "test operation failed to decode path: " + err;
    }
    const json::Value* want = op.value();
    std::string failed = "testing value " + *path + " failed: test failed";
    if (path->empty()) {
        ix.settle(doc);
        if (want && jsonEqual(doc, *want)) {
            return std::nullopt;
        }
        return failed;
    }
    auto found = findObject(doc, a, ix, *path);
    if (!found) {
        return "test operation does not apply: is missing path: " + *path + ": " + kMissing;
    }
    json::Value* have = found->first.get(found->second, &err);
    if (!have && !err.empty()) {
        return "error in test for path: '" + *path + "': " + err;
    }
    // An absent key and a null value are the same to the library.
    if (!have || have->IsNull()) {
        if (!want || want->IsNull()) {
            return std::nullopt;
        }
        return failed;
    }
    ix.settle(*have);
    if (want && jsonEqual(*have, *want)) {
        return std::nullopt;
    }
    return failed;
}

// The length of encoding/json's Marshal of `v` (what deepCopy counts),
// without building it and on a small stack at any depth: scalars and keys
// as goMarshal() writes them, punctuation counted.
size_t marshaledSize(const json::Value& v) {
    size_t size = 0;
    std::vector<const json::Value*> stack{&v};
    while (!stack.empty()) {
        const json::Value* cur = stack.back();
        stack.pop_back();
        if (cur->IsObject()) {
            size_t n = cur->MemberCount();
            size += 2 + (n ? n - 1 : 0) + n;  // braces, commas, colons
            for (const auto& m : cur->GetObject()) {
                size += goMarshal(m.name).size();
                stack.push_back(&m.value);
            }
        } else if (cur->IsArray()) {
            size_t n = cur->Size();
            size += 2 + (n ? n - 1 : 0);
            for (const auto& item : cur->GetArray()) {
                stack.push_back(&item);
            }
        } else {
            size += goMarshal(*cur).size();
        }
    }
    return size;
}

// How much "copy" operations may add to the document, in bytes of JSON:
// kube-apiserver's JSONPatchMaxCopyBytes (jsonpatch.AccumulatedCopySizeLimit),
// its largest request body.
constexpr long long kAccumulatedCopySizeLimit = 3 * 1024 * 1024;

Result copyOp(json::Value& doc, json::Allocator& a, Indexes& ix, const Op& op, long long* copied) {
    std::string err;
    auto from = op.pointer("from", &err);
    if (!from) {
        return "copy operation failed to decode from: " + err;
    }
    auto source = findObject(doc, a, ix, *from);
    if (!source) {
        return "copy operation does not apply: doc is missing from path: " + *from + ": " +
               kMissing;
    }
    json::Value* v = source->first.get(source->second, &err);
    if (!v && !err.empty()) {
        return "error in copy for from: '" + *from + "': " + err;
    }
    // Settled before the destination is found: settling moves members.
    if (v) {
        ix.settle(*v);
    }
    auto path = op.pointer("path", &err);
    if (!path) {
        return "copy operation failed to decode path: " + kMissing;
    }
    auto target = findObject(doc, a, ix, *path);
    if (!target) {
        return "copy operation does not apply: doc is missing destination path: " + *path + ": " +
               kMissing;
    }
    // deepCopy counts the bytes of the value's JSON, and the patch fails
    // once the copies together pass the limit.
    json::Value value;
    if (v) {
        *copied += static_cast<long long>(marshaledSize(*v));
        if (*copied > kAccumulatedCopySizeLimit) {
            return "Unable to complete the copy, the accumulated size increase of copy is " +
                   std::to_string(*copied) + ", exceeding the limit " +
                   std::to_string(kAccumulatedCopySizeLimit);
        }
        value = *copyValue(*v, a);
    }
    if (auto e = target->first.add(target->second, std::move(value))) {
        return "error while adding value during copy: " + *e;
    }
    return std::nullopt;
}

// The strict decoder reports each distinct error once.
void report(std::vector<std::string>* errors, std::string e) {
    if (std::find(errors->begin(), errors->end(), e) == errors->end()) {
        errors->push_back(std::move(e));
    }
}

// The strict decoding kube's handler does before the library's: into
// []jsonPatchOp{Op, Path, From string; Value interface{}}.
std::optional<std::string> strictDecode(json::Value& ops, std::vector<std::string>* strictErrors) {
    const std::string listType = "[]handlers.jsonPatchOp";
    if (ops.IsNull()) {
        return std::nullopt;
    }
    if (!ops.IsArray()) {
        return "json: cannot unmarshal " + std::string(json::typeName(ops)) +
               " into Go value of type " + listType;
    }
    std::optional<std::string> firstError;
    for (rapidjson::SizeType i = 0; i < ops.Size(); ++i) {
        json::Value& op = ops[i];
        std::string at = "[" + std::to_string(i) + "]";
        if (op.IsNull()) {
            continue;
        }
        if (!op.IsObject()) {
            if (!firstError) {
                firstError = "json: cannot unmarshal " + std::string(json::typeName(op)) +
                             " into Go value of type handlers.jsonPatchOp";
            }
            continue;
        }
        std::vector<std::string_view> seen;
        for (auto& m : op.GetObject()) {
            std::string_view name = json::view(m.name);
            std::string path = childPath(at, name);
            bool known = name == "op" || name == "path" || name == "from" || name == "value";
            if (!known) {
                report(strictErrors, "json patch unknown field \"" + path + "\"");
                continue;
            }
            if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
                report(strictErrors, "json patch duplicate field \"" + path + "\"");
            }
            seen.push_back(name);
            if (name == "value") {
                std::vector<std::string> nested;
                dropDuplicateFields(m.value, path, &nested);
                for (std::string& e : nested) {
                    report(strictErrors, "json patch " + e);
                }
            } else if (!m.value.IsString() && !m.value.IsNull() && !firstError) {
                firstError = "json: cannot unmarshal " + std::string(json::typeName(m.value)) +
                             " into Go struct field jsonPatchOp." + std::string(name) +
                             " of type string";
            }
        }
    }
    return firstError;
}

}  // namespace

std::optional<JsonPatch> JsonPatch::decode(std::string_view body, bool strict,
                                           std::vector<std::string>* strictErrors, Error* error) {
    auto doc = std::make_shared<json::Document>();
    if (auto err = json::parse(body, *doc)) {
        *error = {Error::Kind::BadRequest, strict ? "error decoding patch: " + *err : *err};
        return std::nullopt;
    }
    std::vector<std::string> unused;
    if (!strictErrors) {
        strictErrors = &unused;
    }
    if (strict) {
        json::Document copy;
        copy.CopyFrom(*doc, copy.GetAllocator());
        if (auto err = strictDecode(copy, strictErrors)) {
            *error = {Error::Kind::BadRequest, "error decoding patch: " + *err};
            return std::nullopt;
        }
    }
    // jsonpatch.DecodePatch: a list of operations, each an object.
    if (doc->IsNull()) {
        doc->SetArray();
    }
    if (!doc->IsArray()) {
        *error = {Error::Kind::BadRequest, "json: cannot unmarshal " +
                                               std::string(json::typeName(*doc)) +
                                               " into Go value of type jsonpatch.Patch"};
        return std::nullopt;
    }
    for (auto& op : doc->GetArray()) {
        if (op.IsNull()) {
            op.SetObject();
        }
        if (!op.IsObject()) {
            *error = {Error::Kind::BadRequest, "json: cannot unmarshal " +
                                                   std::string(json::typeName(op)) +
                                                   " into Go value of type jsonpatch.Operation"};
            return std::nullopt;
        }
        // The last of a repeated member wins, as in a Go map.
        dropDuplicateFields(op, "", nullptr);
    }
    return JsonPatch(std::move(doc));
}

bool JsonPatch::mayCopy(std::string_view body) {
    return body.find("copy") != std::string_view::npos ||
           body.find('\\') != std::string_view::npos;
}

size_t JsonPatch::size() const {
    return ops_->Size();
}

std::optional<Error> JsonPatch::apply(json::Document& doc) const {
    json::Allocator& a = doc.GetAllocator();
    Indexes ix;
    long long copied = 0;
    std::optional<Error> failed;
    for (const json::Value& m : ops_->GetArray()) {
        Op op{m};
        std::string kind = op.kind();
        Result r;
        if (kind == "add") {
            r = addOp(doc, a, ix, op);
        } else if (kind == "remove") {
            r = removeOp(doc, a, ix, op);
        } else if (kind == "replace") {
            r = replaceOp(doc, a, ix, op);
        } else if (kind == "move") {
            r = moveOp(doc, a, ix, op);
        } else if (kind == "test") {
            r = testOp(doc, a, ix, op);
        } else if (kind == "copy") {
            r = copyOp(doc, a, ix, op, &copied);
        } else {
            r = "Unexpected kind: " + kind;
        }
        if (r) {
            failed = Error{Error::Kind::Unprocessable, std::move(*r)};
            break;
        }
    }
    ix.settle(doc);
    return failed;
}

}  // namespace kube::registry::patch
