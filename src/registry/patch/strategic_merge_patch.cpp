#include "registry/patch/strategic_merge_patch.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include "registry/patch/flat_index.hpp"
#include "registry/patch/go_format.hpp"
#include "registry/patch/member_index.hpp"
#include "registry/patch/patch_document.hpp"
#include "registry/patch/scalar_ids.hpp"
#include "registry/patch/scalar_key.hpp"
#include "registry/patch/scalar_lists.hpp"

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
// Views of values.
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

json::Value copyOf(const json::Value& v, json::Allocator& a) {
    return *copyValue(v, a);
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
            indexNames(patch_, byName_);
            built_ = true;
        }
        int i = byName_.find(hashName(name), named);
        return i < 0 ? nullptr : &(begin + i)->value;
    }

  private:
    const json::Value& patch_;
    FlatIndex byName_;
    bool built_ = false;
};

// What the list code compares an item by, as ids of the merge's ScalarIds.
// `order` is what index() compares: the item itself, or for lists of
// objects its merge key (a missing key and a non-object are nil). `match`
// is what findMapInSliceBasedOnKeyValue compares: the merge key, kNone
// when it is missing. Worked out once per item, they travel with it.
struct Keys {
    int order = ScalarIds::kNone;
    int match = ScalarIds::kNone;
    bool object = false;
    // For lists of objects: the item has the merge key, a $patch member,
    // a {"$patch": "delete"}.
    bool hasKey = false;
    bool directive = false;
    bool deletes = false;
};

// The Keys of `item` but its ids, and in `*key` the value they are the
// ids of (nullptr: nil).
void shapeOf(const json::Value& item, std::string_view mergeKey, bool isMap, Keys* k,
             const json::Value** key) {
    k->object = item.IsObject();
    if (!isMap) {
        *key = &item;
        return;
    }
    *key = nullptr;
    if (!k->object) {
        return;
    }
    // The first member of each name, as RapidJSON finds it, in one pass.
    const json::Value* d = nullptr;
    for (const auto& m : item.GetObject()) {
        std::string_view name = json::view(m.name);
        if (!*key && name == mergeKey) {
            *key = &m.value;
        } else if (!d && name == kDirective) {
            d = &m.value;
        }
    }
    k->hasKey = *key != nullptr;
    k->directive = d != nullptr;
    k->deletes = isString(d, kDelete);
}

void setIds(Keys* k, int id, bool isMap) {
    k->order = id;
    k->match = !isMap || k->hasKey ? id : ScalarIds::kNone;
}

Keys keysOf(const json::Value& item, std::string_view mergeKey, bool isMap, ScalarIds& ids) {
    Keys k;
    const json::Value* key = nullptr;
    shapeOf(item, mergeKey, isMap, &k, &key);
    setIds(&k, ids.of(key), isMap);
    return k;
}

// The Keys of `n` items, item(i) each: the values are hashed first, so
// that the table slots of the next few can be loaded while one is interned.
constexpr size_t kPrefetchAhead = 32;

template <typename ItemAt>
void keysOfAll(size_t n, ItemAt item, std::string_view mergeKey, bool isMap, ScalarIds& ids,
               Keys* out) {
    constexpr size_t kAhead = kPrefetchAhead;
    std::vector<const json::Value*> values(n);
    std::vector<uint64_t> hashes(n);
    for (size_t i = 0; i < n; ++i) {
        out[i] = Keys();
        shapeOf(item(i), mergeKey, isMap, &out[i], &values[i]);
        hashes[i] = ScalarIds::hash(values[i]);
    }
    ids.reserve(static_cast<size_t>(ids.count()) + n);
    for (size_t i = 0; i < n; ++i) {
        if (i + kAhead < n) {
            ids.prefetch(hashes[i + kAhead]);
        }
        setIds(&out[i], ids.of(values[i], hashes[i]), isMap);
    }
}

// A list of values owned by the patched document's allocator, each with
// its Keys for one merge key and kind of list.
struct Item {
    json::Value value;
    Keys keys;
};
using Items = std::vector<Item>;

// A list seen in place (the live object's, the patch's), with its Keys.
struct KeyedRefs {
    Refs refs;
    std::vector<Keys> keys;
};

KeyedRefs keyed(Refs l, std::string_view mergeKey, bool isMap, ScalarIds& ids) {
    KeyedRefs out{std::move(l), {}};
    out.keys.resize(out.refs.size());
    keysOfAll(
        out.refs.size(), [&](size_t i) -> const json::Value& { return *out.refs[i]; }, mergeKey,
        isMap, ids, out.keys.data());
    return out;
}

// The items' Keys worked out again, for another merge key or kind.
void rekey(Items& items, std::string_view mergeKey, bool isMap, ScalarIds& ids) {
    std::vector<Keys> keys(items.size());
    keysOfAll(
        items.size(), [&](size_t i) -> const json::Value& { return items[i].value; }, mergeKey,
        isMap, ids, keys.data());
    for (size_t i = 0; i < items.size(); ++i) {
        items[i].keys = keys[i];
    }
}

Items copies(const KeyedRefs& from, json::Allocator& a) {
    Items out;
    out.reserve(from.refs.size());
    for (size_t i = 0; i < from.refs.size(); ++i) {
        out.push_back({copyOf(*from.refs[i], a), from.keys[i]});
    }
    return out;
}

json::Value toArray(Items& items, json::Allocator& a) {
    json::Value out(rapidjson::kArrayType);
    out.Reserve(static_cast<rapidjson::SizeType>(items.size()), a);
    for (Item& i : items) {
        out.PushBack(i.value, a);
    }
    return out;
}

// index() over a whole list at once: the first position of each `order`
// id, so that an item's place is a vector lookup (kube scans the list
// each time).
class Positions {
  public:
    explicit Positions(const std::vector<Keys>& l) {
        for (size_t i = 0; i < l.size(); ++i) {
            int id = l[i].order;
            if (id < 0) {
                continue;
            }
            if (static_cast<size_t>(id) >= first_.size()) {
                first_.resize(static_cast<size_t>(id) + 1, -1);
            }
            if (first_[id] < 0) {
                first_[id] = static_cast<int>(i);
            }
        }
    }

    // index(l, item): the first position of an item with these keys, or -1.
    int of(const Keys& k) const {
        return k.order >= 0 && static_cast<size_t>(k.order) < first_.size() ? first_[k.order] : -1;
    }

  private:
    std::vector<int> first_;
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

// findMapInSliceBasedOnKeyValue over a whole list of objects at once: the
// first object whose merge key is present with a value, and the first item
// that is not an object (kube's scan fails there unless it found the value
// first).
class KeyedItems {
  public:
    explicit KeyedItems(const std::vector<Keys>& l) {
        for (const Keys& k : l) {
            append(k);
        }
    }

    // An item after the others.
    void append(const Keys& k) {
        if (notMap_ < 0 && !k.object) {
            notMap_ = size_;
        }
        // An absent key, and every item after one that is not an object,
        // is never found: nothing is a match for an invalid value.
        if (notMap_ < 0 && k.match >= 0) {
            if (static_cast<size_t>(k.match) >= first_.size()) {
                first_.resize(static_cast<size_t>(k.match) + 1, -1);
            }
            if (first_[k.match] < 0) {
                first_[k.match] = size_;
            }
        }
        ++size_;
    }

    // The index of the first object whose key has id `match`, or -1.
    Result find(int match, int* index) const {
        *index = match >= 0 && static_cast<size_t>(match) < first_.size() ? first_[match] : -1;
        if (*index < 0 && notMap_ >= 0) {
            return other("value for key " + std::to_string(notMap_) + " is not a map");
        }
        return std::nullopt;
    }

  private:
    std::vector<int> first_;
    int size_ = 0;
    int notMap_ = -1;
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

// goKind() of a float64.
constexpr int kFloatKind = 6;

// Which of Go's types goTypeName() names `v` by, without building the name.
int goKind(const json::Value& v) {
    if (v.IsObject()) {
        return 1;
    }
    if (v.IsArray()) {
        return 2;
    }
    if (v.IsString()) {
        return 3;
    }
    if (v.IsBool()) {
        return 4;
    }
    if (v.IsInt64() || v.IsUint64()) {
        return 5;
    }
    return v.IsNumber() ? kFloatKind : 0;
}

// sliceElementType of two arrays: `*first` the first item, whose Go type
// every item has.
Result sliceElementType(const json::Value& x, const json::Value& y, const json::Value** first) {
    const json::Value* prev = nullptr;
    for (const json::Value* l : {&x, &y}) {
        for (const json::Value& v : l->GetArray()) {
            if (!prev) {
                prev = &v;
                if (v.IsArray()) {
                    return Error{Error::Kind::Unprocessable, "lists of lists are not supported"};
                }
            } else if (goKind(*prev) != goKind(v)) {
                return other("list element types are not identical: " +
                             goLists({refs(x), refs(y)}));
            }
        }
    }
    if (!prev) {
        return other("no elements in any of the given slices");
    }
    *first = prev;
    return std::nullopt;
}

// sliceElementType: the one Go type of every item of the two lists.
Result sliceElementType(const Refs& first, const Refs& second, std::string* type) {
    const json::Value* prev = nullptr;
    for (const Refs* l : {&first, &second}) {
        for (const json::Value* v : *l) {
            if (!prev) {
                prev = v;
                if (v->IsArray()) {
                    return Error{Error::Kind::Unprocessable, "lists of lists are not supported"};
                }
            } else if (goKind(*prev) != goKind(*v)) {
                return other("list element types are not identical: " + goLists({first, second}));
            }
        }
    }
    if (!prev) {
        return other("no elements in any of the given slices");
    }
    *type = goTypeName(*prev);
    return std::nullopt;
}

// validateMergeKeyInLists for one list.
Result validateMergeKeys(std::string_view mergeKey, const Items& items) {
    for (const Item& i : items) {
        if (!i.keys.object) {
            return badArgType(kMapType, i.value);
        }
        if (!i.keys.hasKey) {
            return noMergeKey(i.value, mergeKey);
        }
    }
    return std::nullopt;
}

Result validateMergeKeys(std::string_view mergeKey, const KeyedRefs& l) {
    for (size_t i = 0; i < l.refs.size(); ++i) {
        if (!l.keys[i].object) {
            return badArgType(kMapType, *l.refs[i]);
        }
        if (!l.keys[i].hasKey) {
            return noMergeKey(*l.refs[i], mergeKey);
        }
    }
    return std::nullopt;
}

bool isDeleteItem(const json::Value& v) {
    return v.IsObject() && isString(json::member(v, kDirective), kDelete);
}

// sort.SliceStable with normalizeSliceOrder's predicate. While every item
// is in the order list the predicate is a strict weak order, and any stable
// sort by place gives Go's result; sorted input needs no sort at all.
void sortByPlace(std::vector<GoStableSort::Entry>& entries) {
    bool placed = true;
    bool sorted = true;
    for (size_t i = 0; i < entries.size(); ++i) {
        placed = placed && entries[i].rank >= 0;
        sorted = sorted && (i == 0 || entries[i - 1].rank <= entries[i].rank);
    }
    if (placed && sorted) {
        return;
    }
    if (placed) {
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto& x, const auto& y) { return x.rank < y.rank; });
        return;
    }
    GoStableSort(entries).run();
}

// normalizeSliceOrder: `toSort` in the order of `order` (items it lacks
// where Go's sort leaves them), objects marked for deletion last.
Result normalizeSliceOrder(Items& toSort, const KeyedRefs& order, std::string_view mergeKey,
                           bool isMap) {
    Items toDelete;
    if (isMap) {
        if (auto e = validateMergeKeys(mergeKey, toSort)) {
            return e;
        }
        if (auto e = validateMergeKeys(mergeKey, order)) {
            return e;
        }
        Items keep;
        keep.reserve(toSort.size());
        for (Item& i : toSort) {
            (i.keys.deletes ? toDelete : keep).push_back(std::move(i));
        }
        toSort = std::move(keep);
    }
    Positions places(order.keys);
    std::vector<GoStableSort::Entry> entries;
    entries.reserve(toSort.size());
    for (size_t i = 0; i < toSort.size(); ++i) {
        entries.push_back({places.of(toSort[i].keys), static_cast<int>(i)});
    }
    sortByPlace(entries);
    Items sorted;
    sorted.reserve(toSort.size() + toDelete.size());
    for (const GoStableSort::Entry& e : entries) {
        sorted.push_back(std::move(toSort[e.pos]));
    }
    for (Item& i : toDelete) {
        sorted.push_back(std::move(i));
    }
    toSort = std::move(sorted);
    return std::nullopt;
}

// normalizeElementOrder: patch items in the patch's order, the others in
// the live object's, then interleaved (mergeSortedSlice).
Result normalizeElementOrder(Items patchItems, Items serverOnly, const KeyedRefs& patchOrder,
                             const KeyedRefs& serverOrder, std::string_view mergeKey, bool isMap,
                             Items* out) {
    if (auto e = normalizeSliceOrder(patchItems, patchOrder, mergeKey, isMap)) {
        return e;
    }
    if (auto e = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, isMap)) {
        return e;
    }
    // Each item's place in the live list, looked up once.
    Positions places(serverOrder.keys);
    out->clear();
    out->reserve(serverOnly.size() + patchItems.size());
    size_t i = 0;
    size_t j = 0;
    int li = i < serverOnly.size() ? places.of(serverOnly[i].keys) : -1;
    int ri = j < patchItems.size() ? places.of(patchItems[j].keys) : -1;
    while (i < serverOnly.size() || j < patchItems.size()) {
        bool left =
            j >= patchItems.size() || (i < serverOnly.size() && li >= 0 && ri >= 0 && li < ri);
        if (left) {
            out->push_back(std::move(serverOnly[i++]));
            li = i < serverOnly.size() ? places.of(serverOnly[i].keys) : -1;
        } else {
            out->push_back(std::move(patchItems[j++]));
            ri = j < patchItems.size() ? places.of(patchItems[j].keys) : -1;
        }
    }
    return std::nullopt;
}

// partition{Primitives,Maps}ByPresentInList: `merged` and `by` keyed alike.
Result partition(Items& merged, const std::vector<Keys>& by, std::string_view mergeKey, bool isMap,
                 Items* present, Items* absent) {
    std::optional<Positions> values;
    std::optional<KeyedItems> keyed;
    if (isMap) {
        keyed.emplace(by);
    } else {
        values.emplace(by);
    }
    present->reserve(merged.size());
    absent->reserve(merged.size());
    for (Item& i : merged) {
        bool found = false;
        if (!isMap) {
            found = values->of(i.keys) >= 0;
        } else {
            if (!i.keys.object) {
                return badArgType(kMapType, i.value);
            }
            if (!i.keys.hasKey) {
                return noMergeKey(i.value, mergeKey);
            }
            int index = -1;
            if (auto e = keyed->find(i.keys.match, &index)) {
                return e;
            }
            found = index >= 0;
        }
        (found ? present : absent)->push_back(std::move(i));
    }
    return std::nullopt;
}

// Go's deduplicateScalars: for each item in turn, every later equal item
// is replaced by the last item (checked again in its place) and the list
// shortens. The same moves, found through each value's positions instead
// of comparing every pair. The items are keyed as primitives.
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
        std::vector<int> first;
        for (int p = 0; p < n; ++p) {
            int v = s[p].keys.order;
            int id = p;
            if (v >= 0) {
                if (static_cast<size_t>(v) >= first.size()) {
                    first.resize(static_cast<size_t>(v) + 1, -1);
                }
                if (first[v] < 0) {
                    first[v] = p;
                }
                id = first[v];
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
        if (count[id] < 2) {
            continue;
        }
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
                s[j] = std::move(s[length]);
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

// mergeSlice of a list of scalars into the live `list` it replaces, done
// in place by scalar_lists when it can be (`*done`): a $deleteFromPrimitiveList,
// or a merge of items that are not floats. Lists of objects, and floats,
// which Go's deduplication keeps the first or a later of -0 and 0 of,
// are left to mergeSlice.
Result mergeScalarListInPlace(json::Value& list, const json::Value& patch, bool isDeleteList,
                              json::Allocator& a, bool* done) {
    *done = false;
    if (list.Empty() && patch.Empty()) {
        return std::nullopt;
    }
    const json::Value* first = nullptr;
    if (auto e = sliceElementType(list, patch, &first)) {
        return e;
    }
    if (first->IsObject()) {
        return std::nullopt;
    }
    if (isDeleteList) {
        deleteScalars(list, patch);
    } else if (goKind(*first) == kFloatKind) {
        return std::nullopt;
    } else {
        list = mergeScalarLists(list, patch, a);
    }
    *done = true;
    return std::nullopt;
}

// mergeSlice: a list with strategy "merge" (or a $deleteFromPrimitiveList).
// The items come out keyed (in `ids`) for `mergeKey` and for the kind of
// list `*isMapOut` says (lists of objects), and so do the items of
// `original` into `originalKeys` when it is set (left empty when they were
// not keyed); `original` is only read.
Result mergeSlice(const json::Value& original, const json::Value& patch, const PatchSchema& schema,
                  const std::string& mergeKey, bool isDeleteList, json::Allocator& a,
                  ScalarIds& ids, Items* out, bool* isMapOut,
                  std::vector<Keys>* originalKeys = nullptr) {
    Refs originalRefs = refs(original);
    Refs patchRefs = refs(patch);
    *isMapOut = false;
    if (originalRefs.empty() && patchRefs.empty()) {
        out->clear();
        return std::nullopt;
    }
    std::string type;
    if (auto e = sliceElementType(originalRefs, patchRefs, &type)) {
        return e;
    }
    bool isMap = type == kMapType;
    *isMapOut = isMap;
    Items merged;
    KeyedRefs order;  // the live list, as the order of the items the patch does not name
    KeyedRefs patchOrder;
    if (!isMap) {
        if (isDeleteList) {
            // deleteFromSlice, through a table of only what goes (small, so
            // that looking up every item stays in the cache). The items are
            // left unkeyed.
            ScalarIds gone;
            keyed(std::move(patchRefs), mergeKey, false, gone);
            std::vector<uint64_t> hashes(originalRefs.size());
            for (size_t i = 0; i < originalRefs.size(); ++i) {
                hashes[i] = ScalarIds::hash(originalRefs[i]);
            }
            out->clear();
            out->reserve(originalRefs.size());
            for (size_t i = 0; i < originalRefs.size(); ++i) {
                if (i + kPrefetchAhead < originalRefs.size()) {
                    gone.prefetch(hashes[i + kPrefetchAhead]);
                }
                if (gone.find(originalRefs[i], hashes[i]) == ScalarIds::kNone) {
                    out->push_back({copyOf(*originalRefs[i], a), {}});
                }
            }
            return std::nullopt;
        }
        order = keyed(std::move(originalRefs), mergeKey, false, ids);
        patchOrder = keyed(std::move(patchRefs), mergeKey, false, ids);
        if (originalKeys) {
            *originalKeys = order.keys;
        }
        merged = copies(order, a);
        Items added = copies(patchOrder, a);
        merged.reserve(merged.size() + added.size());
        for (Item& i : added) {
            merged.push_back(std::move(i));
        }
        deduplicateScalars(merged);
    } else {
        if (mergeKey.empty()) {
            return other("cannot merge lists without merge key for " + schema.name());
        }
        // mergeSliceWithSpecialElements. The items of each key: the first
        // found through `headOf` (by id), each linked to the next.
        KeyedRefs sources = keyed(std::move(originalRefs), mergeKey, true, ids);
        if (originalKeys) {
            *originalKeys = sources.keys;
        }
        size_t n = sources.refs.size();
        std::vector<bool> deleted(n, false);
        std::vector<int> headOf;
        std::vector<int> nextSame(n, -1);
        std::vector<int> lastSame(n, -1);
        for (int i = 0; i < static_cast<int>(n); ++i) {
            int id = sources.keys[i].match;
            if (id < 0) {
                continue;
            }
            if (static_cast<size_t>(id) >= headOf.size()) {
                headOf.resize(static_cast<size_t>(id) + 1, -1);
            }
            int head = headOf[id];
            if (head < 0) {
                headOf[id] = i;
                lastSame[i] = i;
            } else {
                nextSame[lastSame[head]] = i;
                lastSame[head] = i;
            }
        }
        KeyedRefs plain;
        plain.refs.reserve(patchRefs.size());
        plain.keys.reserve(patchRefs.size());
        bool replace = false;
        KeyedRefs patchKeyed = keyed(std::move(patchRefs), mergeKey, true, ids);
        for (size_t p = 0; p < patchKeyed.refs.size(); ++p) {
            const json::Value* v = patchKeyed.refs[p];
            const Keys& k = patchKeyed.keys[p];
            if (!k.directive) {
                plain.refs.push_back(v);
                plain.keys.push_back(k);
                continue;
            }
            const json::Value* d = json::member(*v, kDirective);
            if (k.deletes) {
                if (!k.hasKey) {
                    return noMergeKey(*v, mergeKey);
                }
                int id = k.match;
                int head = id >= 0 && static_cast<size_t>(id) < headOf.size() ? headOf[id] : -1;
                // A deleted head: its whole chain went before.
                for (int i = head; i >= 0 && !deleted[i]; i = nextSame[i]) {
                    deleted[i] = true;
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
            sources = std::move(plain);
            plain = KeyedRefs();
        } else {
            KeyedRefs kept;
            kept.refs.reserve(n);
            kept.keys.reserve(n);
            for (size_t i = 0; i < n; ++i) {
                if (!deleted[i]) {
                    kept.refs.push_back(sources.refs[i]);
                    kept.keys.push_back(sources.keys[i]);
                }
            }
            sources = std::move(kept);
        }
        Items base = copies(sources, a);
        // mergeSliceWithoutSpecialElements.
        KeyedItems keyedBase(sources.keys);
        order = std::move(sources);
        base.reserve(base.size() + plain.refs.size());
        for (size_t p = 0; p < plain.refs.size(); ++p) {
            const json::Value& v = *plain.refs[p];
            const Keys& k = plain.keys[p];
            if (!k.hasKey) {
                return noMergeKey(v, mergeKey);
            }
            int index = -1;
            if (auto e = keyedBase.find(k.match, &index)) {
                return e;
            }
            if (index >= 0) {
                Item& merging = base[index];
                if (auto e = mergeMap(merging.value, v, schema, a)) {
                    return e;
                }
                merging.keys = keysOf(merging.value, mergeKey, true, ids);
            } else {
                base.push_back({copyOf(v, a), k});
                keyedBase.append(k);
            }
        }
        merged = std::move(base);
        patchOrder = std::move(plain);
    }
    Items patchItems;
    Items serverOnly;
    if (auto e = partition(merged, patchOrder.keys, mergeKey, isMap, &patchItems, &serverOnly)) {
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
    ScalarIds ids;
    Positions listed(keyed(refs(*retain), "", false, ids).keys);
    auto isListed = [&](std::string_view name) {
        json::Value key(json::ref(name));
        Keys k;
        k.order = ids.of(&key);
        return listed.of(k) >= 0;
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
        // The items are matched by their merge key when the field has one.
        bool byKey = !mergeKey.empty();
        ScalarIds ids;
        Items merged;
        // Whether `merged` is keyed as a list of objects (mergeSlice keys
        // by the lists' kind), or not keyed at all.
        std::optional<bool> keyedAsMap;
        // The live list's Keys when mergeSlice worked them out.
        std::vector<Keys> originalKeys;
        if (originalList && !patchList) {
            merged = copies(keyed(originalRefs, mergeKey, byKey, ids), a);
            keyedAsMap = byKey;
        } else if (!originalList && patchList) {
            // The patch list as it is, directives dropped.
            for (const json::Value* v : patchRefs) {
                if (auto kept = copyValue(*v, a, {.directives = true})) {
                    merged.push_back({std::move(*kept), {}});
                }
            }
        } else if (originalList && patchList) {
            if (strategy == kMerge) {
                bool isMap = false;
                if (auto e = mergeSlice(*originalList, *patchList, meta.schema, mergeKey, false, a,
                                        ids, &merged, &isMap, &originalKeys)) {
                    return e;
                }
                keyedAsMap = isMap;
            } else {
                merged = copies(keyed(patchRefs, mergeKey, byKey, ids), a);
                keyedAsMap = byKey;
            }
        } else {
            continue;
        }
        if (keyedAsMap != byKey) {
            rekey(merged, mergeKey, byKey, ids);
        }
        std::string type;
        Items patchItems;
        Items serverOnly;
        KeyedRefs orderRefs = keyed(refs(order), mergeKey, byKey, ids);
        if (auto e = partition(merged, orderRefs.keys, mergeKey, byKey, &patchItems, &serverOnly)) {
            return e;
        }
        if (auto e = sliceElementType(originalRefs, patchRefs, &type)) {
            return e;
        }
        // The live list stays the reference for the items the order omits.
        bool isMap = type == kMapType;
        if (isMap != byKey) {
            rekey(patchItems, mergeKey, isMap, ids);
            rekey(serverOnly, mergeKey, isMap, ids);
            orderRefs = keyed(std::move(orderRefs.refs), mergeKey, isMap, ids);
        }
        KeyedRefs live;
        if (keyedAsMap == isMap && originalKeys.size() == originalRefs.size()) {
            live = {std::move(originalRefs), std::move(originalKeys)};
        } else {
            live = keyed(std::move(originalRefs), mergeKey, isMap, ids);
        }
        Items both;
        if (auto e = normalizeElementOrder(std::move(patchItems), std::move(serverOnly), orderRefs,
                                           live, mergeKey, isMap, &both)) {
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
        if (!cur || goKind(*cur) != goKind(patchV)) {
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
            bool done = false;
            if (auto e = mergeScalarListInPlace(*cur, patchV, isDeleteList, a, &done)) {
                return e;
            }
            if (done) {
                continue;
            }
            ScalarIds ids;
            Items merged;
            bool isMap = false;
            if (auto e = mergeSlice(*cur, patchV, field.schema, field.meta.mergeKey, isDeleteList,
                                    a, ids, &merged, &isMap)) {
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
