// util::json::parse on any bytes; what parses serializes, and the
// serialization parses back to the same document: the same structure, keys
// and strings byte for byte (repeated keys included, in order), the same
// numbers: numbers are read correctly rounded, as Go's strconv.ParseFloat
// does, and written so that they read back to the same double.
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_input.hpp"
#include "util/json.hpp"

namespace json = kube::util::json;

namespace {

// One value against the other, without recursion (inputs nest deeply).
bool same(const json::Value& first, const json::Value& second) {
    std::vector<std::pair<const json::Value*, const json::Value*>> todo{{&first, &second}};
    while (!todo.empty()) {
        auto [a, b] = todo.back();
        todo.pop_back();
        if (a->GetType() != b->GetType()) {
            return false;
        }
        if (a->IsString()) {
            if (json::view(*a) != json::view(*b)) {
                return false;
            }
        } else if (a->IsNumber()) {
            if (a->IsInt64() && b->IsInt64()) {
                if (a->GetInt64() != b->GetInt64()) {
                    return false;
                }
            } else if (a->IsUint64() && b->IsUint64()) {
                if (a->GetUint64() != b->GetUint64()) {
                    return false;
                }
            } else {
                if (a->GetDouble() != b->GetDouble()) {
                    return false;
                }
            }
        } else if (a->IsArray()) {
            if (a->Size() != b->Size()) {
                return false;
            }
            for (rapidjson::SizeType i = 0; i < a->Size(); i++) {
                todo.emplace_back(&(*a)[i], &(*b)[i]);
            }
        } else if (a->IsObject()) {
            if (a->MemberCount() != b->MemberCount()) {
                return false;
            }
            for (auto i = a->MemberBegin(), j = b->MemberBegin(); i != a->MemberEnd(); ++i, ++j) {
                if (json::view(i->name) != json::view(j->name)) {
                    return false;
                }
                todo.emplace_back(&i->value, &j->value);
            }
        } else if (!(*a == *b)) {  // null, true, false
            return false;
        }
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    json::Document doc;
    if (json::parse(kube::fuzz::text(data, size), doc)) {
        return 0;
    }
    std::string once = json::serialize(doc);
    json::Document again;
    if (json::parse(once, again)) {
        std::abort();  // our own output is not JSON
    }
    if (!same(doc, again)) {
        std::abort();  // parse(serialize(parse(x))) != parse(x)
    }
    // Indented output grows with the square of the depth (2 spaces a level on
    // every line): kept to inputs where that stays small.
    if (size <= 4096) {
        (void)json::serializePretty(doc);
    }
    return 0;
}
