#pragma once

#include <functional>
#include <vector>

#include "registry/apply/path.hpp"

namespace kube::registry::apply {

// A set of paths, kept as a tree: the elements that end a path here
// (members) and, per element, the set of paths continuing below it
// (children). Mirrors fieldpath.Set; the operations return new sets.
// Children are never left empty.
class FieldSet {
  public:
    struct Child;

    FieldSet() = default;

    void insert(const Path& p);
    bool has(const Path& p) const;
    bool empty() const { return members_.empty() && children_.empty(); }
    // The number of paths.
    size_t size() const;

    FieldSet unionWith(const FieldSet& o) const;
    FieldSet intersection(const FieldSet& o) const;
    // The paths of this set that are not paths of `o`.
    FieldSet difference(const FieldSet& o) const;
    // Set.RecursiveDifference: also drops every path below a member of `o`.
    FieldSet recursiveDifference(const FieldSet& o) const;
    // Set.Leaves: the members that have no children.
    FieldSet leaves() const;
    // The paths below `pe` (WithPrefix), empty when there are none.
    const FieldSet& childOf(const PathElement& pe) const;

    bool operator==(const FieldSet& o) const;

    // Every path, members of a node before the paths below its children, in
    // element order (Set.Iterate).
    void iterate(const std::function<void(const Path&)>& f) const;
    // Set.String: the paths one a line.
    std::string toString() const;

    const std::vector<PathElement>& members() const { return members_; }
    const std::vector<Child>& children() const { return children_; }

    // The member list and the child for `pe`, created when missing, for
    // builders (fieldsV1 decoding, schema walks). Callers keep the order.
    std::vector<PathElement>& mutableMembers() { return members_; }
    FieldSet& descend(const PathElement& pe);
    // Drops children left empty by a builder.
    void prune();

  private:
    void iteratePrefix(Path& prefix, const std::function<void(const Path&)>& f) const;

    std::vector<PathElement> members_;  // sorted, unique
    std::vector<Child> children_;       // sorted by element, unique
};

struct FieldSet::Child {
    PathElement element;
    FieldSet set;
};

}  // namespace kube::registry::apply
