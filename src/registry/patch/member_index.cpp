#include "registry/patch/member_index.hpp"

#include <functional>

namespace kube::registry::patch {

namespace json = util::json;

namespace {

// How many names ahead of the one looked up have their slot loaded: a
// miss to memory lasts as long as a few dozen lookups that hit.
constexpr size_t kAhead = 32;

// The hashes of the member names of `obj`.
std::vector<size_t> nameHashes(const json::Value& obj) {
    std::vector<size_t> out;
    out.reserve(obj.MemberCount());
    for (const auto& m : obj.GetObject()) {
        out.push_back(hashName(json::view(m.name)));
    }
    return out;
}

}  // namespace

size_t hashName(std::string_view name) {
    return std::hash<std::string_view>()(name);
}

void indexNames(const json::Value& obj, FlatIndex& index) {
    index.clear();
    index.reserve(obj.MemberCount());
    std::vector<size_t> hashes = nameHashes(obj);
    auto begin = obj.MemberBegin();
    for (size_t i = 0; i < hashes.size(); ++i) {
        if (i + kAhead < hashes.size()) {
            index.prefetch(hashes[i + kAhead]);
        }
        std::string_view name = json::view((begin + i)->name);
        index.insertFirst(hashes[i], static_cast<int>(i),
                          [&](int j) { return json::view((begin + j)->name) == name; });
    }
}

MemberIndex::MemberIndex(const json::Value& obj) : size_(obj.MemberCount()) {
    if (size_ > kScanned) {
        build(obj);
    }
}

void MemberIndex::build(const json::Value& obj) {
    indexNames(obj, positions_);
    removed_.assign(obj.MemberCount(), false);
    indexed_ = true;
}

int MemberIndex::position(const json::Value& obj, std::string_view name, size_t hash) const {
    auto begin = obj.MemberBegin();
    return positions_.find(
        hash, [&](int h) { return !removed_[h] && json::view((begin + h)->name) == name; });
}

json::Value* MemberIndex::find(json::Value& obj, std::string_view name) {
    if (!indexed_ && size_ > kScanned) {
        build(obj);
    }
    if (indexed_) {
        int i = position(obj, name, hashName(name));
        return i < 0 ? nullptr : &(obj.MemberBegin() + i)->value;
    }
    return json::member(obj, name);
}

void MemberIndex::set(json::Value& obj, std::string_view name, json::Value value,
                      json::Allocator& a) {
    if (json::Value* v = find(obj, name)) {
        *v = value.Move();
        return;
    }
    append(obj, name, std::move(value), a);
}

void MemberIndex::append(json::Value& obj, std::string_view name, json::Value value,
                         json::Allocator& a) {
    obj.AddMember(json::stringValue(name, a), value.Move(), a);
    if (indexed_) {
        if (!batched_) {
            positions_.insert(hashName(name), static_cast<int>(size_));
        }
        removed_.push_back(false);
    }
    ++size_;
}

bool MemberIndex::erase(json::Value& obj, std::string_view name) {
    if (!indexed_ && size_ > kScanned) {
        build(obj);
    }
    if (!indexed_) {
        auto it = obj.FindMember(json::Value(json::ref(name)));
        if (it == obj.MemberEnd()) {
            return false;
        }
        obj.EraseMember(it);
        --size_;
        return true;
    }
    int i = position(obj, name, hashName(name));
    if (i < 0) {
        return false;
    }
    eraseAt(i);
    return true;
}

std::vector<int> MemberIndex::positions(const json::Value& obj, const json::Value& names) {
    if (!indexed_) {
        build(obj);
    }
    batched_ = true;
    std::vector<size_t> hashes = nameHashes(names);
    std::vector<int> out(hashes.size());
    auto begin = names.MemberBegin();
    for (size_t i = 0; i < hashes.size(); ++i) {
        if (i + kAhead < hashes.size()) {
            positions_.prefetch(hashes[i + kAhead]);
        }
        out[i] = position(obj, json::view((begin + i)->name), hashes[i]);
    }
    return out;
}

void MemberIndex::eraseAt(int position) {
    if (!removed_[position]) {
        removed_[position] = true;
        ++erased_;
    }
}

void MemberIndex::compact(json::Value& obj) {
    if (erased_ == 0 && !batched_) {
        return;
    }
    json::eraseMembersIf(obj, [&](rapidjson::SizeType i, const json::Value::Member&) {
        return i < removed_.size() && removed_[i];
    });
    size_ = obj.MemberCount();
    erased_ = 0;
    // Built again when next needed.
    indexed_ = false;
    batched_ = false;
    positions_.clear();
    removed_.clear();
}

}  // namespace kube::registry::patch
