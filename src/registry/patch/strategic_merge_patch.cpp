#include "registry/patch/strategic_merge_patch.hpp"

#include <functional>
#include <set>

#include "registry/patch/flat_index.hpp"
#include "registry/patch/go_format.hpp"
#include "registry/patch/member_index.hpp"
#include "registry/patch/patch_document.hpp"
#include "registry/patch/scalar_key.hpp"

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
    out.reserve(array.Size());
    for (const json::Value& v : array.GetArray()) {
        out.push_back(&v);
    }
    return out;
}

Refs refs(const Items& items) {
    Refs out;
    out.reserve(items.size());
    for (const json::Value& v : items) {
        out.push_back(&v);
    }
    return out;
}

json::Value copyOf(const json::Value& v, json::Allocator& a) {
    return *copyValue(v, a);
}

Items copies(const Refs& from, json::Allocator& a) {
    Items out;
    out.reserve(from.size());
    for (const json::Value* v : from) {
        out.push_back(copyOf(*v, a));
    }
    return out;
}

json::Value toArray(Items& items, json::Allocator& a) {
    json::Value out(rapidjson::kArrayType);
    out.Reserve(static_cast<rapidjson::SizeType>(items.size()), a);
    for (json::Value& v : items) {
        out.PushBack(v, a);
    }
    return out;
}

// A patch object's members by name, looked up once it is wide.
class PatchMembers {
  public:
    explicit PatchMembers(const json::Value& patch) : patch_(patch) {}

    const json::Value* find(std::string_view name) {
        if (patch_.MemberCount() <= 16) {
            return json::member(patch_, name);
        }
        auto begin = patch_.MemberBegin();
        auto named = [&](int i) { return json::view((begin + i)->name) == name; };
        if (!built_) {
            byName_.reserve(patch_.MemberCount());
            for (int i = 0; i < static_cast<int>(patch_.MemberCount()); ++i) {
                std::string_view n = json::view((begin + i)->name);
                size_t h = std::hash<std::string_view>()(n);
                if (byName_.find(h, [&](int j) { return json::view((begin + j)->name) == n; }) <
                    0) {
                    byName_.insert(h, i);
                }
            }
            built_ = true;
        }
        int i = byName_.find(std::hash<std::string_view>()(name), named);
        return i < 0 ? nullptr : &(begin + i)->value;
    }

  private:
    const json::Value& patch_;
    FlatIndex byName_;
    bool built_ = false;
};

// The values of a list that Go's == can match, found by value: where each
// is first, or whether one is there.
class ValueIndex {
  public:
    // `values[i]` for each position i (nullptr: nil).
    explicit ValueIndex(std::vector<const json::Value*> values) : values_(std::move(values)) {
        index_.reserve(values_.size());
        for (size_t i = 0; i < values_.size(); ++i) {
            add(static_cast<int>(i));
        }
    }

    // The first position holding `v`, or -1.
    int find(const json::Value* v) const {
        if (!isGoScalar(v)) {
            return -1;
        }
        return index_.find(goScalarHash(v), [&](int h) { return goScalarEqual(values_[h], v); });
    }

    // Appends a position holding `v`.
    void append(const json::Value* v) {
        values_.push_back(v);
        add(static_cast<int>(values_.size() - 1));
    }

  private:
    void add(int i) {
        const json::Value* v = values_[i];
        if (isGoScalar(v) && find(v) < 0) {
            index_.insert(goScalarHash(v), i);
        }
    }

    std::vector<const json::Value*> values_;
    FlatIndex index_;
};

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

// index() over a whole list at once: where each value is first found, so
// that an item's place is a hash lookup (kube scans the list each time).
class Positions {
  public:
    Positions(const Refs& l, std::string_view mergeKey, bool isMap)
        : mergeKey_(mergeKey), isMap_(isMap), values_(orderValues(l, mergeKey, isMap)) {}

    // index(l, item): the first position of `item`'s value, or -1.
    int of(const json::Value& item) const {
        return values_.find(orderValue(item, mergeKey_, isMap_));
    }

  private:
    static std::vector<const json::Value*> orderValues(const Refs& l, std::string_view mergeKey,
                                                       bool isMap) {
        std::vector<const json::Value*> out;
        out.reserve(l.size());
        for (const json::Value* v : l) {
            out.push_back(orderValue(*v, mergeKey, isMap));
        }
        return out;
    }

    std::string_view mergeKey_;
    bool isMap_;
    ValueIndex values_;
};

// findMapInSliceBasedOnKeyValue over a whole list of objects at once: the
// first object whose merge key is present with a value, and the first item
// that is not an object (kube's scan fails there unless it found the value
// first).
class KeyedItems {
  public:
    KeyedItems(const Refs& l, std::string_view key) : key_(key), keys_({}) {
        for (size_t i = 0; i < l.size(); ++i) {
            append(*l[i]);
        }
    }
    KeyedItems(const KeyedItems&) = delete;
    KeyedItems& operator=(const KeyedItems&) = delete;

    // An item after the others.
    void append(const json::Value& item) {
        if (notMap_ < 0 && !item.IsObject()) {
            notMap_ = size_;
        }
        // An absent key, and every item after one that is not an object,
        // is never found: nothing is a match for an invalid value.
        const json::Value* v = notMap_ < 0 ? json::member(item, key_) : nullptr;
        keys_.append(v ? v : &invalid_);
        ++size_;
    }

    // The index of the first object whose key is `value`, or -1.
    Result find(const json::Value& value, int* index) const {
        *index = keys_.find(&value);
        if (*index < 0 && notMap_ >= 0) {
            return other("value for key " + std::to_string(notMap_) + " is not a map");
        }
        return std::nullopt;
    }

  private:
    std::string_view key_;
    ValueIndex keys_;
    int size_ = 0;
    int notMap_ = -1;
    // Stands for a missing key: an object, equal to nothing.
    const json::Value invalid_{rapidjson::kObjectType};
};

// Go's sort.SliceStable, step for step: insertion-sorted blocks of 20, then
// SymMerge. Kept exact because kube's ordering predicate is not a strict
// weak order for items missing from the order list. Sorts each item's place
// in the order list (-1: absent) with the item's position.
class GoStableSort {
  public:
    struct Entry {
        int rank;
        int pos;
    };

    explicit GoStableSort(std::vector<Entry>& v) : v_(v) {}

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
    // normalizeSliceOrder's predicate: by place when both are in the order
    // list, else "less".
    bool less(int i, int j) const {
        return v_[i].rank < 0 || v_[j].rank < 0 || v_[i].rank < v_[j].rank;
    }
    void swap(int i, int j) { std::swap(v_[i], v_[j]); }

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

    std::vector<Entry>& v_;
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
    Positions places(order, mergeKey, isMap);
    std::vector<GoStableSort::Entry> entries;
    entries.reserve(toSort.size());
    for (size_t i = 0; i < toSort.size(); ++i) {
        entries.push_back({places.of(toSort[i]), static_cast<int>(i)});
    }
    GoStableSort(entries).run();
    Items sorted;
    sorted.reserve(toSort.size() + toDelete.size());
    for (const GoStableSort::Entry& e : entries) {
        sorted.push_back(std::move(toSort[e.pos]));
    }
    for (json::Value& v : toDelete) {
        sorted.push_back(std::move(v));
    }
    toSort = std::move(sorted);
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
    // Each item's place in the live list, looked up once.
    Positions places(serverOrder, mergeKey, isMap);
    std::vector<int> left;
    left.reserve(serverOnly.size());
    for (const json::Value& v : serverOnly) {
        left.push_back(places.of(v));
    }
    std::vector<int> right;
    right.reserve(patchItems.size());
    for (const json::Value& v : patchItems) {
        right.push_back(places.of(v));
    }
    out->clear();
    out->reserve(serverOnly.size() + patchItems.size());
    size_t i = 0;
    size_t j = 0;
    while (i < serverOnly.size() || j < patchItems.size()) {
        if (i >= serverOnly.size()) {
            out->push_back(std::move(patchItems[j++]));
        } else if (j >= patchItems.size()) {
            out->push_back(std::move(serverOnly[i++]));
        } else {
            int li = left[i];
            int ri = right[j];
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
    std::optional<ValueIndex> values;
    std::optional<KeyedItems> keyed;
    if (isMap) {
        keyed.emplace(by, mergeKey);
    } else {
        values.emplace(by);
    }
    for (json::Value& v : merged) {
        bool found = false;
        if (!isMap) {
            found = values->find(&v) >= 0;
        } else {
            if (!v.IsObject()) {
                return badArgType(kMapType, v);
            }
            const json::Value* key = json::member(v, mergeKey);
            if (!key) {
                return noMergeKey(v, mergeKey);
            }
            int index = -1;
            if (auto e = keyed->find(*key, &index)) {
                return e;
            }
            found = index >= 0;
        }
        (found ? present : absent)->push_back(std::move(v));
    }
    return std::nullopt;
}

// Go's deduplicateScalars: for each item in turn, every later equal item
// is replaced by the last item (checked again in its place) and the list
// shortens. The same moves, found through each value's positions instead
// of comparing every pair.
void deduplicateScalars(Items& s) {
    int n = static_cast<int>(s.size());
    if (n < 2) {
        return;
    }
    // Each distinct value's id is its first position; values met once
    // need no positions (nothing else equals them).
    std::vector<int> idAt(n);
    std::vector<int> count(n, 0);
    {
        FlatIndex first;
        first.reserve(n);
        for (int p = 0; p < n; ++p) {
            const json::Value* v = &s[p];
            int id = p;
            if (isGoScalar(v)) {
                size_t h = goScalarHash(v);
                id = first.find(h, [&](int q) { return goScalarEqual(&s[q], v); });
                if (id < 0) {
                    id = p;
                    first.insert(h, p);
                }
            }
            idAt[p] = id;
            ++count[id];
        }
    }
    std::vector<std::set<int>> where(n);
    for (int p = 0; p < n; ++p) {
        if (count[idAt[p]] > 1) {
            where[idAt[p]].insert(p);
        }
    }
    int length = n - 1;
    for (int i = 0; i < length; ++i) {
        int id = idAt[i];
        std::set<int>& same = where[id];
        for (auto it = same.upper_bound(i); it != same.end() && *it <= length;
             it = same.upper_bound(i)) {
            int j = *it;
            same.erase(it);
            // s[j] equals s[i]: the last item takes its place, and goes too
            // when it equals s[i] as well.
            while (true) {
                if (j == length) {
                    --length;
                    break;
                }
                int last = idAt[length];
                s[j] = s[length].Move();
                if (count[last] > 1) {
                    where[last].erase(length);
                }
                --length;
                if (last != id) {
                    if (count[last] > 1) {
                        where[last].insert(j);
                    }
                    idAt[j] = last;
                    break;
                }
            }
        }
    }
    s.resize(length + 1);
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
    Refs order;  // the live list, as the order of the items the patch does not name
    Refs patchOrder;
    if (!isMap) {
        if (isDeleteList) {
            // deleteFromSlice.
            ValueIndex gone(patchRefs);
            out->clear();
            for (const json::Value* v : originalRefs) {
                if (gone.find(v) < 0) {
                    out->push_back(copyOf(*v, a));
                }
            }
            return std::nullopt;
        }
        merged = copies(originalRefs, a);
        for (const json::Value* v : patchRefs) {
            merged.push_back(copyOf(*v, a));
        }
        deduplicateScalars(merged);
        order = originalRefs;
        patchOrder = patchRefs;
    } else {
        if (mergeKey.empty()) {
            return other("cannot merge lists without merge key for " + schema.name());
        }
        // mergeSliceWithSpecialElements. `sources` holds what each item of
        // `base` is a copy of.
        Refs sources = originalRefs;
        std::vector<bool> deleted(sources.size(), false);
        // The items of each key: the first found through `byKey`, each
        // linked to the next.
        std::vector<const json::Value*> keys;
        keys.reserve(sources.size());
        for (const json::Value* v : sources) {
            keys.push_back(json::member(*v, mergeKey));
        }
        std::vector<int> nextSame(sources.size(), -1);
        std::vector<int> lastSame(sources.size(), -1);
        FlatIndex byKey;
        byKey.reserve(sources.size());
        auto sameKey = [&](const json::Value* k) {
            return [&keys, k](int h) { return goScalarEqual(keys[h], k); };
        };
        for (int i = 0; i < static_cast<int>(sources.size()); ++i) {
            const json::Value* k = keys[i];
            if (!k || !isGoScalar(k)) {
                continue;
            }
            int head = byKey.find(goScalarHash(k), sameKey(k));
            if (head < 0) {
                byKey.insert(goScalarHash(k), i);
                lastSame[i] = i;
            } else {
                nextSame[lastSame[head]] = i;
                lastSame[head] = i;
            }
        }
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
                if (isGoScalar(key)) {
                    int head = byKey.find(goScalarHash(key), sameKey(key));
                    // A deleted head: its whole chain went before.
                    for (int i = head; i >= 0 && !deleted[i]; i = nextSame[i]) {
                        deleted[i] = true;
                    }
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
            sources = plain;
            plain.clear();
        } else {
            Refs kept;
            kept.reserve(sources.size());
            for (size_t i = 0; i < sources.size(); ++i) {
                if (!deleted[i]) {
                    kept.push_back(sources[i]);
                }
            }
            sources = std::move(kept);
        }
        Items base = copies(sources, a);
        order = sources;
        // mergeSliceWithoutSpecialElements.
        KeyedItems keyed(sources, mergeKey);
        for (const json::Value* v : plain) {
            const json::Value* key = json::member(*v, mergeKey);
            if (!key) {
                return noMergeKey(*v, mergeKey);
            }
            int index = -1;
            if (auto e = keyed.find(*key, &index)) {
                return e;
            }
            if (index >= 0) {
                if (auto e = mergeMap(base[index], *v, schema, a)) {
                    return e;
                }
            } else {
                base.push_back(copyOf(*v, a));
                keyed.append(*v);
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
    return normalizeElementOrder(std::move(patchItems), std::move(serverOnly), patchOrder, order,
                                 mergeKey, isMap, out);
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
    ValueIndex listed(refs(*retain));
    auto isListed = [&listed](std::string_view name) {
        json::Value key(json::ref(name));
        return listed.find(&key) >= 0;
    };
    for (const auto& m : patch.GetObject()) {
        std::string_view k = json::view(m.name);
        if (k == kRetainKeys || m.value.IsNull() || hasPrefix(k, kDeleteFromPrimitiveList) ||
            hasPrefix(k, kSetElementOrder)) {
            continue;
        }
        if (!isListed(k)) {
            return bad;
        }
    }
    json::eraseMembersIf(original, [&](rapidjson::SizeType, const json::Value::Member& m) {
        return !isListed(json::view(m.name));
    });
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
    // An item is compared with many entries of the order list: its merge
    // key is looked up once.
    std::vector<const json::Value*> itemKeys(items.size(), nullptr);
    std::vector<bool> looked(items.size(), false);
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
            if (!looked[pi]) {
                itemKeys[pi] = json::member(item, mergeKey);
                looked[pi] = true;
            }
            const json::Value* l = itemKeys[pi];
            if (!l) {
                return noMergeKey(item, mergeKey);
            }
            const json::Value* r = json::member(want, mergeKey);
            if (!r) {
                return noMergeKey(want, mergeKey);
            }
            equal = goScalarEqual(l, r);
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
Result applySetElementOrder(json::Value& original, MemberIndex& members, const json::Value& patch,
                            const PatchSchema& schema, json::Allocator& a,
                            std::set<std::string>* consumed) {
    PatchMembers patchMembers(patch);
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
        const json::Value* originalList = members.find(original, *field);
        const json::Value* patchList = patchMembers.find(*field);
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
            json::Value kept = *copyValue(*patchList, a, {.directives = true});
            for (json::Value& v : kept.GetArray()) {
                merged.push_back(std::move(v));
            }
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
        Items both;
        if (auto e = normalizeElementOrder(std::move(patchItems), std::move(serverOnly), orderRefs,
                                           originalRefs, mergeKey, type == kMapType, &both)) {
            return e;
        }
        members.set(original, *field, toArray(both, a), a);
        consumed->insert(*field);
    }
    return std::nullopt;
}

// One object of mergeMap's walk: the live object, the patch for it, and
// how far the patch's keys are merged.
struct MapFrame {
    json::Value* original;
    const json::Value* patch;
    PatchSchema schema;
    MemberIndex members;
    std::set<std::string> consumed;
    rapidjson::SizeType next = 0;
};

// mergeMap's start on one object: its directives, retained keys and
// ordered lists. Leaves a frame for the rest of its keys on `stack`, unless
// a directive replaced or cleared the object.
Result openMap(json::Value& original, const json::Value& patch, const PatchSchema& schema,
               json::Allocator& a, std::vector<MapFrame>& stack) {
    if (const json::Value* d = json::member(patch, kDirective)) {
        if (isString(d, kReplace)) {
            original = copyOf(patch, a);
            json::eraseMembersIf(original, [](rapidjson::SizeType, const json::Value::Member& m) {
                return json::view(m.name) == kDirective;
            });
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
    MapFrame f{&original, &patch, schema, MemberIndex(original), {}, 0};
    if (auto e = applySetElementOrder(original, f.members, patch, schema, a, &f.consumed)) {
        return e;
    }
    stack.push_back(std::move(f));
    return std::nullopt;
}

// mergeMap. Objects within objects are walked with a stack of frames, so a
// patch as deep as the parser allows needs no deep native stack (lists
// recurse, as deep as the schema's merging lists nest).
Result mergeMap(json::Value& original, const json::Value& patch, const PatchSchema& schema,
                json::Allocator& a) {
    std::vector<MapFrame> stack;
    if (auto e = openMap(original, patch, schema, a, stack)) {
        return e;
    }
    while (!stack.empty()) {
        MapFrame& f = stack.back();
        if (f.next == f.patch->MemberCount()) {
            f.members.compact(*f.original);
            stack.pop_back();
            continue;
        }
        const auto& m = *(f.patch->MemberBegin() + f.next++);
        std::string key(json::view(m.name));
        const json::Value& patchV = m.value;
        if (key == kRetainKeys || f.consumed.count(key)) {
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
        json::Value& obj = *f.original;
        if (patchV.IsNull()) {
            f.members.erase(obj, key);
            continue;
        }
        json::Value* cur = f.members.find(obj, key);
        if (!cur || goTypeName(*cur) != goTypeName(patchV)) {
            if (!isDeleteList) {
                // The patch value as it is: nulls and directives dropped.
                if (auto kept = copyValue(patchV, a, {.nulls = true, .directives = true})) {
                    f.members.set(obj, key, std::move(*kept), a);
                } else {
                    f.members.erase(obj, key);
                }
            }
            continue;
        }
        if (!cur->IsObject() && !cur->IsArray()) {
            *cur = copyOf(patchV, a);
            continue;
        }
        PatchField field = fieldOf(f.schema, key);
        std::string strategy;
        if (auto e = patchStrategy(field.meta, &strategy)) {
            return e;
        }
        if (cur->IsObject()) {
            if (strategy == kReplace) {
                *cur = copyOf(patchV, a);
            } else if (auto e = openMap(*cur, patchV, field.schema, a, stack)) {
                // `cur` stays where it is while its frame is open: only its
                // own members change.
                return e;
            }
        } else if (strategy == kMerge || isDeleteList) {
            Items merged;
            if (auto e = mergeSlice(*cur, patchV, field.schema, field.meta.mergeKey, isDeleteList,
                                    a, &merged)) {
                return e;
            }
            *cur = toArray(merged, a);
        } else {
            *cur = copyOf(patchV, a);
        }
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
    // Decoded straight into `decoded` when asked for: the patch is only read.
    json::Document local;
    json::Document& patch = decoded ? *decoded : local;
    if (auto err = decodePatchMap(body, patch, strict ? strictErrors : nullptr)) {
        return Error{Error::Kind::BadRequest, std::move(*err)};
    }
    if (patch.IsNull()) {
        patch.SetObject();
    }
    return mergeMap(doc, patch, schema, doc.GetAllocator());
}

}  // namespace kube::registry::patch
