#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "util/json.hpp"

namespace kube::cel {

// A CEL value (cel-go's ref.Val): the scalar kinds by value, strings, lists
// and maps shared and immutable, so copying a Value is cheap. An Error is a
// value too: CEL's && and || absorb errors, everything else propagates them.
enum class Kind {
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,   // i: nanoseconds, as Go's time.Duration
    Timestamp,  // i: seconds since the Unix epoch, nanos: 0..999,999,999
    List,
    Map,
    Type,  // str: the type's name ("int", "list", "map", ...)
    Url,   // str: the URL text, parsed again when asked (kube's url library)
    Error,
};

class Value;
struct Type;
using List = std::vector<Value>;
struct MapData;

class Value {
  public:
    Value() = default;
    static Value null() { return Value(); }
    static Value boolean(bool b);
    static Value integer(int64_t i);
    static Value uinteger(uint64_t u);
    static Value dbl(double d);
    static Value string(std::string s);
    static Value bytes(std::string s);
    static Value duration(int64_t nanos);
    static Value timestamp(int64_t seconds, int32_t nanos);
    static Value list(List items);
    static Value map(MapData data);
    static Value type(std::string name);
    static Value url(std::string text);
    static Value error(std::string message);
    // cel-go's "no such overload" error, which kube reports specially.
    static Value noSuchOverload() { return error("no such overload"); }

    Kind kind() const { return kind_; }
    bool isError() const { return kind_ == Kind::Error; }
    bool asBool() const { return b_; }
    int64_t asInt() const { return i_; }
    uint64_t asUint() const { return u_; }
    double asDouble() const { return d_; }
    int32_t nanos() const { return nanos_; }
    // String, Bytes, Type, Url and Error text.
    const std::string& str() const { return *static_cast<const std::string*>(data_.get()); }
    const List& list() const { return *static_cast<const List*>(data_.get()); }
    const MapData& map() const { return *static_cast<const MapData*>(data_.get()); }

    // A list or map read from the object (JSON) rather than built by the
    // expression: kube's unstructured lists word an index error differently,
    // and compare and add by their list type. `schema` is the value's type
    // (null: dyn); it must outlive the value (the Program holds it).
    bool fromObject() const { return fromObject_; }
    const Type* schema() const { return schema_; }
    void markFromObject(const Type* schema) {
        fromObject_ = true;
        schema_ = schema;
    }

    // The name type() gives this value's type ("int", "map", ...).
    std::string typeName() const;

  private:
    Kind kind_ = Kind::Null;
    union {
        bool b_;
        int64_t i_ = 0;
        uint64_t u_;
        double d_;
    };
    int32_t nanos_ = 0;
    bool fromObject_ = false;
    const Type* schema_ = nullptr;
    // The string, List or MapData, by kind.
    std::shared_ptr<const void> data_;
};

// Map entries in insertion order. Past kIndexFrom entries, an index on the
// string keys (JSON objects only have those) keeps lookups O(1); below, a
// scan is cheaper than building it.
struct MapData {
    static constexpr size_t kIndexFrom = 16;

    std::vector<std::pair<Value, Value>> entries;
    std::unordered_map<std::string_view, size_t> stringKeys;

    // Adds an entry; false if the key is already present.
    bool insert(Value key, Value value);
    const Value* find(const Value& key) const;
    size_t size() const { return entries.size(); }
};

// CEL equality (cel-go's heterogeneous equality): numbers compare by value
// across int, uint and double, values of other different types are unequal,
// lists and maps compare element-wise. An error in an element makes an error.
Value equals(const Value& a, const Value& b);

// Ordering for <, <=, >, >=: -1, 0, 1, or 2 when the two do not compare
// (different types, NaN).
int compareValues(const Value& a, const Value& b);

// Go's shortest round-trip text of a double, as string(double) gives it.
std::string formatDouble(double d);

}  // namespace kube::cel
