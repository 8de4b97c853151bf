#include "registry/patch/member_index.hpp"

namespace kube::registry::patch {

namespace json = util::json;

MemberIndex::MemberIndex(const json::Value& obj) : size_(obj.MemberCount()) {
    if (size_ > kScanned) {
        build(obj);
    }
}

void MemberIndex::build(const json::Value& obj) {
    positions_.clear();
    positions_.reserve(obj.MemberCount());
    removed_.assign(obj.MemberCount(), false);
    rapidjson::SizeType i = 0;
    for (const auto& m : obj.GetObject()) {
        // The last of a name written twice, as a Go map keeps it.
        positions_[std::string(json::view(m.name))] = i++;
    }
    indexed_ = true;
}

json::Value* MemberIndex::find(json::Value& obj, std::string_view name) {
    if (!indexed_ && size_ > kScanned) {
        build(obj);
    }
    if (indexed_) {
        auto it = positions_.find(name);
        return it == positions_.end() ? nullptr : &(obj.MemberBegin() + it->second)->value;
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
        positions_.emplace(std::string(name), size_);
        removed_.push_back(false);
    }
    ++size_;
}

bool MemberIndex::erase(json::Value& obj, std::string_view name) {
    if (!indexed_ && size_ > kScanned) {
        build(obj);
    }
    if (!indexed_) {
        auto it = obj.FindMember(json::Value(rapidjson::StringRef(name.data(), name.size())));
        if (it == obj.MemberEnd()) {
            return false;
        }
        obj.EraseMember(it);
        --size_;
        return true;
    }
    auto it = positions_.find(name);
    if (it == positions_.end()) {
        return false;
    }
    removed_[it->second] = true;
    positions_.erase(it);
    ++erased_;
    return true;
}

void MemberIndex::compact(json::Value& obj) {
    if (erased_ == 0) {
        return;
    }
    auto begin = obj.MemberBegin();
    rapidjson::SizeType kept = 0;
    for (rapidjson::SizeType i = 0; i < size_; ++i) {
        if (removed_[i]) {
            continue;
        }
        if (kept != i) {
            (begin + kept)->name.Swap((begin + i)->name);
            (begin + kept)->value.Swap((begin + i)->value);
        }
        ++kept;
    }
    obj.EraseMember(begin + kept, obj.MemberEnd());
    size_ = kept;
    erased_ = 0;
    build(obj);
}

}  // namespace kube::registry::patch
