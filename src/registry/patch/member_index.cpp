#include "registry/patch/member_index.hpp"

#include <functional>

namespace kube::registry::patch {

namespace json = util::json;

namespace {

size_t hashName(std::string_view name) {
    return std::hash<std::string_view>()(name);
}

}  // namespace

MemberIndex::MemberIndex(const json::Value& obj) : size_(obj.MemberCount()) {
    if (size_ > kScanned) {
        build(obj);
    }
}

void MemberIndex::build(const json::Value& obj) {
    positions_.clear();
    positions_.reserve(obj.MemberCount());
    removed_.assign(obj.MemberCount(), false);
    indexed_ = true;
    int i = 0;
    for (const auto& m : obj.GetObject()) {
        std::string_view name = json::view(m.name);
        // The first of a name written twice, as RapidJSON finds it.
        if (position(obj, name) < 0) {
            positions_.insert(hashName(name), i);
        }
        ++i;
    }
}

int MemberIndex::position(const json::Value& obj, std::string_view name) const {
    auto begin = obj.MemberBegin();
    return positions_.find(hashName(name), [&](int h) {
        return !removed_[h] && json::view((begin + h)->name) == name;
    });
}

json::Value* MemberIndex::find(json::Value& obj, std::string_view name) {
    if (!indexed_ && size_ > kScanned) {
        build(obj);
    }
    if (indexed_) {
        int i = position(obj, name);
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
    obj.AddMember(json::stringValue(name, a), value.Move(), a);
    if (indexed_) {
        positions_.insert(hashName(name), static_cast<int>(size_));
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
    int i = position(obj, name);
    if (i < 0) {
        return false;
    }
    removed_[i] = true;
    ++erased_;
    return true;
}

void MemberIndex::compact(json::Value& obj) {
    if (erased_ == 0) {
        return;
    }
    json::eraseMembersIf(obj, [&](rapidjson::SizeType i, const json::Value::Member&) {
        return i < removed_.size() && removed_[i];
    });
    size_ = obj.MemberCount();
    erased_ = 0;
    // Built again when next needed.
    indexed_ = false;
    positions_.clear();
    removed_.clear();
}

}  // namespace kube::registry::patch
