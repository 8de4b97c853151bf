#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "registry/apply/path.hpp"

namespace google::protobuf {
class Descriptor;
class FieldDescriptor;
}  // namespace google::protobuf

namespace kube::apis::apiextensions {
struct StructuralNode;
}  // namespace kube::apis::apiextensions

namespace kube::registry::apply {

// What server-side apply knows of one node of an object: a scalar, a struct
// with named fields, a map, a list, or untyped (a field the schema lacks,
// raw JSON) whose shape is read from the value itself. Mirrors an atom of
// smd's schema as kube builds it from OpenAPI (kube-openapi's schemaconv):
//   - a struct is granular unless its message has struct_type "atomic"
//     (LabelSelector, LocalObjectReference...), a map unless its field has
//     map_type "atomic" (nodeSelector); a field's map_type overrides;
//   - a list has the field's list_type; without one, a patch strategy
//     "merge" with a merge key makes it a map keyed by that key, "merge"
//     alone a set, and anything else atomic;
//   - untyped: objects are granular maps of untyped values, lists atomic.
// Read from the schema's descriptors (src/apis/proto), or for a custom
// resource from its version's structural schema (structural_type_ref.cpp);
// a small value that any thread may copy and use.
class TypeRef {
  public:
    enum class Kind : uint8_t { Scalar, Struct, Map, List, Untyped };
    enum class ListType : uint8_t { Atomic, Set, Map };

    TypeRef() = default;
    // The type of a top-level object of `message`.
    static TypeRef forMessage(const google::protobuf::Descriptor* message);
    static TypeRef untyped() { return TypeRef(); }
    // The type of a custom resource whose version has the structural schema
    // `root` (null: none, every node untyped), as kube's CRD handler builds
    // it: metadata is an ObjectMeta, as in embedded resources. The schema
    // must outlive the type and every type read from it.
    static TypeRef forStructural(const apis::apiextensions::StructuralNode* root);

    Kind kind() const { return kind_; }
    // An atomic struct, map or list is owned and replaced whole.
    bool atomic() const { return atomic_; }

    // Struct: the type of member `name`; `declared` tells whether the struct
    // has such a field (an undeclared one is untyped). Map: the values' type.
    // Untyped: untyped.
    TypeRef member(std::string_view name, bool* declared) const;
    // List: the items' type.
    TypeRef item() const;
    ListType listType() const { return listType_; }
    // The key fields of a list of ListType::Map.
    const std::vector<std::string>& keys() const;
    // The OpenAPI default of key field `name` of the items, if it has one.
    std::optional<ItemValue> keyDefault(const std::string& name) const;

  private:
    Kind kind_ = Kind::Untyped;
    bool atomic_ = false;
    ListType listType_ = ListType::Atomic;
    // Struct: the message; Map/List: the items' message when they are structs.
    const google::protobuf::Descriptor* message_ = nullptr;
    // Map/List: the field the node is, for its item type and list keys.
    const google::protobuf::FieldDescriptor* field_ = nullptr;
    // A list of scalars with no field of its own (a STRING_LIST message).
    bool scalarItems_ = false;
    // Set for a custom resource's node: its schema, and whether it is an
    // object's root (the custom resource, or an embedded resource).
    const apis::apiextensions::StructuralNode* node_ = nullptr;
    bool resourceRoot_ = false;

    static TypeRef ofField(const google::protobuf::FieldDescriptor* f);
    static TypeRef ofValue(const google::protobuf::FieldDescriptor* f);
    static TypeRef ofNode(const apis::apiextensions::StructuralNode* n);
    TypeRef nodeMember(std::string_view name, bool* declared) const;
    std::optional<ItemValue> nodeKeyDefault(const std::string& name) const;
};

}  // namespace kube::registry::apply
