#include "util/json_depth.hpp"

#include <vector>

namespace kube::util::json {

namespace {

// The children of one open array or object still to visit.
struct Level {
    const Value* container;
    rapidjson::SizeType next = 0;
};

const Value* child(const Level& l) {
    if (l.container->IsArray()) {
        return l.next < l.container->Size() ? &(*l.container)[l.next] : nullptr;
    }
    return l.next < l.container->MemberCount() ? &(l.container->MemberBegin() + l.next)->value
                                               : nullptr;
}

bool isContainer(const Value& v) {
    return v.IsArray() || v.IsObject();
}

}  // namespace

std::optional<char> firstTooDeep(const Value& v, int limit) {
    if (!isContainer(v)) {
        return std::nullopt;
    }
    if (limit < 1) {
        return v.IsArray() ? '[' : '{';
    }
    std::vector<Level> open{{&v}};
    while (!open.empty()) {
        const Value* c = child(open.back());
        if (c == nullptr) {
            open.pop_back();
            continue;
        }
        open.back().next++;
        if (!isContainer(*c)) {
            continue;
        }
        if (static_cast<int>(open.size()) >= limit) {
            return c->IsArray() ? '[' : '{';
        }
        open.push_back({c});
    }
    return std::nullopt;
}

bool textNestsDeeperThan(std::string_view text, int depth) {
    int level = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (inString) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                inString = false;
            }
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++level > depth) {
                return true;
            }
        } else if (c == '}' || c == ']') {
            --level;
        }
    }
    return false;
}

}  // namespace kube::util::json
