#include "registry/patch/patch_document.hpp"

#include <functional>

#include "registry/patch/flat_index.hpp"
#include "registry/patch/member_index.hpp"

namespace kube::registry::patch {

namespace json = util::json;

namespace {

constexpr std::string_view kDirective = "$patch";

// Whether an object is left out of a copy as a directive.
bool isDirective(const json::Value& v, CopyFilter filter) {
    if (!filter.directives || !v.IsObject()) {
        return false;
    }
    const json::Value* d = json::member(v, kDirective);
    return d && !(filter.nulls && d->IsNull());
}

// One object or array of dropDuplicateFields' walk.
struct DedupFrame {
    DedupFrame(json::Value* value, std::string_view seg, rapidjson::SizeType at, bool isItem)
        : v(value), segment(seg), index(at), item(isItem) {}

    json::Value* v;
    // How the parent names this value: a member name, or its index for an
    // item ("[i]").
    // (The name stays in the parent's member while this value is walked.)
    std::string_view segment;
    rapidjson::SizeType index = 0;
    bool item = false;
    rapidjson::SizeType next = 0;
    // Objects: the first member of each member's name when it is not the
    // member itself (-1; empty when no name is repeated), the members to
    // drop (moved into their first place), and the member being walked: a
    // repetition of the one at `into` when `repeated`.
    std::vector<int> first;
    std::vector<bool> dropped;
    bool repeated = false;
    rapidjson::SizeType into = 0;
    // This value's path, built when an error first needs it.
    std::optional<std::string> path;
};

// The path of the value at `stack[k]`, kept for the next error there.
const std::string& pathOf(std::vector<DedupFrame>& stack, size_t k) {
    DedupFrame& f = stack[k];
    if (!f.path) {
        std::string p(stack[0].segment);
        for (size_t i = 1; i <= k; ++i) {
            p = stack[i].item ? p + "[" + std::to_string(stack[i].index) + "]"
                              : childPath(p, stack[i].segment);
        }
        f.path = std::move(p);
    }
    return *f.path;
}

// Each member's first same-named member (-1: itself) in `obj`, or nothing
// when no name is repeated. A wide object's names are hashed, with the next
// few names' slots loaded while one is looked up.
std::vector<int> firstOfNames(const json::Value& obj) {
    constexpr rapidjson::SizeType kScanned = 16;
    constexpr size_t kAhead = 32;
    rapidjson::SizeType n = obj.MemberCount();
    auto begin = obj.MemberBegin();
    std::vector<int> first;
    bool repeated = false;
    if (n <= kScanned) {
        for (rapidjson::SizeType i = 1; i < n; ++i) {
            std::string_view name = json::view((begin + i)->name);
            for (rapidjson::SizeType j = 0; j < i; ++j) {
                if (json::view((begin + j)->name) == name) {
                    first.resize(n, -1);
                    first[i] = static_cast<int>(j);
                    repeated = true;
                    break;
                }
            }
        }
    } else {
        first.assign(n, -1);
        std::vector<size_t> hashes(n);
        for (rapidjson::SizeType i = 0; i < n; ++i) {
            hashes[i] = hashName(json::view((begin + i)->name));
        }
        FlatIndex index;
        index.reserve(n);
        for (rapidjson::SizeType i = 0; i < n; ++i) {
            if (i + kAhead < n) {
                index.prefetch(hashes[i + kAhead]);
            }
            std::string_view name = json::view((begin + i)->name);
            first[i] = index.insertFirst(hashes[i], static_cast<int>(i), [&](int j) {
                return json::view((begin + j)->name) == name;
            });
            repeated = repeated || first[i] >= 0;
        }
    }
    if (!repeated) {
        first.clear();
    }
    return first;
}

// The walk leaves an object: its repeated members go, the others keep
// their order.
void dropRepeated(DedupFrame& f) {
    if (!f.v->IsObject() || f.dropped.empty()) {
        return;
    }
    json::eraseMembersIf(*f.v, [&](rapidjson::SizeType i, const json::Value::Member&) {
        return i < f.dropped.size() && f.dropped[i];
    });
}

// The member just walked (value and all) is done: a repetition replaces the
// first one's value.
void finishMember(DedupFrame& f) {
    if (!f.repeated) {
        return;
    }
    rapidjson::SizeType current = f.next - 1;
    auto begin = f.v->MemberBegin();
    (begin + f.into)->value.Swap((begin + current)->value);
    if (f.dropped.size() <= current) {
        f.dropped.resize(f.v->MemberCount(), false);
    }
    f.dropped[current] = true;
    f.repeated = false;
}

}  // namespace

namespace {

// A scalar as the parser would have produced it, into `out`.
void emitScalar(const json::Value& v, json::Document& out) {
    if (v.IsString()) {
        out.String(v.GetString(), v.GetStringLength(), true);
    } else if (v.IsBool()) {
        out.Bool(v.GetBool());
    } else if (v.IsUint()) {
        out.Uint(v.GetUint());
    } else if (v.IsInt()) {
        out.Int(v.GetInt());
    } else if (v.IsUint64()) {
        out.Uint64(v.GetUint64());
    } else if (v.IsInt64()) {
        out.Int64(v.GetInt64());
    } else if (v.IsNumber()) {
        out.Double(v.GetDouble());
    } else {
        out.Null();
    }
}

// The walk of copyValue, as RapidJSON's parser builds a document: each
// object and array is allocated once at its final size (AddMember would
// give every object room for 16 members).
struct CopyWalk {
    const json::Value& v;
    CopyFilter filter;

    bool operator()(json::Document& out) const {
        struct Frame {
            const json::Value* src;
            rapidjson::SizeType next;
            rapidjson::SizeType kept;
        };
        std::vector<Frame> stack;
        auto open = [&](const json::Value& c) {
            c.IsObject() ? out.StartObject() : out.StartArray();
            stack.push_back({&c, 0, 0});
        };
        open(v);
        while (!stack.empty()) {
            Frame& f = stack.back();
            bool object = f.src->IsObject();
            rapidjson::SizeType n = object ? f.src->MemberCount() : f.src->Size();
            if (f.next == n) {
                object ? out.EndObject(f.kept) : out.EndArray(f.kept);
                stack.pop_back();
                continue;
            }
            rapidjson::SizeType i = f.next++;
            const json::Value& child = object ? (f.src->MemberBegin() + i)->value : (*f.src)[i];
            if ((object && filter.nulls && child.IsNull()) || isDirective(child, filter)) {
                continue;
            }
            ++f.kept;
            if (object) {
                const json::Value& name = (f.src->MemberBegin() + i)->name;
                out.Key(name.GetString(), name.GetStringLength(), true);
            }
            if (child.IsObject() || child.IsArray()) {
                open(child);  // `f` is not used after this
            } else {
                emitScalar(child, out);
            }
        }
        return true;
    }
};

}  // namespace

std::optional<json::Value> copyValue(const json::Value& v, json::Allocator& a, CopyFilter filter) {
    if (isDirective(v, filter)) {
        return std::nullopt;
    }
    if (!v.IsObject() && !v.IsArray()) {
        return json::Value(v, a);
    }
    // Built in `a`, which the document only borrows.
    json::Document out(&a);
    CopyWalk walk{v, filter};
    out.Populate(walk);
    json::Value copy;
    copy.Swap(out);
    return std::optional<json::Value>(std::move(copy));
}

std::string childPath(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

void dropDuplicateFields(json::Value& v, const std::string& path,
                         std::vector<std::string>* errors) {
    if (!v.IsObject() && !v.IsArray()) {
        return;
    }
    // Go decodes members in order: a repeated key is reported when it is met
    // again, before the members of its value, and its value replaces the
    // earlier one.
    std::vector<DedupFrame> stack;
    stack.emplace_back(&v, path, 0, false);
    while (!stack.empty()) {
        size_t top = stack.size() - 1;
        DedupFrame& f = stack[top];
        bool object = f.v->IsObject();
        if (object && f.next > 0) {
            finishMember(f);
        }
        rapidjson::SizeType n = object ? f.v->MemberCount() : f.v->Size();
        if (f.next == n) {
            dropRepeated(f);
            stack.pop_back();
            continue;
        }
        rapidjson::SizeType i = f.next++;
        json::Value* child = nullptr;
        std::string_view segment;
        if (object) {
            auto m = f.v->MemberBegin() + i;
            std::string_view name = json::view(m->name);
            if (i == 0) {
                f.first = firstOfNames(*f.v);
            }
            int seen = f.first.empty() ? -1 : f.first[i];
            if (seen >= 0) {
                f.repeated = true;
                f.into = static_cast<rapidjson::SizeType>(seen);
                if (errors) {
                    errors->push_back("duplicate field \"" + childPath(pathOf(stack, top), name) +
                                      "\"");
                }
            }
            child = &m->value;
            segment = name;
        } else {
            child = &(*f.v)[i];
        }
        if (child->IsObject() || child->IsArray()) {
            // The member's value is walked before the member is finished.
            stack.emplace_back(child, segment, i, !object);
        }
    }
}

std::optional<std::string> decodePatchMap(std::string_view body, json::Document& out,
                                          std::vector<std::string>* strictErrors) {
    if (auto err = json::parse(body, out)) {
        return err;
    }
    if (!out.IsObject() && !out.IsNull()) {
        return "json: cannot unmarshal " + std::string(json::typeName(out)) +
               " into Go value of type map[string]interface {}";
    }
    dropDuplicateFields(out, "", strictErrors);
    return std::nullopt;
}

}  // namespace kube::registry::patch
