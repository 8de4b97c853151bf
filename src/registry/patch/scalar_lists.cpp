#include "registry/patch/scalar_lists.hpp"

#include <cstdint>
#include <vector>

#include "registry/patch/flat_index.hpp"
#include "registry/patch/scalar_ids.hpp"

namespace kube::registry::patch {

namespace json = util::json;

namespace {

// Visits items 0..n-1 with their ScalarIds::hash(), the table slots of the
// items a few places ahead loaded meanwhile: a big list's lookups then
// wait for memory together rather than one after the other.
template <typename ItemAt, typename Visit>
void visitHashed(size_t n, ItemAt item, const FlatIndex& index, Visit visit) {
    constexpr size_t kAhead = 32;
    std::vector<uint64_t> hashes(n);
    for (size_t k = 0; k < n; ++k) {
        hashes[k] = ScalarIds::hash(&item(k));
    }
    for (size_t k = 0; k < n; ++k) {
        if (k + kAhead < n) {
            index.prefetch(hashes[k + kAhead]);
        }
        visit(k, hashes[k]);
    }
}

}  // namespace

json::Value mergeScalarLists(const json::Value& original, const json::Value& patch,
                             json::Allocator& a) {
    // One index over both lists: handles below n1 are the live list's
    // positions, the others the patch's after them. Each value keeps the
    // handle it was first met at.
    const size_t n1 = original.Size();
    const size_t n2 = patch.Size();
    const json::Value* live0 = original.Begin();
    const json::Value* patch0 = patch.Begin();
    auto item = [&](size_t h) -> const json::Value& { return h < n1 ? live0[h] : patch0[h - n1]; };
    FlatIndex first;
    first.reserve(n1 + n2);
    // The live items that are their value's first (kept unless the patch
    // has the value too), and for each patch item its value's first place
    // in the live list (-1: none), or kRepeat when it is not the first of
    // its value in the patch.
    constexpr int kRepeat = -2;
    std::vector<uint8_t> live(n1, 0);
    constexpr uint8_t kFirst = 1;
    constexpr uint8_t kPatched = 2;
    std::vector<int> rank(n2, kRepeat);
    size_t kept = 0;
    visitHashed(n1 + n2, item, first, [&](size_t k, uint64_t h) {
        const json::Value& v = item(k);
        int seen = first.insertFirst(h, static_cast<int>(k),
                                     [&](int j) { return ScalarIds::equal(&item(j), &v); });
        if (k < n1) {
            if (seen < 0) {
                live[k] = kFirst;
                ++kept;
            }
            return;
        }
        size_t p = k - n1;
        if (seen < 0) {
            rank[p] = -1;
            ++kept;
        } else if (static_cast<size_t>(seen) < n1 && !(live[seen] & kPatched)) {
            live[seen] |= kPatched;
            rank[p] = seen;
        }
    });
    // mergeSortedSlice of the live list's own values (left, each at its
    // place there) and the patch's (right): a left item goes first only
    // when the right one is in the live list too, further on.
    json::Value out(rapidjson::kArrayType);
    out.Reserve(static_cast<rapidjson::SizeType>(kept), a);
    size_t i = 0;
    size_t j = 0;
    auto nextLeft = [&] {
        while (i < n1 && live[i] != kFirst) {
            ++i;
        }
    };
    auto nextRight = [&] {
        while (j < n2 && rank[j] == kRepeat) {
            ++j;
        }
    };
    nextLeft();
    nextRight();
    while (i < n1 || j < n2) {
        bool left = j >= n2 || (i < n1 && rank[j] >= 0 && static_cast<int>(i) < rank[j]);
        if (left) {
            out.PushBack(json::Value(original[static_cast<rapidjson::SizeType>(i++)], a), a);
            nextLeft();
        } else {
            out.PushBack(json::Value(patch[static_cast<rapidjson::SizeType>(j++)], a), a);
            nextRight();
        }
    }
    return out;
}

void deleteScalars(json::Value& list, const json::Value& toDelete) {
    FlatIndex gone;
    gone.reserve(toDelete.Size());
    auto deleted = [&](size_t k) -> const json::Value& {
        return toDelete[static_cast<rapidjson::SizeType>(k)];
    };
    visitHashed(toDelete.Size(), deleted, gone, [&](size_t k, uint64_t h) {
        gone.insertFirst(h, static_cast<int>(k),
                         [&](int j) { return ScalarIds::equal(&deleted(j), &deleted(k)); });
    });
    auto at = [&](size_t k) -> json::Value& { return list[static_cast<rapidjson::SizeType>(k)]; };
    rapidjson::SizeType kept = 0;
    visitHashed(list.Size(), at, gone, [&](size_t k, uint64_t h) {
        json::Value& v = at(k);
        if (gone.find(h, [&](int j) { return ScalarIds::equal(&deleted(j), &v); }) >= 0) {
            return;
        }
        if (kept != k) {
            at(kept).Swap(v);
        }
        ++kept;
    });
    if (kept < list.Size()) {
        list.Erase(list.Begin() + kept, list.End());
    }
}

}  // namespace kube::registry::patch
