#pragma once

#include <stdexcept>

// RapidJSON asserts on misuse (a missing member through operator[], the
// wrong type through GetObject); an assert would abort the nginx worker, so
// it throws instead and the request's barrier answers 500.
#ifndef RAPIDJSON_ASSERT
#define RAPIDJSON_ASSERT(x)                           \
    do {                                              \
        if (!(x)) {                                   \
            throw std::logic_error("rapidjson: " #x); \
        }                                             \
    } while (0)
#endif

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kube::util::json {

using Document = rapidjson::Document;
using Value = rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

// Go's encoding/json refuses values nested deeper than this
// (maxNestingDepth), the top-level value counting as one level.
inline constexpr int kMaxNestingDepth = 10000;

// Parses `text` into `doc` as Go's encoding/json decodes it, without
// recursion: at most kMaxNestingDepth levels ("invalid character '[' exceeded
// max depth"), each invalid UTF-8 byte in a string or key read as U+FFFD, an
// escaped surrogate that is not half of a pair read as U+FFFD. On failure
// `doc` is null and the message is the one Go's encoding/json would give
// ("unexpected end of JSON input", "invalid character 'x' looking for
// beginning of value"), which kube-apiserver puts in its BadRequest messages.
std::optional<std::string> parse(std::string_view text, Document& doc);

// Compact serialization (kube-apiserver's default output).
std::string serialize(const Value& v);

// Indented serialization (pretty=true, curl User-Agents), two spaces a level.
// Indentation grows with depth times lines: a value whose indentation would
// outgrow kPrettyGrowth times its compact text (plus kPrettySlack bytes) is
// written compact instead, so that no client's object answers pretty with
// hundreds of MB (10,000 levels would make ~100 MB; kube would write them).
inline constexpr size_t kPrettyGrowth = 4;
inline constexpr size_t kPrettySlack = 64 * 1024;
std::string serializePretty(const Value& v);

// Member lookup that tolerates non-objects: nullptr when `v` is not an object
// or has no member `name`.
const Value* member(const Value& v, std::string_view name);
Value* member(Value& v, std::string_view name);

// String member or empty view (absent, null or not a string).
std::string_view stringMember(const Value& v, std::string_view name);

// Nested lookup: at(obj, {"metadata", "name"}).
const Value* at(const Value& v, std::initializer_list<std::string_view> path);

// Sets (adds or replaces) member `name` of object `obj`, copying the name.
void setMember(Value& obj, std::string_view name, Value value, Allocator& a);

// The object member `name` of `obj`, made {} when absent or not an object.
Value& objectMember(Value& obj, std::string_view name, Allocator& a);

// Removes member `name` if present.
void removeMember(Value& obj, std::string_view name);

// A string reference RapidJSON may read without copying, for lookups. A
// default string_view has a null data pointer, which RapidJSON's StringRef
// asserts on: it becomes "".
inline rapidjson::GenericStringRef<char> ref(std::string_view s) {
    return rapidjson::StringRef(s.data() ? s.data() : "",
                                static_cast<rapidjson::SizeType>(s.size()));
}

// A copy of `s` owned by `a` (never a reference to `s`'s bytes).
inline Value stringValue(std::string_view s, Allocator& a) {
    return Value(s.data() ? s.data() : "", static_cast<rapidjson::SizeType>(s.size()), a);
}

inline std::string_view view(const Value& v) {
    return v.IsString() ? std::string_view(v.GetString(), v.GetStringLength()) : std::string_view();
}

// Removes the members of object `obj` for which drop(index, member) holds,
// in one pass that keeps the others' order: O(n), where erasing them one by
// one shifts the rest each time.
template <class Drop>
void eraseMembersIf(Value& obj, Drop drop) {
    auto begin = obj.MemberBegin();
    rapidjson::SizeType n = obj.MemberCount();
    rapidjson::SizeType kept = 0;
    for (rapidjson::SizeType i = 0; i < n; ++i) {
        if (drop(i, static_cast<const Value::Member&>(*(begin + i)))) {
            continue;
        }
        if (kept != i) {
            (begin + kept)->name.Swap((begin + i)->name);
            (begin + kept)->value.Swap((begin + i)->value);
        }
        ++kept;
    }
    if (kept < n) {
        obj.EraseMember(begin + kept, obj.MemberEnd());
    }
}

// Appends `s` to `out` as a JSON string literal (with quotes and escapes).
void appendQuoted(std::string& out, std::string_view s);

// Go's encoding/json name for the JSON type of `v`, as its "json: cannot
// unmarshal <X> into ..." errors say it: "object", "array", "string",
// "number", "bool"; "null" for null, which Go never reports.
std::string_view typeName(const Value& v);

}  // namespace kube::util::json
