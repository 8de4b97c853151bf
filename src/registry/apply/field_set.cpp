#include "registry/apply/field_set.hpp"

#include <algorithm>

namespace kube::registry::apply {

namespace {

using Members = std::vector<PathElement>;
using Children = std::vector<FieldSet::Child>;

const FieldSet& emptySet() {
    static const FieldSet empty;
    return empty;
}

Children::const_iterator findChild(const Children& c, const PathElement& pe) {
    auto it = std::lower_bound(
        c.begin(), c.end(), pe,
        [](const FieldSet::Child& n, const PathElement& e) { return n.element.compare(e) < 0; });
    return it != c.end() && it->element.compare(pe) == 0 ? it : c.end();
}

bool hasMember(const Members& m, const PathElement& pe) {
    return std::binary_search(m.begin(), m.end(), pe);
}

Members mergeMembers(const Members& a, const Members& b, bool keepA, bool keepBoth, bool keepB) {
    Members out;
    size_t i = 0;
    size_t j = 0;
    while (i < a.size() && j < b.size()) {
        int c = a[i].compare(b[j]);
        if (c < 0) {
            if (keepA) {
                out.push_back(a[i]);
            }
            ++i;
        } else if (c > 0) {
            if (keepB) {
                out.push_back(b[j]);
            }
            ++j;
        } else {
            if (keepBoth) {
                out.push_back(a[i]);
            }
            ++i;
            ++j;
        }
    }
    if (keepA) {
        out.insert(out.end(), a.begin() + static_cast<long>(i), a.end());
    }
    if (keepB) {
        out.insert(out.end(), b.begin() + static_cast<long>(j), b.end());
    }
    return out;
}

}  // namespace

void FieldSet::insert(const Path& p) {
    if (p.empty()) {
        return;
    }
    FieldSet* s = this;
    for (size_t i = 0; i + 1 < p.size(); ++i) {
        s = &s->descend(p[i]);
    }
    auto it = std::lower_bound(s->members_.begin(), s->members_.end(), p.back());
    if (it == s->members_.end() || it->compare(p.back()) != 0) {
        s->members_.insert(it, p.back());
    }
}

FieldSet& FieldSet::descend(const PathElement& pe) {
    auto it = std::lower_bound(
        children_.begin(), children_.end(), pe,
        [](const Child& n, const PathElement& e) { return n.element.compare(e) < 0; });
    if (it == children_.end() || it->element.compare(pe) != 0) {
        it = children_.insert(it, Child{pe, FieldSet()});
    }
    return it->set;
}

void FieldSet::appendMember(const PathElement& pe) {
    if (members_.empty() || members_.back().compare(pe) != 0) {
        members_.push_back(pe);
    }
}

FieldSet& FieldSet::appendChild(const PathElement& pe) {
    if (children_.empty() || children_.back().element.compare(pe) != 0) {
        children_.push_back(Child{pe, FieldSet()});
    }
    return children_.back().set;
}

void FieldSet::appendPath(const Path& p) {
    if (p.empty()) {
        return;
    }
    FieldSet* s = this;
    for (size_t i = 0; i + 1 < p.size(); ++i) {
        s = &s->appendChild(p[i]);
    }
    s->appendMember(p.back());
}

void FieldSet::normalize() {
    for (Child& c : children_) {
        c.set.normalize();
    }
    sortLevel();
}

void FieldSet::sortLevel() {
    auto less = [](const PathElement& x, const PathElement& y) { return x.compare(y) < 0; };
    auto same = [](const PathElement& x, const PathElement& y) { return x.compare(y) == 0; };
    std::sort(members_.begin(), members_.end(), less);
    members_.erase(std::unique(members_.begin(), members_.end(), same), members_.end());

    std::stable_sort(children_.begin(), children_.end(),
                     [&](const Child& x, const Child& y) { return less(x.element, y.element); });
    size_t kept = 0;
    for (size_t i = 0; i < children_.size(); ++i) {
        if (children_[i].set.empty()) {
            continue;
        }
        if (kept > 0 && same(children_[kept - 1].element, children_[i].element)) {
            children_[kept - 1].set = children_[kept - 1].set.unionWith(children_[i].set);
            continue;
        }
        if (kept != i) {
            children_[kept] = std::move(children_[i]);
        }
        ++kept;
    }
    children_.erase(children_.begin() + static_cast<long>(kept), children_.end());
}

bool FieldSet::has(const Path& p) const {
    if (p.empty()) {
        return false;
    }
    const FieldSet* s = this;
    for (size_t i = 0; i + 1 < p.size(); ++i) {
        auto it = findChild(s->children_, p[i]);
        if (it == s->children_.end()) {
            return false;
        }
        s = &it->set;
    }
    return hasMember(s->members_, p.back());
}

size_t FieldSet::size() const {
    size_t n = members_.size();
    for (const Child& c : children_) {
        n += c.set.size();
    }
    return n;
}

FieldSet FieldSet::unionWith(const FieldSet& o) const {
    FieldSet out;
    out.members_ = mergeMembers(members_, o.members_, true, true, true);
    size_t i = 0;
    size_t j = 0;
    const Children& a = children_;
    const Children& b = o.children_;
    out.children_.reserve(a.size() + b.size());
    while (i < a.size() && j < b.size()) {
        int c = a[i].element.compare(b[j].element);
        if (c < 0) {
            out.children_.push_back(a[i++]);
        } else if (c > 0) {
            out.children_.push_back(b[j++]);
        } else {
            out.children_.push_back(Child{a[i].element, a[i].set.unionWith(b[j].set)});
            ++i;
            ++j;
        }
    }
    out.children_.insert(out.children_.end(), a.begin() + static_cast<long>(i), a.end());
    out.children_.insert(out.children_.end(), b.begin() + static_cast<long>(j), b.end());
    return out;
}

FieldSet FieldSet::intersection(const FieldSet& o) const {
    FieldSet out;
    out.members_ = mergeMembers(members_, o.members_, false, true, false);
    size_t i = 0;
    size_t j = 0;
    while (i < children_.size() && j < o.children_.size()) {
        int c = children_[i].element.compare(o.children_[j].element);
        if (c < 0) {
            ++i;
        } else if (c > 0) {
            ++j;
        } else {
            FieldSet s = children_[i].set.intersection(o.children_[j].set);
            if (!s.empty()) {
                out.children_.push_back(Child{children_[i].element, std::move(s)});
            }
            ++i;
            ++j;
        }
    }
    return out;
}

FieldSet FieldSet::difference(const FieldSet& o) const {
    FieldSet out;
    out.members_ = mergeMembers(members_, o.members_, true, false, false);
    size_t j = 0;
    for (const Child& c : children_) {
        while (j < o.children_.size() && o.children_[j].element.compare(c.element) < 0) {
            ++j;
        }
        if (j < o.children_.size() && o.children_[j].element.compare(c.element) == 0) {
            FieldSet s = c.set.difference(o.children_[j].set);
            if (!s.empty()) {
                out.children_.push_back(Child{c.element, std::move(s)});
            }
        } else {
            out.children_.push_back(c);
        }
    }
    return out;
}

FieldSet FieldSet::recursiveDifference(const FieldSet& o) const {
    FieldSet out;
    out.members_ = mergeMembers(members_, o.members_, true, false, false);
    size_t j = 0;
    for (const Child& c : children_) {
        if (hasMember(o.members_, c.element)) {
            continue;
        }
        while (j < o.children_.size() && o.children_[j].element.compare(c.element) < 0) {
            ++j;
        }
        if (j < o.children_.size() && o.children_[j].element.compare(c.element) == 0) {
            FieldSet s = c.set.recursiveDifference(o.children_[j].set);
            if (!s.empty()) {
                out.children_.push_back(Child{c.element, std::move(s)});
            }
        } else {
            out.children_.push_back(c);
        }
    }
    return out;
}

FieldSet FieldSet::leaves() const {
    FieldSet out;
    for (const PathElement& m : members_) {
        if (findChild(children_, m) == children_.end()) {
            out.members_.push_back(m);
        }
    }
    for (const Child& c : children_) {
        FieldSet s = c.set.leaves();
        if (!s.empty()) {
            out.children_.push_back(Child{c.element, std::move(s)});
        }
    }
    return out;
}

const FieldSet& FieldSet::childOf(const PathElement& pe) const {
    auto it = findChild(children_, pe);
    return it == children_.end() ? emptySet() : it->set;
}

bool FieldSet::operator==(const FieldSet& o) const {
    if (members_.size() != o.members_.size() || children_.size() != o.children_.size()) {
        return false;
    }
    for (size_t i = 0; i < members_.size(); ++i) {
        if (members_[i].compare(o.members_[i]) != 0) {
            return false;
        }
    }
    for (size_t i = 0; i < children_.size(); ++i) {
        if (children_[i].element.compare(o.children_[i].element) != 0 ||
            !(children_[i].set == o.children_[i].set)) {
            return false;
        }
    }
    return true;
}

void FieldSet::iterate(const std::function<void(const Path&)>& f) const {
    Path prefix;
    iteratePrefix(prefix, f);
}

void FieldSet::iteratePrefix(Path& prefix, const std::function<void(const Path&)>& f) const {
    for (const PathElement& m : members_) {
        prefix.push_back(m);
        f(prefix);
        prefix.pop_back();
    }
    for (const Child& c : children_) {
        prefix.push_back(c.element);
        c.set.iteratePrefix(prefix, f);
        prefix.pop_back();
    }
}

std::string FieldSet::toString() const {
    std::string out;
    iterate([&out](const Path& p) {
        if (!out.empty()) {
            out += '\n';
        }
        out += pathString(p);
    });
    return out;
}

}  // namespace kube::registry::apply
