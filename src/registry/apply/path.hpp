#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"

// Paths to the fields of an object as server-side apply names them; mirrors
// sigs.k8s.io/structured-merge-diff/v4/fieldpath (element.go, path.go,
// serialize-pe.go). Values are plain data; any thread may use them.
namespace kube::registry::apply {

// A value that names a list item: one field of a list-map key, or an item of
// a set list; mirrors value.Value as fieldpath compares it. Lists and objects
// (which kube allows but no schema uses as keys) are kept as their JSON.
struct ItemValue {
    // In value.Compare's order: numbers, then strings, bools, lists, maps,
    // null.
    enum class Type : uint8_t { Float, Int, String, Bool, List, Map, Null };

    Type type = Type::Null;
    bool boolean = false;
    int64_t integer = 0;
    double real = 0;
    // The string, or a list's or map's JSON (Go's encoding).
    std::string text;

    static ItemValue from(const util::json::Value& v);
    // value.Compare: numbers compare numerically across int and float.
    int compare(const ItemValue& o) const;
    bool operator==(const ItemValue& o) const { return compare(o) == 0; }
    // Go's JSON of the value, as fieldsV1 keys hold it.
    std::string json() const;
    // value.ToString, as conflict messages print it: strings quoted.
    std::string toString() const;
    util::json::Value toJson(util::json::Allocator& a) const;
};

struct KeyField {
    std::string name;
    ItemValue value;
};

// One step from a node to a child; mirrors fieldpath.PathElement.
struct PathElement {
    // In PathElement.Compare's order.
    enum class Kind : uint8_t { Field, Key, Value, Index };

    Kind kind = Kind::Field;
    // Field: the member's name.
    std::string name;
    // Key: the item's key fields, sorted by name.
    std::vector<KeyField> key;
    // Value: the set item.
    ItemValue value;
    // Index: the item's position (atomic lists only).
    int index = 0;

    static PathElement field(std::string name);
    static PathElement keyed(std::vector<KeyField> fields);  // sorts them
    static PathElement ofValue(ItemValue v);
    static PathElement ofIndex(int i);

    int compare(const PathElement& o) const;
    bool operator==(const PathElement& o) const { return compare(o) == 0; }
    bool operator<(const PathElement& o) const { return compare(o) < 0; }

    // PathElement.String: ".name", `[name="x",port=80]`, `[=value]`, "[3]".
    std::string toString() const;
    // SerializePathElement: "f:name", `k:{"name":"x"}`, `v:"x"`, "i:3".
    std::string serialize() const;
    // DeserializePathElement; nullopt with `error` set when `s` is malformed.
    // An unknown prefix ("x:") sets `unknownKind` (fieldsV1 skips those).
    static std::optional<PathElement> parse(std::string_view s, std::string* error,
                                            bool* unknownKind = nullptr);
};

using Path = std::vector<PathElement>;

// Path.String: the elements' strings joined (".spec.replicas").
std::string pathString(const Path& p);

}  // namespace kube::registry::apply
