#include "registry/apply/typed.hpp"

#include <algorithm>

#include "registry/patch/member_index.hpp"

namespace kube::registry::apply {

namespace json = util::json;

namespace {

using Kind = TypeRef::Kind;

// How a walk treats a node: whole (a leaf), member by member, or item by item.
enum class Shape { Leaf, Map, List };

bool emptyOrNull(const json::Value* v) {
    return !v || v->IsNull() || (v->IsObject() && v->ObjectEmpty()) || (v->IsArray() && v->Empty());
}

// For each member of object `from`, in its order, the member of `in` (an
// object or absent) with its name, or null. RapidJSON finds a member by
// scanning, so two wide objects are matched through a hash index instead:
// 40,000 keys scanned for each of 40,000 take seconds.
std::vector<const json::Value*> matchMembers(const json::Value& from, const json::Value* in) {
    constexpr size_t kScanned = 256;
    std::vector<const json::Value*> out;
    out.reserve(from.MemberCount());
    if (!in || !in->IsObject() ||
        static_cast<size_t>(from.MemberCount()) * in->MemberCount() <= kScanned) {
        for (const auto& m : from.GetObject()) {
            out.push_back(in ? json::member(*in, json::view(m.name)) : nullptr);
        }
        return out;
    }
    patch::MemberIndex index(*in);
    for (int p : index.positions(*in, from)) {
        out.push_back(p < 0 ? nullptr : &(in->MemberBegin() + p)->value);
    }
    return out;
}

// The shape of a node holding `lhs` and `rhs` (either may be absent). A
// value of the wrong JSON type for its schema is a leaf.
Shape shapeOf(const TypeRef& t, const json::Value* lhs, const json::Value* rhs) {
    auto fits = [](const json::Value* v, bool object) {
        return !v || v->IsNull() || (object ? v->IsObject() : v->IsArray());
    };
    switch (t.kind()) {
        case Kind::Scalar:
            return Shape::Leaf;
        case Kind::Struct:
        case Kind::Map:
            if (t.atomic() || !fits(lhs, true) || !fits(rhs, true) ||
                (emptyOrNull(lhs) && emptyOrNull(rhs))) {
                return Shape::Leaf;
            }
            return Shape::Map;
        case Kind::List:
            if (t.atomic() || !fits(lhs, false) || !fits(rhs, false) ||
                (emptyOrNull(lhs) && emptyOrNull(rhs))) {
                return Shape::Leaf;
            }
            return Shape::List;
        case Kind::Untyped:
            break;
    }
    // Untyped: objects are granular maps, everything else a leaf.
    if ((lhs && !lhs->IsObject()) || (rhs && !rhs->IsObject()) ||
        (emptyOrNull(lhs) && emptyOrNull(rhs))) {
        return Shape::Leaf;
    }
    return Shape::Map;
}

std::string prefixed(const Path& path, const std::string& msg) {
    std::string p = pathString(path);
    return p.empty() ? msg : p + ": " + msg;
}

// listItemToPathElement: how a list item is named.
std::optional<PathElement> itemElement(const TypeRef& t, const json::Value& item, int index,
                                       std::string* error) {
    if (t.listType() == TypeRef::ListType::Atomic) {
        return PathElement::ofIndex(index);
    }
    const auto& keys = t.keys();
    if (t.listType() == TypeRef::ListType::Map && !keys.empty()) {
        if (item.IsNull()) {
            *error = "associative list with keys may not have a null element";
            return std::nullopt;
        }
        if (!item.IsObject()) {
            *error = "associative list with keys may not have non-map elements";
            return std::nullopt;
        }
        std::vector<KeyField> fields;
        fields.reserve(keys.size());
        for (const std::string& k : keys) {
            if (const json::Value* v = json::member(item, k)) {
                fields.push_back({k, ItemValue::from(*v)});
            } else if (auto def = t.keyDefault(k)) {
                fields.push_back({k, *def});
            } else {
                *error = "associative list with keys has an element that omits key field \"" + k +
                         "\" (and doesn't have default value)";
                return std::nullopt;
            }
        }
        return PathElement::keyed(std::move(fields));
    }
    if (item.IsObject()) {
        *error = "associative list without keys has an element that's a map type";
        return std::nullopt;
    }
    if (item.IsArray()) {
        *error = "not supported: associative list with lists as elements";
        return std::nullopt;
    }
    if (item.IsNull()) {
        *error = "associative list without keys has an element that's an explicit null";
        return std::nullopt;
    }
    return PathElement::ofValue(ItemValue::from(item));
}

struct IndexedItem {
    PathElement element;
    const json::Value* value;
    size_t order;
};

using SortedItems = std::vector<const IndexedItem*>;

// The items of list `v` named by their elements, in list order, plus
// pointers to them sorted for lookups; fails on an unnamable or repeated
// item.
std::optional<std::string> indexItems(const TypeRef& t, const json::Value* v, Path& path,
                                      std::vector<IndexedItem>& ordered, SortedItems& sorted) {
    if (!v || !v->IsArray()) {
        return std::nullopt;
    }
    ordered.reserve(v->Size());
    for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
        std::string error;
        auto pe = itemElement(t, (*v)[i], static_cast<int>(i), &error);
        if (!pe) {
            return prefixed(path, "element " + std::to_string(i) + ": " + error);
        }
        ordered.push_back({std::move(*pe), &(*v)[i], i});
    }
    sorted.reserve(ordered.size());
    for (const IndexedItem& item : ordered) {
        sorted.push_back(&item);
    }
    std::sort(sorted.begin(), sorted.end(), [](const IndexedItem* a, const IndexedItem* b) {
        return a->element.compare(b->element) < 0;
    });
    for (size_t i = 1; i < sorted.size(); ++i) {
        if (sorted[i - 1]->element.compare(sorted[i]->element) == 0) {
            return prefixed(path, "duplicate entries for key " + sorted[i]->element.toString());
        }
    }
    return std::nullopt;
}

const json::Value* lookup(const SortedItems& sorted, const PathElement& pe) {
    auto it = std::lower_bound(
        sorted.begin(), sorted.end(), pe,
        [](const IndexedItem* a, const PathElement& e) { return a->element.compare(e) < 0; });
    return it != sorted.end() && (*it)->element.compare(pe) == 0 ? (*it)->value : nullptr;
}

// value.Equals: numbers compare numerically, objects regardless of order.
bool deepEqual(const json::Value& a, const json::Value& b) {
    if (a.IsNumber() && b.IsNumber()) {
        if (a.IsInt64() && b.IsInt64()) {
            return a.GetInt64() == b.GetInt64();
        }
        return a.GetDouble() == b.GetDouble();
    }
    if (a.GetType() != b.GetType()) {
        return false;
    }
    if (a.IsString()) {
        return json::view(a) == json::view(b);
    }
    if (a.IsArray()) {
        if (a.Size() != b.Size()) {
            return false;
        }
        for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
            if (!deepEqual(a[i], b[i])) {
                return false;
            }
        }
        return true;
    }
    if (a.IsObject()) {
        if (a.MemberCount() != b.MemberCount()) {
            return false;
        }
        std::vector<const json::Value*> inB = matchMembers(a, &b);
        size_t i = 0;
        for (const auto& m : a.GetObject()) {
            const json::Value* o = inB[i++];
            if (!o || !deepEqual(m.value, *o)) {
                return false;
            }
        }
        return true;
    }
    return true;  // null, or bools of one type (true/false are distinct types)
}

// ---- ToFieldSet ----

void collect(const json::Value& v, const TypeRef& t, FieldSet& here);

// Whether a node holding `v` is a member by its own right: a scalar, an
// atomic map or list, a value of another JSON type than its schema's, an
// untyped non-object. (Granular maps and lists are members only when null,
// empty or undeclared, which their parent decides.)
bool isLeaf(const json::Value& v, const TypeRef& t) {
    switch (t.kind()) {
        case Kind::Scalar:
            return true;
        case Kind::Struct:
        case Kind::Map:
            return t.atomic() || !v.IsObject();
        case Kind::List:
            return t.atomic() || !v.IsArray();
        case Kind::Untyped:
            return !v.IsObject();
    }
    return true;
}

void collectMap(const json::Value& v, const TypeRef& t, FieldSet& here) {
    for (const auto& m : v.GetObject()) {
        bool declared = false;
        TypeRef ft = t.member(json::view(m.name), &declared);
        PathElement pe = PathElement::field(std::string(json::view(m.name)));
        collect(m.value, ft, here.appendChild(pe));
        if (isLeaf(m.value, ft) || (m.value.IsObject() && m.value.ObjectEmpty()) || !declared) {
            here.appendMember(pe);
        }
    }
}

void collect(const json::Value& v, const TypeRef& t, FieldSet& here) {
    // `here` holds the paths below this node; the caller decides whether the
    // node itself is a member.
    if (v.IsObject() && !t.atomic() &&
        (t.kind() == Kind::Struct || t.kind() == Kind::Map || t.kind() == Kind::Untyped)) {
        collectMap(v, t, here);
        return;
    }
    if (v.IsArray() && t.kind() == Kind::List && !t.atomic()) {
        TypeRef it = t.item();
        for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
            std::string error;
            auto pe = itemElement(t, v[i], static_cast<int>(i), &error);
            if (!pe) {
                continue;
            }
            collect(v[i], it, here.appendChild(*pe));
            here.appendMember(*pe);
        }
    }
}

// ---- Validate ----

// Names every list item as merge and compare will (the path is built only
// to report an error).
std::optional<std::string> validateNode(const json::Value& v, const TypeRef& t, Path& path) {
    if (v.IsObject() && !isLeaf(v, t)) {
        bool declared = false;
        for (const auto& m : v.GetObject()) {
            if (!m.value.IsObject() && !m.value.IsArray()) {
                continue;
            }
            path.push_back(PathElement::field(std::string(json::view(m.name))));
            auto err = validateNode(m.value, t.member(json::view(m.name), &declared), path);
            path.pop_back();
            if (err) {
                return err;
            }
        }
        return std::nullopt;
    }
    if (!v.IsArray() || isLeaf(v, t) || v.Empty()) {
        return std::nullopt;
    }
    std::vector<IndexedItem> ordered;
    SortedItems sorted;
    if (auto err = indexItems(t, &v, path, ordered, sorted)) {
        return err;
    }
    TypeRef it = t.item();
    for (IndexedItem& item : ordered) {
        if (!item.value->IsObject() && !item.value->IsArray()) {
            continue;
        }
        path.push_back(std::move(item.element));
        auto err = validateNode(*item.value, it, path);
        path.pop_back();
        if (err) {
            return err;
        }
    }
    return std::nullopt;
}

// ---- Compare ----

class Comparer {
  public:
    explicit Comparer(Comparison& out) : out_(out) {}

    std::optional<std::string> walk(const json::Value* lhs, const json::Value* rhs,
                                    const TypeRef& t) {
        switch (shapeOf(t, lhs, rhs)) {
            case Shape::Leaf:
                if (!lhs) {
                    out_.added.appendPath(path_);
                } else if (!rhs) {
                    out_.removed.appendPath(path_);
                } else if (!deepEqual(*lhs, *rhs)) {
                    out_.modified.appendPath(path_);
                }
                return std::nullopt;
            case Shape::Map:
                if (auto err = walkMap(lhs, rhs, t)) {
                    return err;
                }
                break;
            case Shape::List:
                if (auto err = walkList(lhs, rhs, t)) {
                    return err;
                }
                break;
        }
        if (!lhs) {
            out_.added.appendPath(path_);
        } else if (!rhs) {
            out_.removed.appendPath(path_);
        }
        return std::nullopt;
    }

  private:
    std::optional<std::string> child(PathElement pe, const json::Value* l, const json::Value* r,
                                     const TypeRef& t) {
        path_.push_back(std::move(pe));
        auto err = walk(l, r, t);
        path_.pop_back();
        return err;
    }

    std::optional<std::string> walkMap(const json::Value* lhs, const json::Value* rhs,
                                       const TypeRef& t) {
        bool declared = false;
        if (lhs && lhs->IsObject()) {
            std::vector<const json::Value*> inR = matchMembers(*lhs, rhs);
            size_t i = 0;
            for (const auto& m : lhs->GetObject()) {
                const json::Value* r = inR[i++];
                if (auto err = child(PathElement::field(std::string(json::view(m.name))), &m.value,
                                     r, t.member(json::view(m.name), &declared))) {
                    return err;
                }
            }
        }
        if (rhs && rhs->IsObject()) {
            std::vector<const json::Value*> inL = matchMembers(*rhs, lhs);
            size_t i = 0;
            for (const auto& m : rhs->GetObject()) {
                if (inL[i++]) {
                    continue;
                }
                if (auto err = child(PathElement::field(std::string(json::view(m.name))), nullptr,
                                     &m.value, t.member(json::view(m.name), &declared))) {
                    return err;
                }
            }
        }
        return std::nullopt;
    }

    std::optional<std::string> walkList(const json::Value* lhs, const json::Value* rhs,
                                        const TypeRef& t) {
        std::vector<IndexedItem> lOrder, rOrder;
        SortedItems lSorted, rSorted;
        if (auto err = indexItems(t, rhs, path_, rOrder, rSorted)) {
            return err;
        }
        if (auto err = indexItems(t, lhs, path_, lOrder, lSorted)) {
            return err;
        }
        TypeRef it = t.item();
        for (const IndexedItem& l : lOrder) {
            if (auto err = child(l.element, l.value, lookup(rSorted, l.element), it)) {
                return err;
            }
        }
        for (const IndexedItem& r : rOrder) {
            if (!lookup(lSorted, r.element)) {
                if (auto err = child(r.element, nullptr, r.value, it)) {
                    return err;
                }
            }
        }
        return std::nullopt;
    }

    Comparison& out_;
    Path path_;
};

// ---- Merge ----

class Merger {
  public:
    explicit Merger(json::Allocator& a) : a_(a) {}

    // Sets `out` to the merge of `lhs` and `rhs` (at least one present).
    std::optional<std::string> walk(const json::Value* lhs, const json::Value* rhs,
                                    const TypeRef& t, json::Value& out) {
        switch (shapeOf(t, lhs, rhs)) {
            case Shape::Leaf:
                out.CopyFrom(rhs ? *rhs : *lhs, a_);
                return std::nullopt;
            case Shape::Map:
                return walkMap(lhs, rhs, t, out);
            case Shape::List:
                return walkList(lhs, rhs, t, out);
        }
        return std::nullopt;
    }

  private:
    std::optional<std::string> child(PathElement pe, const json::Value* l, const json::Value* r,
                                     const TypeRef& t, json::Value& out) {
        path_.push_back(std::move(pe));
        auto err = walk(l, r, t, out);
        path_.pop_back();
        return err;
    }

    std::optional<std::string> walkMap(const json::Value* lhs, const json::Value* rhs,
                                       const TypeRef& t, json::Value& out) {
        out.SetObject();
        bool declared = false;
        if (lhs && lhs->IsObject()) {
            std::vector<const json::Value*> inR = matchMembers(*lhs, rhs);
            size_t i = 0;
            for (const auto& m : lhs->GetObject()) {
                std::string_view k = json::view(m.name);
                const json::Value* r = inR[i++];
                json::Value v;
                if (auto err = child(PathElement::field(std::string(k)), &m.value, r,
                                     t.member(k, &declared), v)) {
                    return err;
                }
                out.AddMember(json::stringValue(k, a_), v, a_);
            }
        }
        if (rhs && rhs->IsObject()) {
            std::vector<const json::Value*> inL = matchMembers(*rhs, lhs);
            size_t i = 0;
            for (const auto& m : rhs->GetObject()) {
                std::string_view k = json::view(m.name);
                if (inL[i++]) {
                    continue;
                }
                json::Value v;
                if (auto err = child(PathElement::field(std::string(k)), nullptr, &m.value,
                                     t.member(k, &declared), v)) {
                    return err;
                }
                out.AddMember(json::stringValue(k, a_), v, a_);
            }
        }
        return std::nullopt;
    }

    std::optional<std::string> item(const IndexedItem& pe, const json::Value* l,
                                    const json::Value* r, const TypeRef& it, json::Value& out) {
        json::Value v;
        if (auto err = child(pe.element, l, r, it, v)) {
            return err;
        }
        out.PushBack(v, a_);
        return std::nullopt;
    }

    // mergingWalker.visitListItems: shared items follow rhs's order, lhs-only
    // items stay where they were relative to them.
    std::optional<std::string> walkList(const json::Value* lhs, const json::Value* rhs,
                                        const TypeRef& t, json::Value& out) {
        std::vector<IndexedItem> lOrder, rOrder;
        SortedItems lSorted, rSorted;
        if (auto err = indexItems(t, rhs, path_, rOrder, rSorted)) {
            return err;
        }
        if (auto err = indexItems(t, lhs, path_, lOrder, lSorted)) {
            return err;
        }
        out.SetArray();
        TypeRef it = t.item();
        std::vector<const IndexedItem*> shared;
        for (const IndexedItem& r : rOrder) {
            if (lookup(lSorted, r.element)) {
                shared.push_back(&r);
            }
        }
        size_t nextShared = 0;
        auto sharedIs = [&](const PathElement& pe) {
            return nextShared < shared.size() && shared[nextShared]->element.compare(pe) == 0;
        };
        size_t l = 0;
        size_t r = 0;
        while (l < lOrder.size() || r < rOrder.size()) {
            size_t before = l + r;
            if (l < lOrder.size() && r < rOrder.size()) {
                const IndexedItem& li = lOrder[l];
                if (li.element.compare(rOrder[r].element) == 0) {
                    if (auto err = item(li, li.value, rOrder[r].value, it, out)) {
                        return err;
                    }
                    ++l;
                    ++r;
                    ++nextShared;
                    continue;
                }
                if (lookup(rSorted, li.element) && nextShared < shared.size() &&
                    !sharedIs(li.element)) {
                    ++l;
                    continue;
                }
            }
            if (l < lOrder.size() && !lookup(rSorted, lOrder[l].element)) {
                if (auto err = item(lOrder[l], lOrder[l].value, nullptr, it, out)) {
                    return err;
                }
                ++l;
                continue;
            }
            if (r < rOrder.size()) {
                const IndexedItem& ri = rOrder[r];
                if (auto err = item(ri, lookup(lSorted, ri.element), ri.value, it, out)) {
                    return err;
                }
                ++r;
                if (sharedIs(ri.element)) {
                    ++nextShared;
                }
            }
            if (l + r == before) {
                ++l;  // an lhs item already merged through rhs's order
            }
        }
        return std::nullopt;
    }

    json::Allocator& a_;
    Path path_;
};

// ---- RemoveItems ----

json::Value removeFrom(const json::Value& v, const FieldSet& items, const TypeRef& t,
                       json::Allocator& a) {
    if (t.kind() == Kind::Scalar || (t.kind() == Kind::Untyped && !v.IsObject() && !v.IsArray())) {
        return json::Value(v, a);
    }
    bool mapLike = v.IsObject() && t.kind() != Kind::List;
    bool listLike = v.IsArray() && t.kind() == Kind::List;
    // As removingWalker: an atomic, empty or mistyped node is left null.
    if ((!mapLike && !listLike) || t.atomic() || (mapLike && v.ObjectEmpty()) ||
        (listLike && v.Empty())) {
        return json::Value();
    }
    json::Value out;
    if (mapLike) {
        out.SetObject();
        bool declared = false;
        for (const auto& m : v.GetObject()) {
            PathElement pe = PathElement::field(std::string(json::view(m.name)));
            if (std::binary_search(items.members().begin(), items.members().end(), pe)) {
                continue;
            }
            const FieldSet& sub = items.childOf(pe);
            json::Value kept = sub.empty()
                                   ? json::Value(m.value, a)
                                   : removeFrom(m.value, sub, t.member(pe.name, &declared), a);
            out.AddMember(json::Value(m.name, a), kept, a);
        }
        return out.ObjectEmpty() ? json::Value() : std::move(out);
    }
    out.SetArray();
    TypeRef it = t.item();
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        std::string error;
        auto pe = itemElement(t, v[i], static_cast<int>(i), &error);
        if (!pe) {
            out.PushBack(json::Value(v[i], a), a);
            continue;
        }
        if (std::binary_search(items.members().begin(), items.members().end(), *pe)) {
            continue;
        }
        const FieldSet& sub = items.childOf(*pe);
        out.PushBack(sub.empty() ? json::Value(v[i], a) : removeFrom(v[i], sub, it, a), a);
    }
    return out.Empty() ? json::Value() : std::move(out);
}

}  // namespace

FieldSet toFieldSet(const json::Value& v, const TypeRef& t) {
    FieldSet out;
    collect(v, t, out);
    out.normalize();
    return out;
}

void Comparison::exclude(const FieldSet& ignored) {
    if (ignored.empty()) {
        return;
    }
    removed = removed.recursiveDifference(ignored);
    modified = modified.recursiveDifference(ignored);
    added = added.recursiveDifference(ignored);
}

std::optional<std::string> compare(const json::Value& lhs, const json::Value& rhs, const TypeRef& t,
                                   Comparison& out) {
    Comparer c(out);
    auto err = c.walk(&lhs, &rhs, t);
    out.removed.normalize();
    out.modified.normalize();
    out.added.normalize();
    return err;
}

std::optional<std::string> validate(const json::Value& v, const TypeRef& t) {
    Path path;
    return validateNode(v, t, path);
}

std::optional<std::string> merge(const json::Value& lhs, const json::Value& rhs, const TypeRef& t,
                                 json::Value& out, json::Allocator& a) {
    Merger m(a);
    return m.walk(&lhs, &rhs, t, out);
}

json::Value removeItems(const json::Value& v, const FieldSet& items, const TypeRef& t,
                        json::Allocator& a) {
    if (items.empty()) {
        return json::Value(v, a);
    }
    return removeFrom(v, items, t, a);
}

FieldSet ensureNamedFieldsAreMembers(const FieldSet& s, const TypeRef& t) {
    FieldSet out;
    for (const PathElement& m : s.members()) {
        out.appendMember(m);
    }
    for (const FieldSet::Child& c : s.children()) {
        TypeRef ct = TypeRef::untyped();
        if (c.element.kind == PathElement::Kind::Field) {
            bool declared = false;
            ct = t.member(c.element.name, &declared);
            if (declared && t.kind() == Kind::Struct) {
                out.appendMember(c.element);
            }
        } else if (c.element.kind == PathElement::Kind::Key && t.kind() == Kind::List) {
            ct = t.item();
        }
        FieldSet sub = ensureNamedFieldsAreMembers(c.set, ct);
        if (!sub.empty()) {
            out.appendChild(c.element) = std::move(sub);
        }
    }
    out.sortLevel();
    return out;
}

}  // namespace kube::registry::apply
