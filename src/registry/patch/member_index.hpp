#pragma once

#include <string_view>
#include <vector>

#include "registry/patch/flat_index.hpp"
#include "util/json.hpp"

namespace kube::registry::patch {

// The hash a FlatIndex of member names is keyed by.
size_t hashName(std::string_view name);

// `index` made the position of the first member of each name of object
// `obj`, as RapidJSON finds a member, keyed by hashName().
void indexNames(const util::json::Value& obj, FlatIndex& index);

// The members of one JSON object by name, for a patch that looks up, sets
// and removes many of them: RapidJSON finds a member by scanning the object
// and removes one by shifting those after it, so a patch of N keys done
// member by member costs O(N²). Here a lookup is a hash lookup (built once
// the object has more than a few members) and a removal only marks the
// member until compact() drops every marked one in a single pass, keeping
// the others' order. Go's maps have no order; ours keeps the object's, with
// new members appended.
//
// The index describes the object it was built from and must see every
// change to its members (values may change freely); the object is passed to
// each call, so the index follows it when the Value is moved. Until
// compact(), removed members are still in the object: nothing else may read
// it as JSON.
class MemberIndex {
  public:
    explicit MemberIndex(const util::json::Value& obj);

    // The value of the member `name`, or nullptr.
    util::json::Value* find(util::json::Value& obj, std::string_view name);

    // Replaces the value of `name`, or appends the member.
    void set(util::json::Value& obj, std::string_view name, util::json::Value value,
             util::json::Allocator& a);

    // Removes the member `name`; false when there is none.
    bool erase(util::json::Value& obj, std::string_view name);

    // The positions in `obj` of the members named as the members of object
    // `names`, in its order (-1: none), found in one pass that loads the
    // next few names' slots while it looks one up: a wide patch's members
    // cost a cache miss or two together rather than each. The index is
    // built whatever the object's size, for the calls below.
    std::vector<int> positions(const util::json::Value& obj, const util::json::Value& names);

    // After positions(): the member at `position` removed, or a member
    // `name` that is not there appended. Until compact(), the object is
    // then changed only by these (an appended member is not indexed: the
    // names looked up are distinct, none looks for it).
    void eraseAt(int position);
    void append(util::json::Value& obj, std::string_view name, util::json::Value value,
                util::json::Allocator& a);

    // Whether removed members wait for compact().
    bool pending() const { return erased_ > 0; }

    // Drops the removed members from the object.
    void compact(util::json::Value& obj);

    // How many members the object holds, removed ones included: a check
    // that the index still describes it.
    rapidjson::SizeType size() const { return size_; }

  private:
    void build(const util::json::Value& obj);
    // The position of the live member `name`, or -1.
    int position(const util::json::Value& obj, std::string_view name, size_t hash) const;

    // Objects this small are scanned; the map is built once one grows past it.
    static constexpr rapidjson::SizeType kScanned = 16;

    rapidjson::SizeType size_ = 0;
    bool indexed_ = false;
    // positions() was called: appended members are not in positions_.
    bool batched_ = false;
    FlatIndex positions_;
    std::vector<bool> removed_;
    size_t erased_ = 0;
};

}  // namespace kube::registry::patch
