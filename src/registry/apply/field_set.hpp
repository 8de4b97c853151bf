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

    // The child for `pe`, created in its place when missing.
    FieldSet& descend(const PathElement& pe);

    // Builders that meet elements in any order (an object's members, a
    // walk of two objects) append, and normalize() once at the end: kept
    // sorted on every insertion, a set of N members built out of order
    // would cost O(N²). Until normalize(), nothing else may use the set.
    // appendChild() reuses the last child when it is `pe`'s.
    void appendMember(const PathElement& pe);
    FieldSet& appendChild(const PathElement& pe);
    void appendPath(const Path& p);
    // Sorts every node, merges repeated elements and drops empty children.
    void normalize();
    // normalize() of this node alone, whose children are normalized.
    void sortLevel();

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
