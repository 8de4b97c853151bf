#include "registry/patch/strategic_merge_patch.hpp"

#include <functional>
#include <set>

#include "registry/patch/go_format.hpp"
#include "registry/patch/patch_document.hpp"

namespace kube::registry::patch {

namespace json = util::json;

namespace {

constexpr std::string_view kDirective = "$patch";
constexpr std::string_view kDelete = "delete";
constexpr std::string_view kReplace = "replace";
constexpr std::string_view kMerge = "merge";
constexpr std::string_view kRetainKeysStrategy = "retainKeys";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrder = "$setElementOrder";
constexpr std::string_view kMapType = "map[string]interface {}";

using Result = std::optional<Error>;
// Values owned by the patched document's allocator, and views of values.
using Items = std::vector<json::Value>;
using Refs = std::vector<const json::Value*>;

Error badRequest(std::string message) {
    return {Error::Kind::BadRequest, std::move(message)};
}

Error other(std::string message) {
    return {Error::Kind::Other, std::move(message)};
}

// mergepatch.ErrNoMergeKey.
Error noMergeKey(const json::Value& m, std::string_view key) {
    return other("map: " + goValue(m) +
                 " does not contain declared merge key: " + std::string(key));
}

// mergepatch.ErrBadArgType.
Error badArgType(std::string_view expected, const json::Value& actual) {
    return other("expected a " + std::string(expected) + ", but received a " + goTypeName(actual));
}

// %s of an interface{} value.
std::string goS(const json::Value& v) {
    if (v.IsString()) {
        return std::string(json::view(v));
    }
    if (v.IsNull()) {
        return "%!s(<nil>)";
    }
    return "%!s(" + goTypeName(v) + "=" + goValue(v) + ")";
}

// mergepatch.ErrBadPatchType.
Error badPatchType(const json::Value& t, const json::Value& m) {
    return other("unknown patch type: " + goS(t) + " in map: " + goValue(m));
}

bool isString(const json::Value* v, std::string_view s) {
    return v && v->IsString() && json::view(*v) == s;
}

bool hasPrefix(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

Refs refs(const json::Value& array) {
    Refs out;
    for (const json::Value& v : array.GetArray()) {
        out.push_back(&v);
    }
    return out;
}

Refs refs(const Items& items) {
    Refs out;
    for (const json::Value& v : items) {
        out.push_back(&v);
    }
    return out;
}

Items copies(const Refs& from, json::Allocator& a) {
    Items out;
    for (const json::Value* v : from) {
        out.emplace_back(*v, a);
    }
    return out;
}

json::Value toArray(Items& items, json::Allocator& a) {
    json::Value out(rapidjson::kArrayType);
    for (json::Value& v : items) {
        out.PushBack(v, a);
    }
    return out;
}

void eraseMember(json::Value& obj, std::string_view name) {
    auto it = obj.FindMember(json::Value(rapidjson::StringRef(name.data(), name.size())));
    if (it != obj.MemberEnd()) {
        obj.EraseMember(it);
    }
}

// removeDirectives: a copy of `v` without the objects that carry a $patch
// directive, or nothing when `v` is one.
std::optional<json::Value> withoutDirectives(const json::Value& v, json::Allocator& a) {
    if (v.IsObject()) {
        if (json::member(v, kDirective)) {
            return std::nullopt;
        }
        json::Value out(rapidjson::kObjectType);
        for (const auto& m : v.GetObject()) {
            if (auto kept = withoutDirectives(m.value, a)) {
                out.AddMember(json::Value(m.name, a), *kept, a);
            }
        }
        return out;
    }
    if (v.IsArray()) {
        json::Value out(rapidjson::kArrayType);
        for (const auto& item : v.GetArray()) {
            if (auto kept = withoutDirectives(item, a)) {
                out.PushBack(*kept, a);
            }
        }
        return out;
    }
    return json::Value(v, a);
}

// Sets original[key] to a patch value taken as it is (the original has no
// such key, or one of another type): nulls and directives dropped.
void takePatchValue(json::Value& original, std::string_view key, const json::Value& v,
                    json::Allocator& a) {
    json::Value copy(v, a);
    discardNulls(copy);
    if (auto kept = withoutDirectives(copy, a)) {
        json::setMember(original, key, std::move(*kept), a);
    } else {
        eraseMember(original, key);
    }
}

std::string goStrings(const std::vector<std::string>& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) {
        out += (i ? " " : "") + s[i];
    }
    return out + "]";
}

// extractRetainKeysPatchStrategy: the strategy besides retainKeys.
Result patchStrategy(const PatchMeta& meta, std::string* out) {
    const std::vector<std::string>& s = meta.strategies;
    out->clear();
    if (s.size() == 1) {
        if (s[0] != kRetainKeysStrategy) {
            *out = s[0];
        }
    } else if (s.size() == 2) {
        if (s[0] == kRetainKeysStrategy) {
            *out = s[1];
        } else if (s[1] == kRetainKeysStrategy) {
            *out = s[0];
        } else {
            return other("unexpected patch strategy: " + goStrings(s));
        }
    } else if (s.size() > 2) {
        return other("unexpected patch strategy: " + goStrings(s));
    }
    return std::nullopt;
}

PatchField fieldOf(const PatchSchema& schema, std::string_view key) {
    auto f = schema.lookup(key);
    return f ? *f : PatchField{};
}

// extractKey: the field a "$prefix/field" key names.
std::optional<std::string> extractKey(std::string_view s, std::string_view prefix) {
    size_t slash = s.find('/');
    if (slash == std::string_view::npos || s.substr(0, slash) != prefix) {
        return std::nullopt;
    }
    return std::string(s.substr(slash + 1));
}

// What index() compares: an item itself, or for objects its merge key value
// (a missing key, a null and a non-object all count as Go's nil).
const json::Value* orderValue(const json::Value& item, std::string_view mergeKey, bool isMap) {
    if (!isMap) {
        return &item;
    }
    return item.IsObject() ? json::member(item, mergeKey) : nullptr;
}

bool interfaceEqual(const json::Value* x, const json::Value* y) {
    bool xNil = !x || x->IsNull();
    bool yNil = !y || y->IsNull();
    if (xNil || yNil) {
        return xNil && yNil;
    }
    return goEqual(*x, *y);
}

int indexOf(const Refs& l, const json::Value& item, std::string_view mergeKey, bool isMap) {
    const json::Value* want = orderValue(item, mergeKey, isMap);
    for (size_t i = 0; i < l.size(); ++i) {
        if (interfaceEqual(want, orderValue(*l[i], mergeKey, isMap))) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

// Go's sort.SliceStable, step for step: insertion-sorted blocks of 20, then
// SymMerge. Kept exact because kube's ordering predicate is not a strict
// weak order for items missing from the order list.
class GoStableSort {
  public:
    GoStableSort(Items& v, std::function<bool(const json::Value&, const json::Value&)> less)
        : v_(v), less_(std::move(less)) {}

    void run() {
        int n = static_cast<int>(v_.size());
        int blockSize = 20;
        int a = 0;
        int b = blockSize;
        while (b <= n) {
            insertionSort(a, b);
            a = b;
            b += blockSize;
        }
        insertionSort(a, n);
        while (blockSize < n) {
            a = 0;
            b = 2 * blockSize;
            while (b <= n) {
                symMerge(a, a + blockSize, b);
                a = b;
                b += 2 * blockSize;
            }
            if (int m = a + blockSize; m < n) {
                symMerge(a, m, n);
            }
            blockSize *= 2;
        }
    }

  private:
    bool less(int i, int j) { return less_(v_[i], v_[j]); }
    void swap(int i, int j) { v_[i].Swap(v_[j]); }

    void insertionSort(int a, int b) {
        for (int i = a + 1; i < b; ++i) {
            for (int j = i; j > a && less(j, j - 1); --j) {
                swap(j, j - 1);
            }
        }
    }

    void swapRange(int a, int b, int n) {
        for (int i = 0; i < n; ++i) {
            swap(a + i, b + i);
        }
    }

    void rotate(int a, int m, int b) {
        int i = m - a;
        int j = b - m;
        while (i != j) {
            if (i > j) {
                swapRange(m - i, m, j);
                i -= j;
            } else {
                swapRange(m - i, m + j - i, i);
                j -= i;
            }
        }
        swapRange(m - i, m, i);
    }

    void symMerge(int a, int m, int b) {
        if (m - a == 1) {
            int i = m;
            int j = b;
            while (i < j) {
                int h = static_cast<int>(static_cast<unsigned>(i + j) >> 1);
                if (less(h, a)) {
                    i = h + 1;
                } else {
                    j = h;
                }
            }
            for (int k = a; k < i - 1; ++k) {
                swap(k, k + 1);
            }
            return;
        }
        if (b - m == 1) {
            int i = a;
            int j = m;
            while (i < j) {
                int h = static_cast<int>(static_cast<unsigned>(i + j) >> 1);
                if (!less(m, h)) {
                    i = h + 1;
                } else {
                    j = h;
                }
            }
            for (int k = m; k > i; --k) {
                swap(k, k - 1);
            }
            return;
        }
        int mid = static_cast<int>(static_cast<unsigned>(a + b) >> 1);
        int n = mid + m;
        int start = 0;
        int r = 0;
        if (m > mid) {
            start = n - b;
            r = mid;
        } else {
            start = a;
            r = m;
        }
        int p = n - 1;
        while (start < r) {
            int c = static_cast<int>(static_cast<unsigned>(start + r) >> 1);
            if (!less(p - c, c)) {
                start = c + 1;
            } else {
                r = c;
            }
        }
        int end = n - start;
        if (start < m && m < end) {
            rotate(start, m, end);
        }
        if (a < start && start < mid) {
            symMerge(a, start, mid);
        }
        if (mid < end && end < b) {
            symMerge(mid, end, b);
        }
    }

    Items& v_;
    std::function<bool(const json::Value&, const json::Value&)> less_;
};

// fmt.Sprint of the lists.
std::string goLists(const std::vector<Refs>& lists) {
    std::string out = "[";
    for (size_t i = 0; i < lists.size(); ++i) {
        out += i ? " [" : "[";
        for (size_t j = 0; j < lists[i].size(); ++j) {
            out += (j ? " " : "") + goValue(*lists[i][j]);
        }
        out += "]";
    }
    return out + "]";
}

// sliceElementType: the one Go type of every item of the lists.
Result sliceElementType(const std::vector<Refs>& lists, std::string* type) {
    std::optional<std::string> prev;
    for (const Refs& l : lists) {
        for (const json::Value* v : l) {
            std::string t = goTypeName(*v);
            if (!prev) {
                prev = t;
                if (v->IsArray()) {
                    return Error{Error::Kind::Unprocessable, "lists of lists are not supported"};
                }
            } else if (*prev != t) {
                return other("list element types are not identical: " + goLists(lists));
            }
        }
    }
    if (!prev) {
        return other("no elements in any of the given slices");
    }
    *type = *prev;
    return std::nullopt;
}

// findMapInSliceBasedOnKeyValue: the index of the first object whose merge
// key has `value`, or -1.
Result findByKey(const Refs& l, std::string_view key, const json::Value& value, int* index) {
    *index = -1;
    for (size_t k = 0; k < l.size(); ++k) {
        if (!l[k]->IsObject()) {
            return other("value for key " + std::to_string(k) + " is not a map");
        }
        const json::Value* v = json::member(*l[k], key);
        if (v && interfaceEqual(v, &value)) {
            *index = static_cast<int>(k);
            return std::nullopt;
        }
    }
    return std::nullopt;
}

Result validateMergeKeyInLists(std::string_view mergeKey, const std::vector<Refs>& lists) {
    for (const Refs& l : lists) {
        for (const json::Value* item : l) {
            if (!item->IsObject()) {
                return badArgType(kMapType, *item);
            }
            if (!json::member(*item, mergeKey)) {
                return noMergeKey(*item, mergeKey);
            }
        }
    }
    return std::nullopt;
}

bool isDeleteItem(const json::Value& v) {
    return v.IsObject() && isString(json::member(v, kDirective), kDelete);
}

// normalizeSliceOrder: `toSort` in the order of `order` (items it lacks
// where Go's sort leaves them), objects marked for deletion last.
Result normalizeSliceOrder(Items& toSort, const Refs& order, std::string_view mergeKey,
                           bool isMap) {
    Items toDelete;
    if (isMap) {
        if (auto e = validateMergeKeyInLists(mergeKey, {refs(toSort), order})) {
            return e;
        }
        Items keep;
        for (json::Value& v : toSort) {
            (isDeleteItem(v) ? toDelete : keep).push_back(std::move(v));
        }
        toSort = std::move(keep);
    }
    GoStableSort(toSort, [&](const json::Value& x, const json::Value& y) {
        int ix = indexOf(order, x, mergeKey, isMap);
        if (ix >= 0) {
            int iy = indexOf(order, y, mergeKey, isMap);
            if (iy >= 0) {
                return ix < iy;
            }
        }
        return true;
    }).run();
    for (json::Value& v : toDelete) {
        toSort.push_back(std::move(v));
    }
    return std::nullopt;
}

// normalizeElementOrder: patch items in the patch's order, the others in
// the live object's, then interleaved (mergeSortedSlice).
Result normalizeElementOrder(Items patchItems, Items serverOnly, const Refs& patchOrder,
                             const Refs& serverOrder, std::string_view mergeKey, bool isMap,
                             Items* out) {
    if (auto e = normalizeSliceOrder(patchItems, patchOrder, mergeKey, isMap)) {
        return e;
    }
    if (auto e = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, isMap)) {
        return e;
    }
    out->clear();
    size_t i = 0;
    size_t j = 0;
    while (i < serverOnly.size() || j < patchItems.size()) {
        if (i >= serverOnly.size()) {
            out->push_back(std::move(patchItems[j++]));
        } else if (j >= patchItems.size()) {
            out->push_back(std::move(serverOnly[i++]));
        } else {
            int li = indexOf(serverOrder, serverOnly[i], mergeKey, isMap);
            int ri = indexOf(serverOrder, patchItems[j], mergeKey, isMap);
            if (li >= 0 && ri >= 0 && li < ri) {
                out->push_back(std::move(serverOnly[i++]));
            } else {
                out->push_back(std::move(patchItems[j++]));
            }
        }
    }
    return std::nullopt;
}

// partition{Primitives,Maps}ByPresentInList.
Result partition(Items& merged, const Refs& by, std::string_view mergeKey, bool isMap,
                 Items* present, Items* absent) {
    for (json::Value& v : merged) {
        bool found = false;
        if (!isMap) {
            for (const json::Value* p : by) {
                found = found || goEqual(v, *p);
            }
        } else {
            if (!v.IsObject()) {
                return badArgType(kMapType, v);
            }
            const json::Value* key = json::member(v, mergeKey);
            if (!key) {
                return noMergeKey(v, mergeKey);
            }
            int index = -1;
            if (auto e = findByKey(by, mergeKey, *key, &index)) {
                return e;
            }
            found = index >= 0;
        }
        (found ? present : absent)->push_back(std::move(v));
    }
    return std::nullopt;
}

// Go's deduplicateScalars, which moves the last item into a duplicate's place.
void deduplicateScalars(Items& s) {
    int length = static_cast<int>(s.size()) - 1;
    for (int i = 0; i < length; ++i) {
        for (int j = i + 1; j <= length; ++j) {
            if (goEqual(s[i], s[j])) {
                s[j] = std::move(s[length]);
                s.resize(length);
                --length;
                --j;
            }
        }
    }
}

Result mergeMap(json::Value& original, const json::Value& patch, const PatchSchema& schema,
                json::Allocator& a);

// mergeSlice: a list with strategy "merge" (or a $deleteFromPrimitiveList).
Result mergeSlice(const json::Value& original, const json::Value& patch, const PatchSchema& schema,
                  const std::string& mergeKey, bool isDeleteList, json::Allocator& a, Items* out) {
    Refs originalRefs = refs(original);
    Refs patchRefs = refs(patch);
    if (originalRefs.empty() && patchRefs.empty()) {
        out->clear();
        return std::nullopt;
    }
    std::string type;
    if (auto e = sliceElementType({originalRefs, patchRefs}, &type)) {
        return e;
    }
    bool isMap = type == kMapType;
    Items merged;
    Items order;  // the live list, as the order of the items the patch does not name
    Refs patchOrder;
    if (!isMap) {
        if (isDeleteList) {
            // deleteFromSlice.
            out->clear();
            for (const json::Value* v : originalRefs) {
                bool gone = false;
                for (const json::Value* d : patchRefs) {
                    gone = gone || goEqual(*v, *d);
                }
                if (!gone) {
                    out->emplace_back(*v, a);
                }
            }
            return std::nullopt;
        }
        merged = copies(originalRefs, a);
        for (const json::Value* v : patchRefs) {
            merged.emplace_back(*v, a);
        }
        deduplicateScalars(merged);
        order = copies(originalRefs, a);
        patchOrder = patchRefs;
    } else {
        if (mergeKey.empty()) {
            return other("cannot merge lists without merge key for " + schema.name());
        }
        // mergeSliceWithSpecialElements.
        Items base = copies(originalRefs, a);
        Refs plain;
        bool replace = false;
        for (const json::Value* v : patchRefs) {
            const json::Value* d = json::member(*v, kDirective);
            if (!d) {
                plain.push_back(v);
            } else if (isString(d, kDelete)) {
                const json::Value* key = json::member(*v, mergeKey);
                if (!key) {
                    return noMergeKey(*v, mergeKey);
                }
                while (true) {
                    int index = -1;
                    if (auto e = findByKey(refs(base), mergeKey, *key, &index)) {
                        return e;
                    }
                    if (index < 0) {
                        break;
                    }
                    base.erase(base.begin() + index);
                }
            } else if (isString(d, kReplace)) {
                replace = true;
            } else if (isString(d, kMerge)) {
                return other("merging lists cannot yet be specified in the patch");
            } else {
                return badPatchType(*d, *v);
            }
        }
        if (replace) {
            base = copies(plain, a);
            plain.clear();
        }
        order = copies(refs(base), a);
        // mergeSliceWithoutSpecialElements.
        for (const json::Value* v : plain) {
            const json::Value* key = json::member(*v, mergeKey);
            if (!key) {
                return noMergeKey(*v, mergeKey);
            }
            int index = -1;
            if (auto e = findByKey(refs(base), mergeKey, *key, &index)) {
                return e;
            }
            if (index >= 0) {
                if (auto e = mergeMap(base[index], *v, schema, a)) {
                    return e;
                }
            } else {
                base.emplace_back(*v, a);
            }
        }
        merged = std::move(base);
        patchOrder = plain;
    }
    Items patchItems;
    Items serverOnly;
    if (auto e = partition(merged, patchOrder, mergeKey, isMap, &patchItems, &serverOnly)) {
        return e;
    }
    return normalizeElementOrder(std::move(patchItems), std::move(serverOnly), patchOrder,
                                 refs(order), mergeKey, isMap, out);
}

// applyRetainKeysDirective.
Result applyRetainKeys(json::Value& original, const json::Value& patch) {
    const json::Value* retain = json::member(patch, kRetainKeys);
    if (!retain) {
        return std::nullopt;
    }
    const Error bad = badRequest("invalid patch format of retainKeys");
    if (!retain->IsArray()) {
        return bad;
    }
    auto listed = [retain](std::string_view key) {
        for (const json::Value& v : retain->GetArray()) {
            if (v.IsString() && json::view(v) == key) {
                return true;
            }
        }
        return false;
    };
    for (const auto& m : patch.GetObject()) {
        std::string_view k = json::view(m.name);
        if (k == kRetainKeys || m.value.IsNull() || hasPrefix(k, kDeleteFromPrimitiveList) ||
            hasPrefix(k, kSetElementOrder)) {
            continue;
        }
        if (!listed(k)) {
            return bad;
        }
    }
    auto it = original.MemberBegin();
    while (it != original.MemberEnd()) {
        if (listed(json::view(it->name))) {
            ++it;
        } else {
            it = original.EraseMember(it);
        }
    }
    return std::nullopt;
}

// validatePatchWithSetOrderList: the patch list's items appear in the
// order list, in the same relative order.
Result validateOrder(const Refs& patchList, const json::Value& order, const std::string& mergeKey) {
    if (order.Empty() || patchList.empty()) {
        return std::nullopt;
    }
    Refs items;
    for (const json::Value* v : patchList) {
        if (!mergeKey.empty()) {
            if (!v->IsObject()) {
                return badArgType(kMapType, *v);
            }
            if (isDeleteItem(*v)) {
                continue;
            }
        }
        items.push_back(v);
    }
    size_t pi = 0;
    size_t si = 0;
    while (pi < items.size() && si < order.Size()) {
        const json::Value& item = *items[pi];
        if (item.IsObject() && json::member(item, kDirective)) {
            ++pi;
            continue;
        }
        const json::Value& want = order[static_cast<rapidjson::SizeType>(si)];
        bool equal = false;
        if (mergeKey.empty()) {
            equal = goEqual(item, want);
        } else {
            if (!item.IsObject()) {
                return badArgType(kMapType, item);
            }
            if (!want.IsObject()) {
                return badArgType(kMapType, want);
            }
            const json::Value* l = json::member(item, mergeKey);
            if (!l) {
                return noMergeKey(item, mergeKey);
            }
            const json::Value* r = json::member(want, mergeKey);
            if (!r) {
                return noMergeKey(want, mergeKey);
            }
            equal = interfaceEqual(l, r);
        }
        if (equal) {
            ++pi;
        }
        ++si;
    }
    if (pi < items.size() && si >= order.Size()) {
        std::string patchText = "[";
        for (size_t i = 0; i < patchList.size(); ++i) {
            patchText += (i ? " " : "") + goValue(*patchList[i]);
        }
        patchText += "]";
        return other("The order in patch list:\n" + patchText + "\n doesn't match " +
                     std::string(kSetElementOrder) + " list:\n" + goValue(order) + "\n");
    }
    return std::nullopt;
}

// mergePatchIntoOriginal: every $setElementOrder/<field> with its list; the
// keys it used up are added to `consumed`.
Result applySetElementOrder(json::Value& original, const json::Value& patch,
                            const PatchSchema& schema, json::Allocator& a,
                            std::set<std::string>* consumed) {
    for (const auto& m : patch.GetObject()) {
        std::string_view key = json::view(m.name);
        if (!hasPrefix(key, kSetElementOrder)) {
            continue;
        }
        consumed->insert(std::string(key));
        const json::Value& order = m.value;
        if (!order.IsArray()) {
            return badArgType("[]interface {}", order);
        }
        auto field = extractKey(key, kSetElementOrder);
        if (!field) {
            return badRequest("invalid patch format of setElementOrder list");
        }
        const json::Value* originalList = json::member(original, *field);
        const json::Value* patchList = json::member(patch, *field);
        if (originalList && !originalList->IsArray()) {
            return badArgType("[]interface {}", *originalList);
        }
        if (patchList && !patchList->IsArray()) {
            return badArgType("[]interface {}", *patchList);
        }
        PatchField meta = fieldOf(schema, *field);
        std::string strategy;
        if (auto e = patchStrategy(meta.meta, &strategy)) {
            return e;
        }
        Refs originalRefs = originalList ? refs(*originalList) : Refs();
        Refs patchRefs = patchList ? refs(*patchList) : Refs();
        const std::string& mergeKey = meta.meta.mergeKey;
        if (auto e = validateOrder(patchRefs, order, mergeKey)) {
            return e;
        }
        Items merged;
        if (originalList && !patchList) {
            merged = copies(originalRefs, a);
        } else if (!originalList && patchList) {
            merged = copies(refs(*withoutDirectives(*patchList, a)), a);
        } else if (originalList && patchList) {
            if (strategy == kMerge) {
                if (auto e = mergeSlice(*originalList, *patchList, meta.schema, mergeKey, false, a,
                                        &merged)) {
                    return e;
                }
            } else {
                merged = copies(patchRefs, a);
            }
        } else {
            continue;
        }
        std::string type;
        Items patchItems;
        Items serverOnly;
        Refs orderRefs = refs(order);
        if (auto e = partition(merged, orderRefs, mergeKey, !mergeKey.empty(), &patchItems,
                               &serverOnly)) {
            return e;
        }
        if (auto e = sliceElementType({originalRefs, patchRefs}, &type)) {
            return e;
        }
        // The live list stays the reference for the items the order omits.
        Items live = copies(originalRefs, a);
        Items both;
        if (auto e = normalizeElementOrder(std::move(patchItems), std::move(serverOnly), orderRefs,
                                           refs(live), mergeKey, type == kMapType, &both)) {
            return e;
        }
        json::setMember(original, *field, toArray(both, a), a);
        consumed->insert(*field);
    }
    return std::nullopt;
}

// mergeMap.
Result mergeMap(json::Value& original, const json::Value& patch, const PatchSchema& schema,
                json::Allocator& a) {
    if (const json::Value* d = json::member(patch, kDirective)) {
        if (isString(d, kReplace)) {
            original = json::Value(patch, a);
            eraseMember(original, kDirective);
            return std::nullopt;
        }
        if (isString(d, kDelete)) {
            original.SetObject();
            return std::nullopt;
        }
        return badPatchType(*d, patch);
    }
    if (!original.IsObject()) {
        original.SetObject();
    }
    if (auto e = applyRetainKeys(original, patch)) {
        return e;
    }
    std::set<std::string> consumed;
    if (auto e = applySetElementOrder(original, patch, schema, a, &consumed)) {
        return e;
    }
    for (const auto& m : patch.GetObject()) {
        std::string key(json::view(m.name));
        const json::Value& patchV = m.value;
        if (key == kRetainKeys || consumed.count(key)) {
            continue;
        }
        bool isDeleteList = false;
        if (hasPrefix(key, kDeleteFromPrimitiveList)) {
            auto field = extractKey(key, kDeleteFromPrimitiveList);
            if (!field) {
                return badRequest("invalid patch format of primitive list");
            }
            key = *field;
            isDeleteList = true;
        }
        if (patchV.IsNull()) {
            eraseMember(original, key);
            continue;
        }
        json::Value* cur = json::member(original, key);
        if (!cur || goTypeName(*cur) != goTypeName(patchV)) {
            if (!isDeleteList) {
                takePatchValue(original, key, patchV, a);
            }
            continue;
        }
        if (cur->IsObject() || cur->IsArray()) {
            PatchField field = fieldOf(schema, key);
            std::string strategy;
            if (auto e = patchStrategy(field.meta, &strategy)) {
                return e;
            }
            if (cur->IsObject()) {
                if (strategy == kReplace) {
                    *cur = json::Value(patchV, a);
                } else if (auto e = mergeMap(*cur, patchV, field.schema, a)) {
                    return e;
                }
            } else if (strategy == kMerge || isDeleteList) {
                Items merged;
                if (auto e = mergeSlice(*cur, patchV, field.schema, field.meta.mergeKey,
                                        isDeleteList, a, &merged)) {
                    return e;
                }
                // Looked up again: merging may have grown the object.
                *json::member(original, key) = toArray(merged, a);
            } else {
                *cur = json::Value(patchV, a);
            }
            continue;
        }
        *cur = json::Value(patchV, a);
    }
    return std::nullopt;
}

}  // namespace

std::optional<Error> strategicMergePatch(json::Value& original, const json::Value& patch,
                                         const PatchSchema& schema, json::Allocator& a) {
    return mergeMap(original, patch, schema, a);
}

std::optional<Error> applyStrategicMergePatch(json::Document& doc, std::string_view body,
                                              const PatchSchema& schema, bool strict,
                                              std::vector<std::string>* strictErrors,
                                              json::Document* decoded) {
    json::Document patch;
    if (auto err = decodePatchMap(body, patch, strict ? strictErrors : nullptr)) {
        return Error{Error::Kind::BadRequest, std::move(*err)};
    }
    if (patch.IsNull()) {
        patch.SetObject();
    }
    if (decoded) {
        decoded->CopyFrom(patch, decoded->GetAllocator());
    }
    return mergeMap(doc, patch, schema, doc.GetAllocator());
}

}  // namespace kube::registry::patch
