#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/json.hpp"

namespace kube::cel {

// A CEL type as the checker sees it (cel-go's checker types plus kube's
// DeclType sizes). Schema-derived types carry the schema's bound on their
// size (maxLength, maxItems, maxProperties) for the cost estimate.
struct Type;
using TypePtr = std::shared_ptr<const Type>;

enum class TypeKind {
    Dyn,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    List,    // elem
    Map,     // key, elem
    Object,  // name, fields: a schema object with declared properties
    Param,   // name: a type parameter of an overload ("A")
    Type,    // a type value (int, list, ...); elem: which, when known
    Url,     // kube's url library
    Error,   // the checker's "could not type": no further errors from it
};

struct Type {
    TypeKind kind = TypeKind::Dyn;
    std::string name;
    TypePtr key;
    TypePtr elem;
    std::map<std::string, TypePtr> fields;
    // The schema's bound on size (characters, items, properties), or -1.
    int64_t maxElements = -1;
    // A list's x-kubernetes-list-type ("set", "map"; empty: atomic) and
    // x-kubernetes-list-map-keys: sets and map lists compare without order
    // and merge on +, as kube's unstructured lists do.
    std::string listType;
    std::vector<std::string> listMapKeys;
    // The fewest bytes the value takes in JSON, for the bound of an unbounded
    // list of these (kube's estimateMaxArrayItemsFromMinSize).
    int64_t minSerializedSize = 1;

    static TypePtr dyn();
    static TypePtr null();
    static TypePtr boolean();
    static TypePtr integer();
    static TypePtr uinteger();
    static TypePtr dbl();
    static TypePtr string();
    static TypePtr bytes();
    static TypePtr duration();
    static TypePtr timestamp();
    static TypePtr type();
    static TypePtr url();
    static TypePtr error();
    static TypePtr param(std::string name);
    static TypePtr list(TypePtr elem);
    static TypePtr map(TypePtr key, TypePtr elem);
    // The type of a type value: type(int).
    static TypePtr typeOf(TypePtr of);

    // The type of `self` for a structural schema (an OpenAPI v3 schema as
    // JSON) as kube's SchemaDeclType builds it: objects with properties are
    // objects whose fields are declared, additionalProperties makes a map
    // with string keys, x-kubernetes-int-or-string and a schema with no type
    // that preserves unknown fields are dyn; strings stay strings whatever
    // their format (kube makes byte, duration and date-time bytes, durations
    // and timestamps: not done here yet); the resource root and embedded resources get apiVersion,
    // kind and metadata (name, generateName). `name` names the object types
    // ("selfType.spec").
    static TypePtr fromSchema(const util::json::Value& schema, bool isResourceRoot,
                              const std::string& name = "selfType");

    // The name in messages, as cel-go's checker prints it: int,
    // list(string), map(string, int), the object's name, duration,
    // timestamp, type(int).
    std::string toString() const;
};

}  // namespace kube::cel
